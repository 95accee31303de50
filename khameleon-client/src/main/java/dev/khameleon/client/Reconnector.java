package dev.khameleon.client;

import dev.khameleon.core.protocol.ControlMessage.Welcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps the client connected: opens the first connection, opens the next one after each lost
 * live connection once the {@link ReconnectBackoff} delay has passed, and runs the idle watchdog
 * that drops a connection on which nothing arrives any more.
 *
 * <p><b>Threading.</b> Any thread. The back-off and the watchdog's task are guarded by the
 * client's one lock, the monitor of {@link ClientState} (see there why one lock suffices); a
 * connection is opened under it, so a closing client never gains a new live connection. Waits
 * happen on the scheduler, never on the caller's thread.
 */
final class Reconnector {
    // The client's messages keep the client's logger, so logging configurations still apply.
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);

    private final ClientState state;
    private final Connection.Parts parts;
    private final URI uri;
    private final HttpClient httpClient;
    private final Duration connectTimeout;
    private final ReconnectBackoff backoff;
    private final ScheduledExecutorService scheduler;
    /** A connection that receives nothing this long is dropped; 0: never. */
    private final long idleTimeoutNanos;
    private final LongSupplier nanoClock;
    /** The idle watchdog's task, or null; guarded by the state's lock. */
    private ScheduledFuture<?> idleWatchdog;

    /**
     * A reconnector with the address, timeouts, back-off and clock of {@code s} (read now, not
     * kept), opening connections that work with {@code parts} and waiting on {@code scheduler}.
     */
    Reconnector(ClientSettings s, Connection.Parts parts, ScheduledExecutorService scheduler) {
        this.state = parts.state();
        this.parts = parts;
        this.uri = s.uri;
        this.httpClient = s.httpClient != null ? s.httpClient : HttpClient.newHttpClient();
        this.connectTimeout = s.connectTimeout;
        this.backoff = new ReconnectBackoff(s.initialBackoff.toMillis(), s.maxBackoff.toMillis(),
                s.healthyAfter.toNanos(), s.random != null ? s.random : new SplittableRandom());
        this.scheduler = scheduler;
        this.idleTimeoutNanos = s.idleTimeout.toNanos();
        this.nanoClock = s.nanoClock;
    }

    /**
     * Starts the client: runs {@code start}, starts the idle watchdog and opens the first
     * connection, all under the lock so that {@code close()} comes before or after all of it.
     *
     * @return the future of the first welcome
     * @throws IllegalStateException if the client is closed or already started
     */
    CompletableFuture<Welcome> connect(Runnable start) {
        synchronized (state) {
            CompletableFuture<Welcome> first = state.begin();
            start.run();
            startIdleWatchdog();
            open();
            return first;
        }
    }

    /**
     * Closes the connection handling, for the client's {@code close()}: fails the first welcome's
     * future if still pending, runs {@code stopSending}, stops the idle watchdog and says goodbye
     * on the live connection (waiting at most about two seconds). Idempotent.
     *
     * @return false, having done nothing, if the client was closed already
     */
    boolean close(Runnable stopSending) {
        Optional<ClientState.Closing> closing = state.close();
        if (closing.isEmpty()) {
            return false;
        }
        // Completed outside the lock: the application's callbacks on the future run right here.
        CompletableFuture<Welcome> first = closing.get().firstWelcome();
        if (first != null) {
            first.completeExceptionally(new IllegalStateException("client closed"));
        }
        stopSending.run();
        synchronized (state) {
            if (idleWatchdog != null) {
                idleWatchdog.cancel(false);
            }
        }
        Connection live = closing.get().live();
        if (live != null) {
            live.sayBye();
        }
        return true;
    }

    /**
     * Schedules the next attempt after the live connection ended, having been welcomed for
     * {@code welcomedForNanos} (or -1); nothing once the client is closed.
     */
    void scheduleReconnect(long welcomedForNanos) {
        long delay;
        synchronized (state) {
            if (state.isClosed()) {
                return;
            }
            delay = backoff.nextDelayMillis(welcomedForNanos);
        }
        LOG.info("reconnecting to {} in {} ms", uri, delay);
        try {
            scheduler.schedule(() -> {
                synchronized (state) {
                    open();
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.debug("reconnect not scheduled: {}", e.toString());
        }
    }

    /** Starts one connection attempt unless the client is closed; caller holds the lock. */
    private void open() {
        Connection c = new Connection(parts, this);
        if (!state.makeLive(c)) {
            return;
        }
        httpClient.newWebSocketBuilder().connectTimeout(connectTimeout).buildAsync(uri, c)
                .whenComplete((ws, error) -> {
                    if (error != null) {
                        c.lost(Connection.ABNORMAL_CLOSURE, "connection failed: " + error.getMessage(), error);
                    }
                });
    }

    /**
     * Checks the live connection every third of the idle timeout: one silent for a third of it
     * gets a ping (a live server answers with a pong, so a quiet session is not mistaken for a dead
     * one); one silent for the whole timeout is aborted and handled as lost (status 1006). A dead
     * peer is thus noticed between one and four thirds of the timeout after it last sent anything.
     * Caller holds the lock.
     */
    private void startIdleWatchdog() {
        if (idleTimeoutNanos == 0) {
            return;
        }
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), idleTimeoutNanos / 3);
        try {
            idleWatchdog = scheduler.scheduleAtFixedRate(this::checkIdle, period, period, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            LOG.warn("idle watchdog not scheduled; a silent server will not be noticed: {}", e.toString());
        }
    }

    private void checkIdle() {
        Connection c = state.liveUnlessClosed();
        WebSocket ws = c == null ? null : c.webSocket();
        if (ws == null) {
            return; // no connection, or one still being opened: connectTimeout bounds that
        }
        long silent = nanoClock.getAsLong() - c.lastHeardNanos();
        if (silent >= idleTimeoutNanos) {
            long millis = TimeUnit.NANOSECONDS.toMillis(silent);
            LOG.warn("nothing received from {} for {} ms; dropping the connection", uri, millis);
            ws.abort();
            c.lost(Connection.ABNORMAL_CLOSURE, "idle timeout: nothing received for " + millis + " ms", null);
        } else if (silent >= idleTimeoutNanos / 3) {
            try {
                ws.sendPing(ByteBuffer.allocate(0)).exceptionally(e -> null);
            } catch (RuntimeException e) {
                LOG.debug("ping not sent: {}", e.toString()); // an earlier ping still outstanding
            }
        }
    }
}
