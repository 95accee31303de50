package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * The Khameleon Java client: connects to a Khameleon server over a WebSocket, streams its
 * predictor's state upstream, caches the blocks the server pushes in a {@link RingBufferCache}
 * and answers the application's requests from it with progressive {@link Upcall upcalls}.
 *
 * <pre>{@code
 * KhameleonClient<PointerEvent> client = KhameleonClient.builder()
 *         .uri(URI.create("ws://localhost:8080/gallery"))
 *         .application("gallery")
 *         .cacheBlocks(5000)
 *         .build();
 * client.connect().join();
 * client.onEvent(x, y, System.currentTimeMillis());      // every pointer move
 * client.request(cellId, response -> show(response));    // when the user asks for a cell
 * }</pre>
 *
 * <p><b>Threading.</b> Every public method may be called from any thread. Blocks are received
 * and cached on the WebSocket's listener thread; upcalls and {@link ClientListener} calls run on
 * the upcall executor (by default one daemon thread owned by the client), never on the network
 * thread. States and rate reports are sent from the client's scheduler.
 *
 * <p><b>Failures.</b> A malformed frame from the server is reported to the
 * {@link ClientListener} and closes that connection with status 1007; a lost connection is
 * re-established with jittered exponential back-off (unless disabled) that only a session which
 * stayed up for {@code healthyAfter} resets, so a server that keeps closing the connection sees
 * fewer and fewer attempts. A state the server rejects ({@code invalid_state}) is reported to
 * {@link ClientListener#onStateRejected} and never sent again. A reconnect asks the server to
 * resume the session with the cache as it is (unless disabled, see {@link Builder#resume}); a
 * server sharing the resume key of the one that issued the token, or that one itself, continues
 * the ring where it stopped ({@link ClientListener#onResume}). Otherwise the cache is emptied, the
 * ring restarts at the sequence number the server announces, and the listener's
 * {@link ClientListener#onCacheInvalidated} tells the application that cached blocks may be gone.
 * A connection on which nothing arrives for {@link Builder#idleTimeout idleTimeout} (a server or
 * network gone silent, with no close or reset to say so) is dropped and re-established the same
 * way; a quiet but live server keeps it open by answering the client's pings.
 *
 * @param <E> the event type of the client half of the predictor
 */
public final class KhameleonClient<E> implements AutoCloseable {
    static final int RUNS_PER_MESSAGE = Handshake.RUNS_PER_MESSAGE; // Builder#resume's javadoc quotes it

    private final LongSupplier millisClock;
    private final ExecutorService ownedUpcallExecutor;
    private final ScheduledExecutorService ownedScheduler;
    private final CacheManager cacheManager;
    private final PredictorManager<E> predictorManager;
    private final PredictionAccuracy accuracy;
    private final ClientState state;
    private final Reconnector reconnector;

    private KhameleonClient(ClientSettings s, ClientPredictor<E> predictor) {
        this.millisClock = s.millisClock;
        this.ownedUpcallExecutor = s.upcallExecutor == null ? ClientSettings.ownUpcallExecutor() : null;
        this.ownedScheduler = s.scheduler == null ? ClientSettings.ownScheduler() : null;
        Executor upcalls = s.upcallExecutor != null ? s.upcallExecutor : ownedUpcallExecutor;
        ScheduledExecutorService scheduler = s.scheduler != null ? s.scheduler : ownedScheduler;
        this.cacheManager = CacheManager.builder(new RingBufferCache(s.cacheBlocks))
                .utility(s.utility).upcallExecutor(upcalls).clock(s.nanoClock)
                .maxActiveRegistrations(s.maxActiveRegistrations).build();
        this.state = new ClientState(s.application, s.reconnect, s.nanoClock);
        this.predictorManager = PredictorManager.builder(predictor, state).clock(millisClock)
                .stateInterval(s.stateInterval).rateInterval(s.rateInterval)
                .missStateInterval(s.missStateInterval).scheduler(scheduler).build();
        this.accuracy = new PredictionAccuracy(s.predictionModel, predictorManager::lastSent, millisClock,
                cacheManager::recordPredictionAccuracy);
        Handshake handshake = new Handshake(s.application, s.cacheBlocks, Optional.ofNullable(s.token), s.resume,
                cacheManager.cache());
        this.reconnector = new Reconnector(s, new Connection.Parts(state, handshake, cacheManager, predictorManager,
                s.listener, upcalls, s.nanoClock, s.uri), scheduler);
    }

    /**
     * Sets this client's request scope (e.g. its brushes), for an application whose request ids
     * mean different content per session ({@code docs/spi-guide.md}, "Requests whose meaning
     * depends on the session"). Sent at once if connected, and after every reconnect; a newer
     * scope replaces one not yet sent. The server answers with the ids whose meaning changed
     * ({@link ClientListener#onRebind}); until then the cache still answers with the old meaning.
     * Any thread.
     *
     * @throws IllegalStateException if the connected server's welcome does not offer the
     *     {@code scope} feature
     */
    public void scope(JsonNode scope) {
        state.sendScope(Objects.requireNonNull(scope, "scope"));
    }

    /** Starts a builder; the predictor defaults to a {@link KalmanPredictor} over pointer events. */
    public static Builder<PointerEvent> builder() {
        return new Builder<>(KalmanPredictor.create());
    }

    /**
     * Opens the connection and starts streaming predictions. The future completes with the
     * server's welcome, or exceptionally if the first attempt fails (the client does not retry a
     * first connection; it does retry lost ones).
     *
     * @throws IllegalStateException if already connected or closed
     */
    public CompletableFuture<Welcome> connect() {
        return reconnector.connect(predictorManager::start);
    }

    /**
     * Feeds one interaction event to the client half of the predictor. Any thread. An event the
     * predictor rejects with a {@code RuntimeException} is logged at WARN and ignored.
     */
    public void onEvent(E event) {
        predictorManager.onEvent(event);
    }

    /**
     * Feeds a pointer position, for clients whose predictor takes {@link PointerEvent}s (the
     * default Kalman predictor); {@code timeMillis} is on the client's millisecond clock. Any
     * thread.
     *
     * <p>Nothing is thrown if this client's predictor takes another event type: the predictor
     * fails on the event (typically with a {@code ClassCastException}) and, like any event a
     * predictor rejects, it is logged at WARN and ignored. Use {@link #onEvent(Object)} with such
     * a predictor.
     */
    @SuppressWarnings("unchecked")
    public void onEvent(double x, double y, long timeMillis) {
        predictorManager.onEvent((E) new PointerEvent(x, y, timeMillis));
    }

    /**
     * Asks for request {@code requestId}: {@code upcall} receives the usable answer at once if
     * block 0 is cached, otherwise as soon as it arrives, then every longer prefix until the
     * response is complete. Preempts older requests that have had no answer yet. The request is
     * also reported to the server as an event (for its metrics, and, on a miss, so that the server
     * fetches its blocks ahead of speculative ones; it is never a fetch of its own). A miss
     * sends a fresh predictor state at once (see {@link Builder#missStateInterval}).
     *
     * @return whether it was a cache hit
     * @throws IllegalArgumentException if {@code requestId} is negative or, once connected, not
     *     below the server's request count
     */
    public boolean request(int requestId, Upcall upcall) {
        Outbox out = state.requestOutbox(requestId);
        accuracy.record(requestId);
        boolean hit = cacheManager.register(requestId, upcall);
        if (out != null) {
            out.control(ControlCodec.encode(new ControlMessage.RequestEvent(Math.max(0, millisClock.getAsLong()),
                    requestId, !hit)));
            if (!hit) {
                predictorManager.onMiss();
            }
        }
        return hit;
    }

    /** A snapshot of the client metrics. Any thread. */
    public ClientMetrics metrics() {
        return cacheManager.metrics();
    }

    /**
     * A read-only view of the block cache: which blocks are present. Any thread. Blocks are
     * written by the connection alone; an application asks for responses with {@link #request}.
     */
    public CacheView cache() {
        return cacheManager.cache().view();
    }

    /** The current session's welcome, if connected. */
    public Optional<Welcome> welcome() {
        return state.welcome();
    }

    /**
     * Says goodbye to the server, closes the connection (waiting at most about a second for the
     * close handshake), stops sending and shuts down the threads the client owns. Idempotent.
     */
    @Override
    public void close() {
        if (reconnector.close(predictorManager::close)) {
            if (ownedScheduler != null) {
                ownedScheduler.shutdownNow();
            }
            if (ownedUpcallExecutor != null) {
                ownedUpcallExecutor.shutdown();
            }
        }
    }

    /**
     * Configures a {@link KhameleonClient}. Every setter validates its value at once and names the
     * setting in its error message. Not thread-safe.
     *
     * @param <E> the predictor's event type
     */
    public static final class Builder<E> {
        private final ClientSettings settings = new ClientSettings();
        private ClientPredictor<E> predictor;

        private Builder(ClientPredictor<E> predictor) {
            this.predictor = predictor;
        }

        /**
         * The server's WebSocket address, {@code ws://host:port/path} or {@code wss://…}. Required.
         *
         * @throws IllegalArgumentException if the scheme is not ws or wss
         */
        public Builder<E> uri(URI uri) {
            settings.uri(uri);
            return this;
        }

        /**
         * The application's name, as mounted on the server. Required.
         *
         * @throws IllegalArgumentException if empty or longer than 256 characters
         */
        public Builder<E> application(String application) {
            settings.application(application);
            return this;
        }

        /**
         * {@code C}, the ring-buffer cache size in blocks (memory: {@code C × blockSize}). Default 1000.
         *
         * @throws IllegalArgumentException if {@code < 1}
         */
        public Builder<E> cacheBlocks(int cacheBlocks) {
            settings.cacheBlocks(cacheBlocks);
            return this;
        }

        /**
         * The client half of the predictor, matching the application's server half. Default a
         * {@link KalmanPredictor} with its defaults (for a {@code GaussianGridPredictor} server half).
         */
        @SuppressWarnings("unchecked")
        public <T> Builder<T> predictor(ClientPredictor<T> predictor) {
            Objects.requireNonNull(predictor, "predictor");
            Builder<T> self = (Builder<T>) this;
            self.predictor = predictor;
            return self;
        }

        /** An authentication token sent in the hello. Default none. */
        public Builder<E> token(String token) {
            settings.token(token);
            return this;
        }

        /** The utility of a prefix, reported in each {@link Response}. Default linear. */
        public Builder<E> utility(UtilityFunction utility) {
            settings.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /** The least time between two prediction states sent. Default 150 ms. */
        public Builder<E> stateInterval(Duration interval) {
            settings.stateInterval = Durations.atLeastOneMilli("stateInterval", interval);
            return this;
        }

        /**
         * The least time between the last prediction state and one sent at once because a request
         * missed the cache. Default 20 ms.
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> missStateInterval(Duration interval) {
            settings.missStateInterval = Durations.atLeastOneMilli("missStateInterval", interval);
            return this;
        }

        /** The interval of receive-rate reports. Default 500 ms. */
        public Builder<E> rateInterval(Duration interval) {
            settings.rateInterval = Durations.atLeastOneMilli("rateInterval", interval);
            return this;
        }

        /**
         * Whether a reconnect asks the server to resume the session with the cache as it is
         * (sending the last resume token and a manifest of the ring, at most {@code C} runs in
         * messages of at most {@value KhameleonClient#RUNS_PER_MESSAGE} runs). Default true; a
         * server that does not offer resume, or refuses it, starts a fresh session and the cache is
         * emptied as without it.
         */
        public Builder<E> resume(boolean resume) {
            settings.resume = resume;
            return this;
        }

        /** Whether a lost connection is re-established. Default true. */
        public Builder<E> reconnect(boolean reconnect) {
            settings.reconnect = reconnect;
            return this;
        }

        /**
         * The reconnect delays: attempt {@code k} after a reset waits a random time in
         * {@code [b/2, b]} with {@code b = min(max, initial · 2^k)}. Default 100 ms and 10 s.
         *
         * @throws IllegalArgumentException if {@code initial < 1 ms} or {@code max < initial}
         */
        public Builder<E> backoff(Duration initial, Duration max) {
            settings.backoff(initial, max);
            return this;
        }

        /**
         * How long a session must stay welcomed for its end to reset the back-off; shorter
         * sessions (refused, rejected for bad input, cut) make the next delay grow. Default 5 s.
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> healthyAfter(Duration healthyAfter) {
            settings.healthyAfter = Durations.atLeastOneMilli("healthyAfter", healthyAfter);
            return this;
        }

        /**
         * The random source of the back-off jitter; pass a seeded one for reproducible delays.
         * Default a {@link SplittableRandom} with a random seed, so clients do not reconnect in step.
         */
        public Builder<E> random(RandomGenerator random) {
            settings.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** How long one connection attempt may take. Default 10 s. */
        public Builder<E> connectTimeout(Duration timeout) {
            settings.connectTimeout = Durations.atLeastOneMilli("connectTimeout", timeout);
            return this;
        }

        /**
         * How long a connection may receive nothing at all (no block, no message, no pong) before
         * the client drops it and reconnects as after a lost connection (status 1006, with
         * resume): a server or network gone silent, which no close or reset announces. After a
         * third of it without anything, the client sends a WebSocket ping, which a live server
         * answers, so a quiet but healthy session is never dropped. A dead peer is noticed between
         * one and four thirds of this after it last sent anything. Default 30 s; {@link Duration#ZERO}
         * turns the check off.
         *
         * @throws IllegalArgumentException if neither zero nor in {@code [30 ms, 1 day]}
         */
        public Builder<E> idleTimeout(Duration timeout) {
            settings.idleTimeout(timeout);
            return this;
        }

        /**
         * How many answered requests keep receiving improving upcalls at once. Default 64.
         *
         * @throws IllegalArgumentException if {@code < 1}
         */
        public Builder<E> maxActiveRegistrations(int max) {
            settings.maxActiveRegistrations(max);
            return this;
        }

        /** Receives connection events. Default: none. */
        public Builder<E> listener(ClientListener listener) {
            settings.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * A local copy of the application's server half of the predictor, used only to measure
         * prediction accuracy (the mass the last state sent gave each request made). Default
         * none: the accuracy metric stays empty.
         */
        public Builder<E> predictionModel(ServerPredictor model) {
            settings.predictionModel = Objects.requireNonNull(model, "predictionModel");
            return this;
        }

        /** The JDK HTTP client to open WebSockets with. Default a new one. */
        public Builder<E> httpClient(HttpClient httpClient) {
            settings.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /**
         * Where upcalls and listener calls run. Default: one daemon thread owned by the client.
         * Must not be the WebSocket's own thread if upcalls may block.
         */
        public Builder<E> upcallExecutor(Executor executor) {
            settings.upcallExecutor = Objects.requireNonNull(executor, "upcallExecutor");
            return this;
        }

        /** The scheduler for states, rate reports and reconnects. Default: one daemon thread owned by the client. */
        public Builder<E> scheduler(ScheduledExecutorService scheduler) {
            settings.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * The millisecond clock of states, reports and request events; events passed to
         * {@link #onEvent} must be stamped on the same clock. Default {@link System#currentTimeMillis()}.
         */
        public Builder<E> clock(LongSupplier millisClock) {
            settings.millisClock = Objects.requireNonNull(millisClock, "clock");
            return this;
        }

        /**
         * The nanosecond clock of the latency metrics and of session lifetimes (for the
         * back-off). Default {@link System#nanoTime()}.
         */
        public Builder<E> nanoClock(LongSupplier nanoClock) {
            settings.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /**
         * Builds the client (not yet connected).
         *
         * @throws IllegalStateException if {@code uri} or {@code application} is missing
         */
        public KhameleonClient<E> build() {
            settings.checkComplete();
            return new KhameleonClient<>(settings, predictor);
        }
    }
}
