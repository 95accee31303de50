package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.ErrorMessage;
import dev.khameleon.core.protocol.ControlMessage.PredictionState;
import dev.khameleon.core.protocol.ControlMessage.RateReport;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ManifestRun;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.protocol.ResumeRequest;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);
    /** Largest control message accepted from the server, in characters. */
    private static final int MAX_TEXT_CHARS = 1 << 20;
    private static final int NORMAL_CLOSURE = 1000;
    private static final int ABNORMAL_CLOSURE = 1006;
    /**
     * Manifest runs per message: at most about 32 KiB of JSON, well inside a server's default
     * 64 KiB frame limit.
     */
    static final int RUNS_PER_MESSAGE = 1024;
    /** Most manifest messages one resume sends; a longer manifest is not sent (the client starts afresh). */
    static final int MAX_RESUME_MESSAGES = 64;

    private final URI uri;
    private final String application;
    private final int cacheBlocks;
    private final Optional<String> token;
    private final ClientListener listener;
    private final boolean reconnect;
    private final boolean resume;
    /** The newest resume token of the session, or null; guarded by {@link #lock}. */
    private String resumeToken;
    private final Duration connectTimeout;
    /** A connection that receives nothing this long is dropped; 0: never. */
    private final long idleTimeoutNanos;
    /** The idle watchdog's task, or null; guarded by {@link #lock}. */
    private ScheduledFuture<?> idleWatchdog;
    private final ServerPredictor predictionModel;
    private final HttpClient httpClient;
    private final LongSupplier millisClock;
    private final LongSupplier nanoClock;
    private final Executor upcallExecutor;
    private final ExecutorService ownedUpcallExecutor;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final CacheManager cacheManager;
    private final PredictorManager<E> predictorManager;

    private final Object lock = new Object();
    private Connection connection;
    private Welcome lastWelcome;
    private boolean everConnected;
    private boolean closed;
    private final ReconnectBackoff backoff;
    /** The last state the server rejected: never sent again (it would be rejected again). */
    private JsonNode rejectedState;
    private CompletableFuture<Welcome> firstWelcome;
    /** The application's request scope, re-sent after every welcome that offers it; null before the first. */
    private JsonNode scope;
    /** Guards the decoded copy of the last state, apart from {@link #lock} so decoding never holds up the network thread. */
    private final Object modelLock = new Object();
    private PredictionState modelState;
    private Distribution modelDistribution;

    private KhameleonClient(Builder<E> b) {
        this.uri = b.uri;
        this.application = b.application;
        this.cacheBlocks = b.cacheBlocks;
        this.token = Optional.ofNullable(b.token);
        this.listener = b.listener;
        this.reconnect = b.reconnect;
        this.resume = b.resume;
        this.backoff = new ReconnectBackoff(b.initialBackoff.toMillis(), b.maxBackoff.toMillis(),
                b.healthyAfter.toNanos(), b.random != null ? b.random : new SplittableRandom());
        this.connectTimeout = b.connectTimeout;
        this.idleTimeoutNanos = b.idleTimeout.toNanos();
        this.predictionModel = b.predictionModel;
        this.httpClient = b.httpClient != null ? b.httpClient : HttpClient.newHttpClient();
        this.millisClock = b.millisClock;
        this.nanoClock = b.nanoClock;
        if (b.upcallExecutor != null) {
            this.upcallExecutor = b.upcallExecutor;
            this.ownedUpcallExecutor = null;
        } else {
            this.ownedUpcallExecutor = Executors.newSingleThreadExecutor(daemon("khameleon-upcalls"));
            this.upcallExecutor = ownedUpcallExecutor;
        }
        this.ownsScheduler = b.scheduler == null;
        this.scheduler = ownsScheduler
                ? Executors.newSingleThreadScheduledExecutor(daemon("khameleon-client")) : b.scheduler;
        this.cacheManager = CacheManager.builder(new RingBufferCache(cacheBlocks))
                .utility(b.utility).upcallExecutor(upcallExecutor).clock(b.nanoClock)
                .maxActiveRegistrations(b.maxActiveRegistrations).build();
        this.predictorManager = PredictorManager.builder(b.predictor, new PredictorManager.Sink() {
            @Override
            public void sendState(PredictionState state) {
                KhameleonClient.this.sendState(state);
            }

            @Override
            public void sendRate(RateReport report) {
                Outbox out = currentOutbox();
                if (out != null) {
                    out.rate(ControlCodec.encode(report));
                }
            }
        }).clock(millisClock).stateInterval(b.stateInterval).rateInterval(b.rateInterval)
                .missStateInterval(b.missStateInterval).scheduler(scheduler).build();
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
        java.util.Objects.requireNonNull(scope, "scope");
        Outbox out = null;
        synchronized (lock) {
            if (connection != null && connection.welcomeSeen) {
                if (!lastWelcome.supports(Protocol.FEATURE_SCOPE)) {
                    throw new IllegalStateException("application " + application
                            + " does not bind requests per session: its welcome does not offer \"scope\"");
                }
                out = connection.outbox;
            }
            this.scope = scope;
        }
        if (out != null) {
            out.scope(ControlCodec.encode(new ControlMessage.Scope(scope)));
        }
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
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("client is closed");
            }
            if (firstWelcome != null) {
                throw new IllegalStateException("connect() was already called");
            }
            firstWelcome = new CompletableFuture<>();
            predictorManager.start();
            startIdleWatchdog();
            open();
            return firstWelcome;
        }
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
     * also reported to the server as an event (for its metrics; it is never a fetch). A miss
     * sends a fresh predictor state at once (see {@link Builder#missStateInterval}).
     *
     * @return whether it was a cache hit
     * @throws IllegalArgumentException if {@code requestId} is negative or, once connected, not
     *     below the server's request count
     */
    public boolean request(int requestId, Upcall upcall) {
        Outbox out;
        synchronized (lock) {
            if (lastWelcome != null && requestId >= lastWelcome.requestCount()) {
                throw new IllegalArgumentException("requestId " + requestId + " out of range [0, "
                        + lastWelcome.requestCount() + ")");
            }
            out = connection != null && connection.welcomed ? connection.outbox : null;
        }
        recordPredictionAccuracy(requestId);
        boolean hit = cacheManager.register(requestId, upcall);
        if (out != null) {
            out.control(ControlCodec.encode(new ControlMessage.RequestEvent(Math.max(0, millisClock.getAsLong()),
                    requestId)));
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
        synchronized (lock) {
            return connection != null && connection.welcomed ? Optional.of(lastWelcome) : Optional.empty();
        }
    }

    /**
     * Says goodbye to the server, closes the connection (waiting at most about a second for the
     * close handshake), stops sending and shuts down the threads the client owns. Idempotent.
     */
    @Override
    public void close() {
        Connection s;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            s = connection;
            connection = null;
            if (firstWelcome != null) {
                firstWelcome.completeExceptionally(new IllegalStateException("client closed"));
            }
        }
        predictorManager.close();
        synchronized (lock) {
            if (idleWatchdog != null) {
                idleWatchdog.cancel(false);
            }
        }
        if (s != null && s.outbox != null) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            s.outbox.finish(ControlCodec.encode(new ControlMessage.Bye()), () -> {
                s.webSocket.sendClose(NORMAL_CLOSURE, "bye").whenComplete((w, e) -> done.complete(null));
            });
            try {
                done.get(1, TimeUnit.SECONDS);
                s.closedByServer.get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                LOG.debug("close handshake did not finish in time: {}", e.toString());
            }
            s.webSocket.abort();
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        if (ownedUpcallExecutor != null) {
            ownedUpcallExecutor.shutdown();
        }
    }

    // ---- connection -------------------------------------------------------------------------

    /** Starts one connection attempt; caller holds the lock. */
    private void open() {
        Connection s = new Connection();
        connection = s;
        httpClient.newWebSocketBuilder().connectTimeout(connectTimeout).buildAsync(uri, s)
                .whenComplete((ws, error) -> {
                    if (error != null) {
                        s.lost(ABNORMAL_CLOSURE, "connection failed: " + error.getMessage(), error);
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
        Connection c;
        WebSocket ws;
        synchronized (lock) {
            c = closed ? null : connection;
            ws = c == null ? null : c.webSocket;
        }
        if (ws == null) {
            return; // no connection, or one still being opened: connectTimeout bounds that
        }
        long silent = nanoClock.getAsLong() - c.lastHeardNanos;
        if (silent >= idleTimeoutNanos) {
            long millis = TimeUnit.NANOSECONDS.toMillis(silent);
            LOG.warn("nothing received from {} for {} ms; dropping the connection", uri, millis);
            ws.abort();
            c.lost(ABNORMAL_CLOSURE, "idle timeout: nothing received for " + millis + " ms", null);
        } else if (silent >= idleTimeoutNanos / 3) {
            try {
                ws.sendPing(ByteBuffer.allocate(0)).exceptionally(e -> null);
            } catch (RuntimeException e) {
                LOG.debug("ping not sent: {}", e.toString()); // an earlier ping still outstanding
            }
        }
    }

    private Outbox currentOutbox() {
        synchronized (lock) {
            return connection != null && connection.welcomed ? connection.outbox : null;
        }
    }

    /** Sends {@code state} on the live connection unless it is the state the server rejected last. */
    private void sendState(PredictionState state) {
        Outbox out;
        synchronized (lock) {
            if (connection == null || !connection.welcomed) {
                return;
            }
            if (state.state().equals(rejectedState)) {
                LOG.debug("not re-sending the state the server rejected: {}", rejectedState);
                return;
            }
            connection.lastState = state.state();
            out = connection.outbox;
        }
        out.state(ControlCodec.encode(state));
    }

    /** Schedules the next attempt after a connection that had been welcomed for {@code welcomedForNanos} (or -1). */
    private void scheduleReconnect(long welcomedForNanos) {
        long delay;
        synchronized (lock) {
            if (closed) {
                return;
            }
            delay = backoff.nextDelayMillis(welcomedForNanos);
        }
        LOG.info("reconnecting to {} in {} ms", uri, delay);
        try {
            scheduler.schedule(() -> {
                synchronized (lock) {
                    if (!closed) {
                        open();
                    }
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.debug("reconnect not scheduled: {}", e.toString());
        }
    }

    private void tellListener(Consumer<ClientListener> call) {
        try {
            upcallExecutor.execute(() -> {
                try {
                    call.accept(listener);
                } catch (RuntimeException e) {
                    LOG.warn("client listener threw; contained", e);
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("listener call not delivered: {}", e.toString());
        }
    }

    private void recordPredictionAccuracy(int requestId) {
        if (predictionModel == null) {
            return;
        }
        Optional<PredictionState> sent = predictorManager.lastSent();
        if (sent.isEmpty()) {
            return;
        }
        try {
            Distribution d;
            synchronized (modelLock) {
                if (modelState == null || !modelState.equals(sent.get())) {
                    modelState = sent.get();
                    modelDistribution = predictionModel.decode(modelState.state());
                }
                d = modelDistribution;
            }
            if (requestId < d.requestCount()) {
                long elapsed = Math.max(0, millisClock.getAsLong() - sent.get().timeMillis());
                cacheManager.recordPredictionAccuracy(Math.min(1, d.probabilityAt(elapsed, requestId)));
            }
        } catch (RuntimeException e) {
            LOG.debug("prediction accuracy not recorded: {}", e.toString());
        }
    }

    /** One WebSocket connection attempt and what it received. Listener calls are sequential. */
    private final class Connection implements WebSocket.Listener {
        WebSocket webSocket;
        Outbox outbox;
        volatile boolean welcomed;
        /** Set with the welcome under the client's lock: from then on {@link #scope} sends on this connection. */
        private boolean welcomeSeen;
        /** When the welcome came, on the nano clock; guarded by the client's lock. */
        private long welcomedAtNanos;
        /** The last state sent on this connection; guarded by the client's lock. */
        private JsonNode lastState;
        private boolean ended;
        /** When this connection last received anything (frame, message, ping or pong), on the nano clock. */
        volatile long lastHeardNanos;
        private final StringBuilder text = new StringBuilder();
        private byte[] binary = new byte[0];
        private int binaryLength;
        private int maxFrameBytes;
        /** Whether this connection's hello asked to resume. */
        private boolean askedToResume;
        final CompletableFuture<Void> closedByServer = new CompletableFuture<>();

        @Override
        public void onOpen(WebSocket ws) {
            lastHeardNanos = nanoClock.getAsLong();
            synchronized (lock) {
                webSocket = ws;
                outbox = new Outbox(ws);
                if (connection != this) {
                    ws.abort();
                    return;
                }
            }
            String resumeWith;
            synchronized (lock) {
                resumeWith = resume ? resumeToken : null;
            }
            List<ControlMessage> hello = hello(resumeWith);
            askedToResume = hello.get(0) instanceof ControlMessage.Hello h && h.resume().isPresent();
            for (ControlMessage m : hello) {
                outbox.control(ControlCodec.encode(m));
            }
            ws.request(1);
        }

        /**
         * The hello, and the {@code resumePart} messages after it when resuming with
         * {@code resumeWith} (null: a fresh session).
         */
        private List<ControlMessage> hello(String resumeWith) {
            List<String> features = resume ? List.of(Protocol.FEATURE_RESUME) : List.of();
            if (resumeWith != null) {
                RingBufferCache ring = cacheManager.cache();
                long nextSeq = ring.nextSeq();
                List<ManifestRun> runs = ring.manifest();
                int messages = Math.max(1, (runs.size() + RUNS_PER_MESSAGE - 1) / RUNS_PER_MESSAGE);
                if (messages <= MAX_RESUME_MESSAGES) {
                    List<ControlMessage> out = new ArrayList<>(messages);
                    out.add(new ControlMessage.Hello(Protocol.VERSION, application, cacheBlocks, token, features,
                            Optional.of(new ResumeRequest(resumeWith, nextSeq,
                                    runs.subList(0, Math.min(runs.size(), RUNS_PER_MESSAGE)), messages - 1))));
                    for (int k = 1; k < messages; k++) {
                        out.add(new ControlMessage.ResumePart(runs.subList(k * RUNS_PER_MESSAGE,
                                Math.min(runs.size(), (k + 1) * RUNS_PER_MESSAGE))));
                    }
                    return out;
                }
                LOG.info("cache manifest of {} runs too long to resume; starting afresh", runs.size());
            }
            return List.of(new ControlMessage.Hello(Protocol.VERSION, application, cacheBlocks, token, features,
                    Optional.empty()));
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            lastHeardNanos = nanoClock.getAsLong();
            if (text.length() + data.length() > MAX_TEXT_CHARS) {
                protocolError(new ProtocolException(ErrorCode.INVALID_MESSAGE,
                        "control message longer than " + MAX_TEXT_CHARS + " characters"));
                return null;
            }
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                try {
                    onControl(ControlCodec.decodeFromServer(message));
                } catch (ProtocolException e) {
                    protocolError(e);
                    return null;
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            lastHeardNanos = nanoClock.getAsLong();
            if (!welcomed) {
                protocolError(new ProtocolException(ErrorCode.INVALID_MESSAGE, "block frame before welcome"));
                return null;
            }
            ByteBuffer frame;
            if (last && binaryLength == 0) {
                frame = data;
            } else {
                int n = data.remaining();
                if (binaryLength + n > maxFrameBytes) {
                    protocolError(new ProtocolException(ErrorCode.INVALID_MESSAGE, "block frame longer than "
                            + maxFrameBytes + " bytes"));
                    return null;
                }
                if (binary.length < binaryLength + n) {
                    binary = java.util.Arrays.copyOf(binary, Math.min(maxFrameBytes, Math.max(binaryLength + n,
                            binary.length * 2)));
                }
                data.get(binary, binaryLength, n);
                binaryLength += n;
                if (!last) {
                    ws.request(1);
                    return null;
                }
                frame = ByteBuffer.wrap(binary, 0, binaryLength);
                binaryLength = 0;
            }
            int bytes = frame.remaining();
            BlockFrame decoded;
            try {
                decoded = BlockFrame.decode(frame);
                if (decoded.block().size() != lastWelcome.blockSize()) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "block payload of "
                            + decoded.block().size() + " bytes, but the welcome announced " + lastWelcome.blockSize());
                }
                if (decoded.block().requestId() >= lastWelcome.requestCount()) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "requestId " + decoded.block().requestId()
                            + " out of range [0, " + lastWelcome.requestCount() + ")");
                }
            } catch (ProtocolException e) {
                protocolError(e);
                return null;
            }
            predictorManager.recordReceived(bytes, decoded.seq());
            cacheManager.onBlock(decoded.seq(), decoded.block(), decoded.generation());
            ws.request(1);
            return null;
        }

        private void onControl(ControlMessage message) {
            if (message instanceof Welcome w) {
                if (welcomed) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "a second welcome");
                }
                if (w.protocol() != Protocol.VERSION || w.cacheBlocks() != cacheBlocks
                        || !w.application().equals(application)) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "welcome does not match the hello: " + w);
                }
                boolean again;
                CompletableFuture<Welcome> first;
                JsonNode resendScope;
                synchronized (lock) {
                    if (connection != this) {
                        return;
                    }
                    resendScope = w.supports(Protocol.FEATURE_SCOPE) ? scope : null;
                    welcomeSeen = true;
                    again = everConnected;
                    everConnected = true;
                    lastWelcome = w;
                    welcomedAtNanos = nanoClock.getAsLong();
                    maxFrameBytes = w.blockSize() + 255;
                    first = firstWelcome;
                    resumeToken = w.resumeToken().orElse(null);
                }
                // Keep the cache only if the server continues exactly where the ring stopped.
                boolean resumed = askedToResume && w.isResumed() && w.firstSeq() == cacheManager.cache().nextSeq();
                if (!resumed) {
                    cacheManager.reset(w.firstSeq());
                }
                if (resendScope != null) {
                    outbox.scope(ControlCodec.encode(new ControlMessage.Scope(resendScope)));
                }
                predictorManager.resend();
                welcomed = true;
                predictorManager.tick();
                tellListener(l -> l.onConnected(w));
                if (askedToResume) {
                    String refusal = w.resumeRefused().orElse("");
                    LOG.info("session {} {}", w.session(), resumed ? "resumed at sequence number " + w.firstSeq()
                            : "started afresh, resume refused: " + (refusal.isEmpty() ? "not offered" : refusal));
                    tellListener(l -> l.onResume(resumed, w, refusal));
                }
                if (again && !resumed) {
                    tellListener(l -> l.onCacheInvalidated(w.firstSeq()));
                }
                first.complete(w);
            } else if (message instanceof ControlMessage.ResumeToken t) {
                synchronized (lock) {
                    if (connection == this && welcomed) {
                        resumeToken = t.token();
                    }
                }
            } else if (message instanceof ControlMessage.Rebind r) {
                if (!welcomed || !lastWelcome.supports(Protocol.FEATURE_SCOPE)) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "rebind from a session that does not offer"
                            + " \"scope\"");
                }
                int[] ids = r.requestIds();
                if (ids[ids.length - 1] >= lastWelcome.requestCount()) {
                    throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "rebind of request " + ids[ids.length - 1]
                            + ", out of range [0, " + lastWelcome.requestCount() + ")");
                }
                cacheManager.rebind(ids, r.generations());
                tellListener(l -> l.onRebind(ids));
            } else if (message instanceof ErrorMessage e) {
                LOG.warn("server error {}: {}", e.code(), e.message());
                tellListener(l -> l.onServerError(e));
                CompletableFuture<Welcome> first;
                JsonNode rejected = null;
                synchronized (lock) {
                    first = firstWelcome;
                    if (e.knownCode().orElse(null) == ErrorCode.INVALID_STATE && connection == this && lastState != null) {
                        rejected = lastState;
                        rejectedState = rejected;
                    }
                }
                if (rejected != null) {
                    JsonNode state = rejected;
                    tellListener(l -> l.onStateRejected(state, e.message()));
                }
                if (!welcomed) {
                    first.completeExceptionally(new IllegalStateException("server refused the session: "
                            + e.code() + ": " + e.message()));
                }
            }
        }

        private void protocolError(ProtocolException e) {
            LOG.warn("protocol error from server {}: {}", uri, e.getMessage());
            tellListener(l -> l.onProtocolError(e));
            WebSocket ws = webSocket;
            outbox.abandon();
            ws.sendClose(ErrorCode.INVALID_MESSAGE.closeStatus(), e.code().wireName())
                    .whenComplete((w, error) -> ws.abort());
            lost(ErrorCode.INVALID_MESSAGE.closeStatus(), e.getMessage(), e);
        }

        @Override
        public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
            // The JDK's WebSocket answers with a pong by itself.
            lastHeardNanos = nanoClock.getAsLong();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            lastHeardNanos = nanoClock.getAsLong();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closedByServer.complete(null);
            lost(statusCode, reason, null);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closedByServer.complete(null);
            lost(ABNORMAL_CLOSURE, String.valueOf(error.getMessage()), error);
        }

        /** This connection is over; reconnect if it was the live one and the client is open. */
        void lost(int status, String reason, Throwable error) {
            boolean retry;
            long welcomedFor;
            CompletableFuture<Welcome> first;
            synchronized (lock) {
                if (ended) {
                    return;
                }
                ended = true;
                if (outbox != null) {
                    outbox.abandon();
                }
                if (connection != this) {
                    return;
                }
                connection = null;
                first = firstWelcome;
                retry = reconnect && !closed && everConnected;
                if (askedToResume && !welcomed) {
                    // The server may not take this resume (e.g. a frame limit below the manifest's size):
                    // the next attempt starts afresh, so a resume never becomes a reconnect loop.
                    resumeToken = null;
                }
                welcomedFor = welcomed ? nanoClock.getAsLong() - welcomedAtNanos : -1;
            }
            if (!welcomed && !first.isDone()) {
                first.completeExceptionally(error != null ? error
                        : new IllegalStateException("connection closed before welcome: " + status + " " + reason));
            }
            LOG.info("connection to {} ended: {} {}{}", uri, status, reason, retry ? "; reconnecting" : "");
            tellListener(l -> l.onDisconnected(status, reason, retry));
            if (retry) {
                scheduleReconnect(welcomedFor);
            }
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Configures a {@link KhameleonClient}. Every setter validates its value at once and names the
     * setting in its error message. Not thread-safe.
     *
     * @param <E> the predictor's event type
     */
    public static final class Builder<E> {
        private URI uri;
        private String application;
        private int cacheBlocks = 1000;
        private ClientPredictor<E> predictor;
        private String token;
        private UtilityFunction utility = UtilityFunction.linear();
        private Duration stateInterval = Duration.ofMillis(150);
        private Duration missStateInterval = Duration.ofMillis(20);
        private Duration rateInterval = Duration.ofMillis(500);
        private boolean reconnect = true;
        private boolean resume = true;
        private Duration initialBackoff = Duration.ofMillis(100);
        private Duration maxBackoff = Duration.ofSeconds(10);
        private Duration healthyAfter = Duration.ofSeconds(5);
        private RandomGenerator random;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private int maxActiveRegistrations = 64;
        private ClientListener listener = new ClientListener() { };
        private ServerPredictor predictionModel;
        private HttpClient httpClient;
        private Executor upcallExecutor;
        private ScheduledExecutorService scheduler;
        private LongSupplier millisClock = System::currentTimeMillis;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder(ClientPredictor<E> predictor) {
            this.predictor = predictor;
        }

        /**
         * The server's WebSocket address, {@code ws://host:port/path} or {@code wss://…}. Required.
         *
         * @throws IllegalArgumentException if the scheme is not ws or wss
         */
        public Builder<E> uri(URI uri) {
            Objects.requireNonNull(uri, "uri");
            if (!"ws".equalsIgnoreCase(uri.getScheme()) && !"wss".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("uri must be ws:// or wss://, was " + uri);
            }
            this.uri = uri;
            return this;
        }

        /**
         * The application's name, as mounted on the server. Required.
         *
         * @throws IllegalArgumentException if empty or longer than 256 characters
         */
        public Builder<E> application(String application) {
            Objects.requireNonNull(application, "application");
            if (application.isEmpty() || application.length() > Protocol.MAX_APPLICATION_LENGTH) {
                throw new IllegalArgumentException("application must have 1.." + Protocol.MAX_APPLICATION_LENGTH
                        + " characters, was \"" + application + "\"");
            }
            this.application = application;
            return this;
        }

        /**
         * {@code C}, the ring-buffer cache size in blocks (memory: {@code C × blockSize}). Default 1000.
         *
         * @throws IllegalArgumentException if {@code < 1}
         */
        public Builder<E> cacheBlocks(int cacheBlocks) {
            if (cacheBlocks < 1) {
                throw new IllegalArgumentException("cacheBlocks must be >= 1, was " + cacheBlocks);
            }
            this.cacheBlocks = cacheBlocks;
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
            Objects.requireNonNull(token, "token");
            if (token.length() > Protocol.MAX_TOKEN_LENGTH) {
                throw new IllegalArgumentException("token must have at most " + Protocol.MAX_TOKEN_LENGTH
                        + " characters, had " + token.length());
            }
            this.token = token;
            return this;
        }

        /** The utility of a prefix, reported in each {@link Response}. Default linear. */
        public Builder<E> utility(UtilityFunction utility) {
            this.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /** The least time between two prediction states sent. Default 150 ms. */
        public Builder<E> stateInterval(Duration interval) {
            this.stateInterval = Durations.atLeastOneMilli("stateInterval", interval);
            return this;
        }

        /**
         * The least time between the last prediction state and one sent at once because a request
         * missed the cache. Default 20 ms.
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> missStateInterval(Duration interval) {
            this.missStateInterval = Durations.atLeastOneMilli("missStateInterval", interval);
            return this;
        }

        /** The interval of receive-rate reports. Default 500 ms. */
        public Builder<E> rateInterval(Duration interval) {
            this.rateInterval = Durations.atLeastOneMilli("rateInterval", interval);
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
            this.resume = resume;
            return this;
        }

        /** Whether a lost connection is re-established. Default true. */
        public Builder<E> reconnect(boolean reconnect) {
            this.reconnect = reconnect;
            return this;
        }

        /**
         * The reconnect delays: attempt {@code k} after a reset waits a random time in
         * {@code [b/2, b]} with {@code b = min(max, initial · 2^k)}. Default 100 ms and 10 s.
         *
         * @throws IllegalArgumentException if {@code initial < 1 ms} or {@code max < initial}
         */
        public Builder<E> backoff(Duration initial, Duration max) {
            Durations.atLeastOneMilli("backoff initial", initial);
            Objects.requireNonNull(max, "backoff max");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("backoff max must be >= initial " + initial + ", was " + max);
            }
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /**
         * How long a session must stay welcomed for its end to reset the back-off; shorter
         * sessions (refused, rejected for bad input, cut) make the next delay grow. Default 5 s.
         *
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder<E> healthyAfter(Duration healthyAfter) {
            this.healthyAfter = Durations.atLeastOneMilli("healthyAfter", healthyAfter);
            return this;
        }

        /**
         * The random source of the back-off jitter; pass a seeded one for reproducible delays.
         * Default a {@link SplittableRandom} with a random seed, so clients do not reconnect in step.
         */
        public Builder<E> random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** How long one connection attempt may take. Default 10 s. */
        public Builder<E> connectTimeout(Duration timeout) {
            this.connectTimeout = Durations.atLeastOneMilli("connectTimeout", timeout);
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
            Objects.requireNonNull(timeout, "idleTimeout");
            if (!timeout.isZero() && (timeout.compareTo(Duration.ofMillis(30)) < 0
                    || timeout.compareTo(Duration.ofDays(1)) > 0)) {
                throw new IllegalArgumentException("idleTimeout must be 0 (off) or in [30 ms, 1 day], was " + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * How many answered requests keep receiving improving upcalls at once. Default 64.
         *
         * @throws IllegalArgumentException if {@code < 1}
         */
        public Builder<E> maxActiveRegistrations(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxActiveRegistrations must be >= 1, was " + max);
            }
            this.maxActiveRegistrations = max;
            return this;
        }

        /** Receives connection events. Default: none. */
        public Builder<E> listener(ClientListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * A local copy of the application's server half of the predictor, used only to measure
         * prediction accuracy (the mass the last state sent gave each request made). Default
         * none: the accuracy metric stays empty.
         */
        public Builder<E> predictionModel(ServerPredictor model) {
            this.predictionModel = Objects.requireNonNull(model, "predictionModel");
            return this;
        }

        /** The JDK HTTP client to open WebSockets with. Default a new one. */
        public Builder<E> httpClient(HttpClient httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /**
         * Where upcalls and listener calls run. Default: one daemon thread owned by the client.
         * Must not be the WebSocket's own thread if upcalls may block.
         */
        public Builder<E> upcallExecutor(Executor executor) {
            this.upcallExecutor = Objects.requireNonNull(executor, "upcallExecutor");
            return this;
        }

        /** The scheduler for states, rate reports and reconnects. Default: one daemon thread owned by the client. */
        public Builder<E> scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * The millisecond clock of states, reports and request events; events passed to
         * {@link #onEvent} must be stamped on the same clock. Default {@link System#currentTimeMillis()}.
         */
        public Builder<E> clock(LongSupplier millisClock) {
            this.millisClock = Objects.requireNonNull(millisClock, "clock");
            return this;
        }

        /**
         * The nanosecond clock of the latency metrics and of session lifetimes (for the
         * back-off). Default {@link System#nanoTime()}.
         */
        public Builder<E> nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /**
         * Builds the client (not yet connected).
         *
         * @throws IllegalStateException if {@code uri} or {@code application} is missing
         */
        public KhameleonClient<E> build() {
            if (uri == null) {
                throw new IllegalStateException("uri is required");
            }
            if (application == null) {
                throw new IllegalStateException("application is required");
            }
            return new KhameleonClient<>(this);
        }
    }
}
