package dev.khameleon.server;

import dev.khameleon.server.spi.WebSocketPeer;
import io.netty.channel.ChannelHandler;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Khameleon server: a WebSocket endpoint per {@link Application}, where each connected client
 * gets a session that schedules blocks from its predictions and pushes them at its bandwidth.
 *
 * <pre>{@code
 * try (KhameleonServer server = KhameleonServer.builder().port(8080).application(app).build().start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p><b>On your own port.</b> To serve Khameleon from an HTTP server of your own, on its port and
 * its event loops, next to your other routes, call {@link #mount()} instead of {@link #start()} and
 * add {@link #newHandler()} to each connection's pipeline after your {@code HttpServerCodec}.
 *
 * <p><b>Threading.</b> Network I/O, protocol handling and the paced sender run on Netty event
 * loops; scheduling runs on a bounded pool of scheduler threads and block fetches start on a
 * bounded pool of fetch threads, never on an event loop. {@link #start()}, {@link #close()} and
 * {@link #metrics()} may be called from any thread. Bad input from a client closes that client's
 * session with a protocol error; it never affects other sessions or the server. Anything thrown by
 * user code (schedulers, predictors, authenticators, block sources), {@code Error}s included,
 * closes only the session it ran for.
 *
 * <p><b>Defaults.</b> Safe for a server reachable from the internet: it binds {@code 127.0.0.1},
 * accepts only same-origin browsers (or clients without {@code Origin}), and bounds what each
 * client address, connection and session may hold; every limit is a builder option listed with
 * its default in the "Limits" section of {@code docs/server.md}.
 */
public final class KhameleonServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KhameleonServer.class);

    /** The I/O transport. */
    public enum Transport {
        /** Epoll when its native library is available, NIO otherwise (the default). */
        AUTO,
        /** Java NIO. */
        NIO,
        /** Linux epoll, through the optional {@code netty-transport-native-epoll} dependency. */
        EPOLL
    }

    private enum State { NEW, STARTED, MOUNTED, CLOSED }

    private final ServerConfig config;
    private final ServerRuntime runtime;
    private final Object lock = new Object();
    /** Written under {@code lock}; read without it where waiting for {@link #close()} must be avoided. */
    private volatile State state = State.NEW;
    /** What {@link #drain} returned, once called. */
    private CompletableFuture<Void> drained;
    /** The port of a started server; under {@code lock}. */
    private ListeningPort port;
    /** Known once started; under {@code lock}. */
    private Transport transport;
    private final AttachedConnections attached;

    private KhameleonServer(ServerConfig config) {
        this.config = config;
        this.runtime = new ServerRuntime(config);
        this.attached = new AttachedConnections(runtime);
    }

    /** Starts a builder with every setting at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the port and starts accepting connections; returns when the server is listening.
     *
     * @return this server
     * @throws IllegalStateException if the server was already started, mounted or closed, or the requested
     *     transport is not available
     * @throws UncheckedIOException if the address cannot be bound
     */
    public KhameleonServer start() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("the server was already " + state.name().toLowerCase());
            }
            Transports.Choice t = Transports.choose(config.transport());
            transport = t.transport();
            try {
                port = ListeningPort.bind(config, t, new ServerInitializer(runtime));
            } catch (RuntimeException e) {
                state = State.CLOSED;
                shutdownThreads();
                throw e;
            }
            state = State.STARTED;
            log.info("Khameleon server listening on {} ({} transport{}), applications {}",
                    port.localAddress(), transport, config.sslContext().isPresent() ? ", TLS" : "",
                    config.applicationsByPath().keySet());
            return this;
        }
    }

    /**
     * Makes this server serve its applications through handlers you add to your own Netty HTTP
     * pipeline ({@link #newHandler()}), on your port and your event loops, instead of binding a port
     * of its own. The scheduler and fetch threads start here; {@code host}, {@code port},
     * {@code transport} and {@code ioThreads} do not apply. Every other setting and limit applies
     * to the connections the handlers take over; see "Mounting on your own Netty server" in
     * {@code docs/server.md}. {@link #drain}, {@link #metrics()} and {@link #close()} work as for a
     * started server; {@code close()} leaves your server and its other connections running.
     *
     * @return this server
     * @throws IllegalStateException if the server was already started, mounted or closed, or an
     *     {@code sslContext} was set (TLS then belongs in your pipeline, before the HTTP codec)
     */
    public KhameleonServer mount() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("the server was already " + state.name().toLowerCase());
            }
            if (config.sslContext().isPresent()) {
                throw new IllegalStateException("sslContext does not apply to a mounted server: add your SslHandler"
                        + " to your pipeline before the HTTP codec");
            }
            state = State.MOUNTED;
            log.info("Khameleon server mounted, applications {}", config.applicationsByPath().keySet());
            return this;
        }
    }

    /**
     * A new handler that serves this server's applications on one connection of your Netty HTTP
     * server; add one to each connection's pipeline, right after your {@code HttpServerCodec} (or
     * {@code HttpRequestDecoder} and {@code HttpResponseEncoder}) and before your own request
     * handlers. For each request it sees, the handler either takes the connection over — a
     * request for an application's path, or {@code GET /healthz} when no application is mounted
     * at {@code /healthz} — or passes the request and its content on unchanged. A connection it
     * takes over counts against the per-address limits from then on, gets the handshake timeout
     * and the rest of the limits, and belongs to Khameleon until it closes: the handlers after this
     * one see no more messages from it.
     *
     * <p>Not sharable: call this once per channel, e.g. in your {@code ChannelInitializer}. Any
     * thread. After {@link #close()} it still returns handlers, which refuse upgrades with 503 and
     * answer {@code /healthz} with 503, so your server keeps working unchanged.
     *
     * @throws IllegalStateException if the server was neither mounted ({@link #mount()}) nor started
     */
    public ChannelHandler newHandler() {
        // No lock: called on event loops, which must not wait while close() waits for sessions.
        if (state == State.NEW) {
            throw new IllegalStateException("call mount() before newHandler()");
        }
        return new MountRouter(runtime);
    }

    /**
     * Attaches a WebSocket connection that another WebSocket stack accepted at {@code path} (for
     * example a Jakarta WebSocket container, see the {@code khameleon-jakarta} module): from now on
     * it is a Khameleon connection as if its upgrade had reached the server's own port. The
     * adapter passes what the client sends to the returned connection and the server answers
     * through {@code peer}. The stack owns the handshake, framing, pings and the largest message
     * (set it to {@code maxFramePayloadBytes}); the server applies the rest: the per-address
     * limits (when the peer tells its address), the origin check (when it tells the
     * {@code Origin}), draining, the hello deadline, the session cap and cache budget, the idle and
     * write-stall timeouts and the write-buffer water marks (on the peer's pending sends).
     *
     * <p>A connection refused by those checks is closed at once through {@code peer} — 1008 for
     * the per-address limits and a forbidden origin, 1013 while draining or after {@link #close()}
     * — counted as a refused handshake, and returned already closed. Any thread; returns at once.
     * Attached connections run on event loops of the server's own ({@code khameleon-attached-*},
     * {@code ioThreads} of them, default the number of processors), made at the first call.
     *
     * @param path the application's path, as in {@link Application.Builder#path}
     * @throws IllegalArgumentException if no application is mounted at {@code path}
     * @throws IllegalStateException if the server was neither mounted ({@link #mount()}) nor started
     */
    public AttachedConnection attach(String path, WebSocketPeer peer) {
        Objects.requireNonNull(peer, "peer");
        ServerRuntime.App app = runtime.appAt(Objects.requireNonNull(path, "path"));
        if (app == null) {
            throw new IllegalArgumentException("no application at path " + LogText.clean(path));
        }
        if (state == State.NEW) {
            throw new IllegalStateException("call mount() or start() before attach()");
        }
        return attached.attach(app, peer);
    }

    /**
     * The address the server listens on; the actual port when it was configured as 0.
     *
     * @throws IllegalStateException if the server is not started, e.g. mounted on your own server
     */
    public InetSocketAddress localAddress() {
        synchronized (lock) {
            if (port == null) {
                throw new IllegalStateException(state == State.MOUNTED
                        ? "the server is mounted: it serves on your server's port, not one of its own"
                        : "the server is not started");
            }
            return port.localAddress();
        }
    }

    /** The port the server listens on; see {@link #localAddress()} (and its exceptions). */
    public int port() {
        return localAddress().getPort();
    }

    /** The transport in use (known once started). */
    public Optional<Transport> transport() {
        synchronized (lock) {
            return Optional.ofNullable(transport);
        }
    }

    /** The applications, in the order they were added. */
    public List<Application> applications() {
        return config.applications();
    }

    ServerRuntime runtime() {
        return runtime;
    }

    /** A snapshot of the server's counters. Cheap: no per-session work. */
    public ServerMetrics metrics() {
        return runtime.metrics();
    }

    /** A snapshot of each open session's counters. */
    public List<SessionMetrics> sessionMetrics() {
        List<SessionMetrics> out = new ArrayList<>();
        for (Session s : runtime.sessions()) {
            out.add(s.metrics());
        }
        return out;
    }

    /**
     * Starts draining this node, for a rolling restart or scale-in behind a load balancer: from now
     * on {@code GET /healthz} answers 503 and new WebSocket upgrades are refused with 503, and the
     * sessions open now are closed with the error {@code shutdown} (WebSocket status 1001) one after
     * another, spread evenly over {@code window}, so that their clients (which reconnect with
     * back-off) reach other nodes without arriving all at once. The server keeps running; call
     * {@link #close()} once the returned future completes. Non-blocking. A second call returns a
     * future for the sessions of the first.
     *
     * @param window how long to spread the closes over; {@code Duration.ZERO} closes them all at once
     * @return completes when every session open at the first call has closed
     * @throws IllegalArgumentException if {@code window} is negative
     * @throws IllegalStateException if the server is not running (started or mounted)
     */
    public CompletableFuture<Void> drain(Duration window) {
        if (window == null || window.isNegative()) {
            throw new IllegalArgumentException("drain window must be >= 0, was " + window);
        }
        synchronized (lock) {
            if (state != State.STARTED && state != State.MOUNTED) {
                throw new IllegalStateException("drain needs a running server; it is " + state);
            }
            if (drained != null) {
                return drained;
            }
            runtime.draining = true;
            List<Session> open = runtime.sessions();
            log.info("Khameleon server draining {} sessions over {} ms", open.size(), window.toMillis());
            CompletableFuture<?>[] closed = new CompletableFuture<?>[open.size()];
            long step = open.isEmpty() ? 0 : window.toNanos() / open.size();
            for (int i = 0; i < open.size(); i++) {
                Session s = open.get(i);
                CompletableFuture<Void> done = new CompletableFuture<>();
                s.closeFuture().addListener(f -> done.complete(null));
                closed[i] = done;
                // A timer outside the event loops, which a mounted server does not own; the close
                // itself runs on the session's loop.
                CompletableFuture.delayedExecutor(i * step, TimeUnit.NANOSECONDS).execute(() -> s.requestShutdown(
                        "the server is draining; connect again to reach another one"));
            }
            drained = CompletableFuture.allOf(closed);
            return drained;
        }
    }

    /** Whether the server refuses new sessions: {@link #drain} has been called, or {@link #close()}. */
    public boolean isDraining() {
        return runtime != null && runtime.draining;
    }

    /**
     * Shuts down gracefully: stops accepting connections, closes every session with the error
     * {@code shutdown} (WebSocket status 1001), waits up to the shutdown timeout for them to
     * close, then stops the threads. A mounted server stops only its own threads: your server and
     * its other connections keep running, and the handlers from {@link #newHandler()} refuse
     * upgrades with 503 from then on. Idempotent; blocks the caller, so do not call it from an
     * event loop.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            boolean running = state == State.STARTED || state == State.MOUNTED;
            state = State.CLOSED;
            // Mounted handlers live on in the user's pipelines: from now on they refuse upgrades with 503.
            runtime.draining = true;
            if (!running) {
                shutdownThreads();
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.shutdownTimeoutMillis());
            if (port != null) {
                port.stopAccepting();
            }
            List<Session> open = runtime.sessions();
            log.info("Khameleon server closing {} sessions", open.size());
            List<Future<?>> closing = new ArrayList<>();
            for (Session s : open) {
                closing.add(s.closeFuture());
                s.requestShutdown("the server is shutting down");
            }
            boolean inTime = true;
            for (Future<?> f : closing) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !f.awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                    log.warn("Khameleon server: sessions still open at the shutdown timeout; closing them hard");
                    inTime = false;
                    break;
                }
            }
            if (inTime) {
                awaitAttachedPeers(open, deadline);
            }
            shutdownThreads();
            log.info("Khameleon server closed");
        }
    }

    /**
     * Waits, until {@code deadline}, for the stacks of mounted sessions to carry out their closes: an
     * adapter may write the close frame on its own thread after the channel has closed, and the
     * container that is stopped next would cut it off (the client would see 1006, not 1001).
     */
    private static void awaitAttachedPeers(List<Session> sessions, long deadline) {
        for (Session s : sessions) {
            if (s.channel() instanceof AttachedChannel attached) {
                try {
                    attached.peerClosed().toCompletableFuture().get(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    log.warn("Khameleon server: a mounted session's close was not written by the shutdown timeout");
                    return;
                } catch (ExecutionException e) {
                    // peerClosed never fails; nothing to wait for
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Stops every thread the server made: the event loops each get up to the shutdown timeout for
     * their queued tasks, the scheduler and fetch executors are interrupted at once.
     */
    private void shutdownThreads() {
        if (port != null) {
            port.shutdownGracefully();
        }
        attached.shutdown();
        runtime.schedulerExecutor.shutdownNow();
        runtime.fetchExecutor.shutdownNow();
        attached.awaitTermination();
        if (port != null) {
            port.awaitTermination();
        }
    }

    /**
     * Collects and validates a server's settings: each setter rejects a bad value at once with an
     * {@link IllegalArgumentException} naming the setting and the value. Not thread-safe.
     */
    public static final class Builder extends ServerSettings {
        // The setters, their defaults and their checks are ServerSettings'; this adds the build step.
        private Builder() {
        }

        /**
         * Validates the combination and builds a server (not yet started).
         *
         * @throws IllegalArgumentException if no application was added, or {@code maxCacheBlocks}
         *     exceeds {@code maxTotalCacheBlocks}
         */
        public KhameleonServer build() {
            return new KhameleonServer(toConfig());
        }
    }
}
