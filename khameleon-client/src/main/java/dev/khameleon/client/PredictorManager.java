package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.ControlMessage.PredictionState;
import dev.khameleon.core.protocol.ControlMessage.RateReport;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.spi.ClientPredictor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Streams the client half of the predictor upstream: feeds it the application's interaction
 * events and, every {@code stateInterval} (default 150 ms), sends its state; every
 * {@code rateInterval} (default 500 ms) it sends a receive-rate report of the block bytes
 * received since the last one.
 *
 * <p><b>Never more often than configured.</b> Each send checks the injected clock: a state goes
 * out only if at least {@code stateInterval} has passed since the last one, and only if it
 * differs from the last state sent (a resting pointer costs nothing); likewise for rate reports.
 * So a scheduler that fires early or twice cannot raise the rate. {@link #tick()} runs both
 * checks once; {@link #start()} runs them on the injected scheduler.
 *
 * <p><b>Misses.</b> When the application's request finds nothing in the cache, {@link #onMiss()}
 * sends a fresh state at once instead of waiting for the next periodic one, so a miss costs one
 * round trip plus one block rather than up to a whole {@code stateInterval} more. It is
 * rate-limited by {@code missStateInterval} (default 20 ms): a burst of misses costs one state.
 *
 * <p><b>Threading.</b> {@link #onEvent}, {@link #recordReceived}, {@link #tick()} and
 * {@link #close()} may be called from any thread; the predictor is only ever called under this
 * manager's lock, as {@link ClientPredictor} expects. An exception from the predictor or the
 * sink is caught and logged; the manager keeps running. After {@link #close()} nothing is sent.
 *
 * @param <E> the predictor's event type
 */
public final class PredictorManager<E> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PredictorManager.class);

    /** Where the manager's messages go (the connection). Called from the manager's threads. */
    public interface Sink {
        /** Sends a prediction state. Must not block. */
        void sendState(PredictionState state);

        /** Sends a receive-rate report. Must not block. */
        void sendRate(RateReport report);
    }

    private final ClientPredictor<E> predictor;
    private final Sink sink;
    private final LongSupplier millisClock;
    private final long stateIntervalMillis;
    private final long rateIntervalMillis;
    private final long missStateIntervalMillis;
    private final ScheduledExecutorService scheduler;

    private final Object lock = new Object();
    private JsonNode lastState;
    private long lastStateMillis;
    private boolean stateSent;
    private long rateWindowStart;
    private long bytesInWindow;
    private long nextSeq = RateReport.NO_SEQ;
    private boolean rateStarted;
    private boolean closed;
    private ScheduledFuture<?> stateTask;
    private ScheduledFuture<?> rateTask;
    private long statesSent;
    /** A miss came within {@code missStateInterval} of the last state: its state is due at the window's end. */
    private ScheduledFuture<?> deferredMiss;
    /** A miss's state is still to be sent (see {@link #onMiss()}). */
    private boolean missPending;
    /** A check that came early runs again at its interval's end (see {@link #checkAgainIn}). */
    private ScheduledFuture<?> recheck;

    private PredictorManager(Builder<E> b) {
        this.predictor = b.predictor;
        this.sink = b.sink;
        this.millisClock = b.millisClock;
        this.stateIntervalMillis = b.stateInterval.toMillis();
        this.rateIntervalMillis = b.rateInterval.toMillis();
        this.missStateIntervalMillis = b.missStateInterval.toMillis();
        this.scheduler = b.scheduler;
    }

    /** Starts a builder for a manager of {@code predictor} that sends to {@code sink}. */
    public static <E> Builder<E> builder(ClientPredictor<E> predictor, Sink sink) {
        return new Builder<>(predictor, sink);
    }

    /** Feeds one interaction event to the predictor. Any thread. */
    public void onEvent(E event) {
        Objects.requireNonNull(event, "event");
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                predictor.onEvent(event);
            } catch (RuntimeException e) {
                LOG.warn("client predictor {} rejected event {}; ignored", predictor, event, e);
            }
        }
    }

    /** Counts {@code bytes} of block frames received, for the next rate report. Any thread. */
    public void recordReceived(long bytes) {
        synchronized (lock) {
            bytesInWindow += bytes;
        }
    }

    /**
     * Counts a block frame of {@code bytes} with sequence number {@code seq}, received or skipped:
     * the next rate report also says {@code seq + 1} is the sequence number expected next, which
     * lets the server bound its bytes in flight. Any thread.
     */
    public void recordReceived(long bytes, long seq) {
        synchronized (lock) {
            bytesInWindow += bytes;
            nextSeq = Math.max(nextSeq, seq + 1);
        }
    }

    /**
     * Runs the checks on the scheduler: the state check every {@code stateInterval}, the rate
     * check every {@code rateInterval}.
     *
     * @throws IllegalStateException if already started or closed, or no scheduler was configured
     */
    public void start() {
        synchronized (lock) {
            if (closed || stateTask != null) {
                throw new IllegalStateException(closed ? "predictor manager is closed" : "already started");
            }
            if (scheduler == null) {
                throw new IllegalStateException("no scheduler configured; call tick() yourself");
            }
            stateTask = scheduler.scheduleAtFixedRate(this::sendStateIfDue, 0, stateIntervalMillis, TimeUnit.MILLISECONDS);
            rateTask = scheduler.scheduleAtFixedRate(this::sendRateIfDue, rateIntervalMillis, rateIntervalMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the state and the rate report if each is due (a missed request's state included). Any thread. */
    public void tick() {
        boolean miss;
        synchronized (lock) {
            miss = missPending;
        }
        sendState(miss ? missStateIntervalMillis : stateIntervalMillis);
        sendRateIfDue();
    }

    /**
     * The application's request missed the cache: sends the current state now if it differs from
     * the last one sent and at least {@code missStateInterval} has passed since then. A miss
     * inside that window is not dropped: with a scheduler, the state is sent when the window ends
     * (one deferred send however many misses); without one, by the next {@link #tick()}. Any thread.
     */
    public void onMiss() {
        long wait;
        synchronized (lock) {
            long now = Math.max(0, millisClock.getAsLong());
            wait = stateSent ? lastStateMillis + missStateIntervalMillis - now : 0;
            if (wait > 0) {
                missPending = true;
                if (scheduler != null && !closed && (deferredMiss == null || deferredMiss.isDone())) {
                    deferredMiss = scheduler.schedule(this::sendDeferredMiss, wait, TimeUnit.MILLISECONDS);
                }
                return;
            }
        }
        sendState(missStateIntervalMillis);
    }

    /**
     * Forgets what was sent, so the next due check sends the state even if unchanged and the
     * rate window restarts: after a reconnect, the new session has no state yet.
     */
    public void resend() {
        synchronized (lock) {
            stateSent = false;
            lastState = null;
            rateStarted = false;
            bytesInWindow = 0;
            nextSeq = RateReport.NO_SEQ;
        }
    }

    /** The last state sent and its time, if any. */
    public Optional<PredictionState> lastSent() {
        synchronized (lock) {
            return stateSent ? Optional.of(new PredictionState(lastStateMillis, lastState)) : Optional.empty();
        }
    }

    /** How many states were sent so far. */
    public long statesSent() {
        synchronized (lock) {
            return statesSent;
        }
    }

    /** Stops the scheduled checks; nothing is sent afterwards. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (stateTask != null) {
                stateTask.cancel(false);
                rateTask.cancel(false);
            }
            if (deferredMiss != null) {
                deferredMiss.cancel(false);
            }
            if (recheck != null) {
                recheck.cancel(false);
            }
        }
    }

    /**
     * A check found its interval not quite over: with a scheduler, checks once more when it is,
     * instead of a whole period later. The scheduler's fixed-rate ticks and the millisecond clock
     * drift apart, so a tick can come a millisecond early; skipped, a 500 ms rate report went out
     * after a second, and the server's start-up, which grows the rate per report, lagged. Called
     * under the lock.
     */
    private void checkAgainIn(long waitMillis) {
        long wait = Math.max(1, waitMillis);
        if (scheduler == null || closed) {
            return;
        }
        if (recheck != null) {
            if (recheck.getDelay(TimeUnit.MILLISECONDS) <= wait) {
                return; // the earlier re-check covers this one: it runs every check
            }
            recheck.cancel(false);
        }
        recheck = scheduler.schedule(this::recheck, wait, TimeUnit.MILLISECONDS);
    }

    private void recheck() {
        synchronized (lock) {
            recheck = null;
        }
        tick();
    }

    /**
     * The end of a miss's window: the state goes out unless one was sent meanwhile. No gap check,
     * since the window has passed by construction and a clock may lag the scheduler by a tick.
     */
    private void sendDeferredMiss() {
        boolean pending;
        synchronized (lock) {
            pending = missPending;
        }
        if (pending) {
            sendState(0);
        }
    }

    private void sendStateIfDue() {
        sendState(stateIntervalMillis);
    }

    /** Sends the state if at least {@code minGapMillis} passed since the last one and it changed. */
    private void sendState(long minGapMillis) {
        PredictionState message;
        synchronized (lock) {
            long now = Math.max(0, millisClock.getAsLong());
            if (closed) {
                return;
            }
            if (stateSent && now - lastStateMillis < minGapMillis) {
                checkAgainIn(lastStateMillis + minGapMillis - now);
                return;
            }
            JsonNode state;
            try {
                state = predictor.state(now);
            } catch (RuntimeException e) {
                LOG.warn("client predictor {} failed to produce a state; skipped", predictor, e);
                return;
            }
            if (state == null || stateSent && state.equals(lastState)) {
                if (state != null) {
                    missPending = false; // the server has this state already
                }
                return;
            }
            lastState = state;
            lastStateMillis = now;
            stateSent = true;
            missPending = false;
            statesSent++;
            message = new PredictionState(now, state);
        }
        try {
            sink.sendState(message);
        } catch (RuntimeException e) {
            LOG.warn("sending the prediction state failed", e);
        }
    }

    private void sendRateIfDue() {
        RateReport report;
        synchronized (lock) {
            long now = Math.max(0, millisClock.getAsLong());
            if (closed) {
                return;
            }
            if (!rateStarted) {
                rateStarted = true;
                rateWindowStart = now;
                bytesInWindow = 0;
                return;
            }
            long elapsed = now - rateWindowStart;
            if (elapsed < rateIntervalMillis || elapsed <= 0) {
                checkAgainIn(rateIntervalMillis - elapsed);
                return;
            }
            double rate = Math.min(bytesInWindow * 1000.0 / elapsed, Protocol.MAX_BYTES_PER_SECOND);
            rateWindowStart = now;
            bytesInWindow = 0;
            report = new RateReport(now, rate, nextSeq);
        }
        try {
            sink.sendRate(report);
        } catch (RuntimeException e) {
            LOG.warn("sending the rate report failed", e);
        }
    }

    /**
     * Configures a {@link PredictorManager}; each setter validates at once and names the
     * setting. Not thread-safe.
     *
     * @param <E> the predictor's event type
     */
    public static final class Builder<E> {
        private final ClientPredictor<E> predictor;
        private final Sink sink;
        private LongSupplier millisClock = System::currentTimeMillis;
        private Duration stateInterval = Duration.ofMillis(150);
        private Duration rateInterval = Duration.ofMillis(500);
        private Duration missStateInterval = Duration.ofMillis(20);
        private ScheduledExecutorService scheduler;

        private Builder(ClientPredictor<E> predictor, Sink sink) {
            this.predictor = Objects.requireNonNull(predictor, "predictor");
            this.sink = Objects.requireNonNull(sink, "sink");
        }

        /**
         * The clock in milliseconds that states and reports are stamped with; must be the clock
         * of the events' timestamps. Default {@link System#currentTimeMillis()}.
         */
        public Builder<E> clock(LongSupplier millisClock) {
            this.millisClock = Objects.requireNonNull(millisClock, "clock");
            return this;
        }

        /**
         * The least time between two states (default 150 ms).
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> stateInterval(Duration interval) {
            this.stateInterval = Durations.atLeastOneMilli("stateInterval", interval);
            return this;
        }

        /**
         * The receive-rate reporting interval (default 500 ms).
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> rateInterval(Duration interval) {
            this.rateInterval = Durations.atLeastOneMilli("rateInterval", interval);
            return this;
        }

        /**
         * The least time between the last state and one sent because of a miss ({@link #onMiss()});
         * default 20 ms.
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> missStateInterval(Duration interval) {
            this.missStateInterval = Durations.atLeastOneMilli("missStateInterval", interval);
            return this;
        }

        /** The scheduler {@link #start()} uses; none by default (then drive {@link #tick()}). */
        public Builder<E> scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** Builds the manager (not yet started). */
        public PredictorManager<E> build() {
            return new PredictorManager<>(this);
        }
    }
}
