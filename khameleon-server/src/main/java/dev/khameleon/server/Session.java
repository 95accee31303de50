package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.server.spi.SchedulerContext;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One client's session: protocol state, the plan of upcoming slots, block fetches, the paced
 * sender and the hand-off to the scheduler.
 *
 * <p><b>Threading.</b> Everything except {@link #runJob} is confined to the channel's event loop.
 * The scheduler runs in {@link #runJob} on the shared scheduler executor, one job per session at a
 * time: the event loop decides each job (what to re-plan from, with which state) and applies its
 * result, so the plan, the sequence numbers and the ring model are only ever touched by the event
 * loop. Fetches start on the shared fetch executor and complete back on the event loop. Counters
 * read by {@link #metrics()} are volatile with the event loop as their only writer.
 *
 * <p><b>Ring model.</b> {@code nextSeq} is the number of block frames written: the next frame
 * carries it, and the client puts it in slot {@code nextSeq mod C}. The scheduler plans slots by the
 * same numbers. A planned block whose fetch fails is never written: the plan from that slot on is
 * dropped and re-planned from the same sequence number, so the scheduler's model of the ring stays
 * equal to what was actually written. No job plans past {@code nextSeq + C} ({@link #roomFrom}),
 * so every re-plan the session asks for is one the scheduler can still do.
 */
final class Session {
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_FAILURE_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_IDLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int MAX_REPLAN_MARGIN = 16;
    private static final long BACKEND_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final double EWMA = 0.2;

    private enum Phase { AWAITING_HELLO, ACTIVE, CLOSING, CLOSED }

    private enum SlotState { NEW, FETCHING, READY, FAILED, DROPPED }

    /** One planned slot: block {@code blockIndex} of {@code requestId} goes out with sequence number {@code seq}. */
    private static final class Slot {
        final long seq;
        final int requestId;
        final int blockIndex;
        /** What the block answers: the content key and binding generation of its request when planned. */
        long contentKey;
        int generation;
        SlotState state = SlotState.NEW;
        Block block;
        ScheduledFuture<?> timeout;

        Slot(long seq, int requestId, int blockIndex) {
            this.seq = seq;
            this.requestId = requestId;
            this.blockIndex = blockIndex;
            this.contentKey = requestId;
        }
    }

    /**
     * What the scheduler task is to do: decode {@code state} if present, re-plan from
     * {@code replanFrom} if {@code >= 0} (with the decoded distribution, else {@code current}),
     * then plan up to {@code maxBlocks} slots. A {@code scope}, if present, is applied at
     * {@code replanFrom}.
     */
    private record Job(JsonNode state, Distribution current, long replanFrom, double slotMillis, int maxBlocks,
                       long stateArrivalNanos, long stateArrivalSeq, JsonNode scope) {
    }

    /**
     * What a job did; {@code error} non-null if the session must close. For an application with a
     * request scope, {@code rebind} are the encoded {@code rebind} messages for the ids the job's
     * scope rebound (empty if none) and {@code annotation} what each slot of the chunk answers;
     * both null otherwise.
     */
    private record Result(Job job, Distribution installed, long replanFrom, ScheduleChunk chunk, long nanos,
                          ErrorCode error, String message, List<String> rebind,
                          BindingTable.Annotation annotation) {
    }

    private final String id;
    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final Application application;
    private final BlockSource source;
    /** The source promised completed stages: fetch on the event loop (see {@link #fetchOnLoop}). */
    private final boolean fetchInline;
    private final ServerConfig config;
    private final Channel channel;
    private final EventLoop loop;
    private final int blockSize;
    private final int frameBytes;
    /** Null for an application whose request ids mean the same for every session. */
    private final RequestScope scope;
    private final BandwidthEstimator bandwidth;
    private final Pacer pacer;

    // Confined to the scheduler task (one at a time, handed over through the executor and the loop).
    private Scheduler scheduler;
    private BindingTable bindings;

    // Confined to the event loop.
    private Phase phase = Phase.AWAITING_HELLO;
    private boolean registered;
    private final ArrayDeque<Slot> planned = new ArrayDeque<>();
    private long plannedEnd;
    /**
     * The scheduler's {@code nextSeq()} after the last job: ahead of {@link #plannedEnd} when a
     * chunk was discarded because the plan was cut meanwhile.
     */
    private long schedulerSeq;
    private long cut = Long.MAX_VALUE;
    private boolean taskRunning;
    /** The job of {@link #taskRunning}, queued or running. */
    private SchedulerTask queuedTask;
    /** The job {@link #queuedTask} runs, so that a withdrawn job's state or scope is not lost. */
    private Job queuedJob;
    /** The queue turn of a withdrawn re-plan, for the job that replaces it; -1 if none. */
    private long inheritedOrder = -1;
    private JsonNode pendingState;
    private JsonNode pendingScope;
    private long pendingStateArrivalNanos;
    private long pendingStateArrivalSeq;
    private long pendingFrom;
    private long runningFrom = -1;
    private boolean needInitialPlan;
    private Distribution distribution;
    private long lastStateTime = -1;
    private long failureFrom = -1;
    private long failureRetryAtNanos;
    private long failureBackoffNanos = MIN_BACKOFF_NANOS;
    private long idleRetryAtNanos;
    private long idleBackoffNanos = MIN_BACKOFF_NANOS;
    private boolean failureLogged;
    private double ewmaTurnaroundNanos;
    private long jobSubmittedNanos;
    private boolean reflectReady;
    private long reflectFromSeq = -1;
    private long reflectArrivalNanos;
    private ScheduledFuture<?> pumpTimer;
    private ScheduledFuture<?> wakeTimer;
    private long wakeAtNanos;
    private ScheduledFuture<?> stallTimer;
    private ScheduledFuture<?> helloTimer;
    private long lastStateJobNanos;
    private boolean stateJobStarted;

    // Written by the event loop only; volatile for metrics().
    private volatile int cacheBlocks;
    private volatile long nextSeq;
    private volatile long bytesPushed;
    private volatile long blocksSkipped;
    private volatile long replans;
    private volatile long chunksPlanned;
    private volatile long schedulingNanosTotal;
    private volatile long schedulingNanosMax;
    private volatile long statesReceived;
    private volatile long requestsReceived;
    private volatile long queuedBytes;
    private volatile long maxQueuedBytes;
    private volatile long replanDelayNanosTotal;
    private volatile long replanDelayCount;
    private volatile long maxReplanLagBlocks;
    private volatile double bandwidthEstimate;
    private volatile double pacingRate;

    Session(ServerRuntime server, ServerRuntime.App app, Channel channel) {
        this.id = server.newSessionId();
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.source = application.blockSource();
        this.config = server.config;
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.blockSize = source.blockSize();
        this.fetchInline = fetchesImmediately(source);
        this.scope = application.requestScope().orElse(null);
        this.frameBytes = (scope == null ? BlockFrame.HEADER_LENGTH : BlockFrame.GENERATION_HEADER_LENGTH) + blockSize;
        this.bandwidth = new BandwidthEstimator(config.initialBytesPerSecond(), config.maxBytesPerSecond(),
                config.fixedBytesPerSecond());
        this.bandwidthEstimate = bandwidth.bytesPerSecond();
        this.pacer = new Pacer(paceFor(bandwidthEstimate), 2 * frameBytes, now());
        this.pacingRate = pacer.rate();
    }

    String id() {
        return id;
    }

    /** The sender's pace for a bandwidth estimate: estimate × gain, but never above the per-session cap. */
    private double paceFor(double estimate) {
        return Math.min(estimate * config.pacingGain(), config.maxBytesPerSecond());
    }

    private long now() {
        return server.nanoTime();
    }

    // ---------------------------------------------------------------- life cycle (event loop)

    /** The WebSocket handshake is done: the hello must come within the hello timeout. */
    void onHandshakeComplete() {
        if (phase != Phase.AWAITING_HELLO) {
            return;
        }
        helloTimer = loop.schedule(() -> {
            if (phase == Phase.AWAITING_HELLO) {
                closeWithError(ErrorCode.MISSING_HELLO, "no hello within " + config.helloTimeoutMillis() + " ms");
            }
        }, config.helloTimeoutMillis(), TimeUnit.MILLISECONDS);
        log.debug("session {}: WebSocket open from {} on {}", id, channel.remoteAddress(), application.path());
    }

    void onText(String text) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        ControlMessage m;
        try {
            m = ControlCodec.decodeFromClient(text);
        } catch (ProtocolException e) {
            closeWithError(e.code(), e.getMessage());
            return;
        }
        if (phase == Phase.AWAITING_HELLO) {
            if (m instanceof ControlMessage.Hello h) {
                onHello(h);
            } else {
                closeWithError(ErrorCode.MISSING_HELLO, "the first message must be hello, was " + m.type());
            }
            return;
        }
        if (m instanceof ControlMessage.Hello) {
            closeWithError(ErrorCode.DUPLICATE_HELLO, "hello was already received");
        } else if (m instanceof ControlMessage.PredictionState s) {
            onState(s.timeMillis(), s.state());
        } else if (m instanceof ControlMessage.RateReport r) {
            onRate(r.bytesPerSecond());
        } else if (m instanceof ControlMessage.RequestEvent r) {
            onRequest(r);
        } else if (m instanceof ControlMessage.Scope sc) {
            onScope(sc.scope());
        } else if (m instanceof ControlMessage.Bye) {
            log.debug("session {}: client said bye", id);
            closeNormally();
        }
    }

    void onBinary() {
        closeWithError(ErrorCode.UNSUPPORTED_DATA, "clients must not send binary frames");
    }

    private void onHello(ControlMessage.Hello h) {
        if (h.protocol() != Protocol.VERSION) {
            closeWithError(ErrorCode.UNSUPPORTED_VERSION, "this server speaks protocol " + Protocol.VERSION
                    + ", the client asked for " + h.protocol());
            return;
        }
        if (!h.application().equals(application.name())) {
            closeWithError(ErrorCode.UNKNOWN_APPLICATION, "application \"" + h.application()
                    + "\" is not served at " + application.path() + " (it serves \"" + application.name() + "\")");
            return;
        }
        if (h.cacheBlocks() > config.maxCacheBlocks()) {
            closeWithError(ErrorCode.LIMIT_EXCEEDED, "cacheBlocks " + h.cacheBlocks() + " exceeds the server's limit "
                    + config.maxCacheBlocks());
            return;
        }
        boolean accepted;
        try {
            accepted = application.authenticator().accept(h.token());
        } catch (Throwable e) { // user code: an Error must not escape onto the event loop either
            log.debug("session {}: authenticator of {} threw", id, application.name(), e);
            closeWithError(ErrorCode.INTERNAL_ERROR, "the authenticator failed: " + e);
            return;
        }
        if (!accepted) {
            closeWithError(ErrorCode.UNAUTHORIZED, "the token was refused");
            return;
        }
        switch (server.tryRegister(this, h.cacheBlocks())) {
            case SESSION_CAP -> {
                closeWithError(ErrorCode.TOO_MANY_SESSIONS, "the server is at its limit of " + config.maxSessions()
                        + " sessions; try again later");
                return;
            }
            case CACHE_BUDGET -> {
                closeWithError(ErrorCode.TOO_MANY_SESSIONS, "the server's budget of " + config.maxTotalCacheBlocks()
                        + " cache blocks across sessions cannot take " + h.cacheBlocks() + " more; try again later"
                        + " or with a smaller cache");
                return;
            }
            case DRAINING -> {
                closeWithError(ErrorCode.SHUTDOWN, "the server is draining; connect again to reach another one");
                return;
            }
            case REGISTERED -> {
            }
        }
        registered = true;
        cancel(helloTimer);
        AddressLimits.Ticket ticket = channel.attr(AddressLimits.TICKET).get();
        if (ticket != null) {
            ticket.handshakeDone();
        }
        cacheBlocks = h.cacheBlocks();
        phase = Phase.ACTIVE;
        ControlMessage.Welcome welcome = new ControlMessage.Welcome(Protocol.VERSION, id, application.name(),
                blockSize, source.requestCount(), cacheBlocks, longList(application.horizonsMillis()), 0,
                application.blockCounts(), scope == null ? List.of() : List.of(Protocol.FEATURE_SCOPE));
        channel.writeAndFlush(new TextWebSocketFrame(ControlCodec.encode(welcome)));
        log.info("session {}: {} opened by {}, cache {} blocks", id, application.name(), channel.remoteAddress(),
                cacheBlocks);
        application.initialDistribution().ifPresent(d -> {
            distribution = d;
            needInitialPlan = true;
        });
        maybeSchedule();
    }

    private static List<Long> longList(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    private void onState(long timeMillis, JsonNode state) {
        if (timeMillis < lastStateTime) {
            log.debug("session {}: ignoring a state from {} ms, older than the last one ({} ms)", id, timeMillis,
                    lastStateTime);
            return;
        }
        lastStateTime = timeMillis;
        statesReceived++;
        cutForReplan();
        pendingState = state;
        replaceQueuedJob();
        maybeSchedule();
    }

    /**
     * A new state or scope: unless a re-plan is already pending, stop the old plan a few blocks
     * from here at once, even if a job is running, so that it shows within those few blocks
     * whatever the scheduler is doing meanwhile.
     */
    private void cutForReplan() {
        if (pendingState == null && pendingScope == null) {
            pendingFrom = Math.min(nextSeq + replanMargin(), plannedEnd);
            pendingStateArrivalNanos = now();
            pendingStateArrivalSeq = nextSeq;
            dropFrom(pendingFrom);
            recomputeCut();
        }
    }

    /**
     * If this session's job is queued but has not started, withdraws it so that the job for the
     * newest state or scope takes its place: it re-plans from no later than the withdrawn job
     * would have (its cut is at most that one's), and a withdrawn re-plan's turn in the queue
     * passes to it. Whatever the withdrawn job carried and nothing newer replaces (a scope when a
     * state arrives, or the reverse) goes back to pending, so no scope or state is lost.
     */
    private void replaceQueuedJob() {
        if (!taskRunning || queuedTask == null || !server.withdraw(queuedTask)) {
            return;
        }
        taskRunning = false;
        runningFrom = -1;
        if (queuedTask.replan()) {
            inheritedOrder = queuedTask.order();
        }
        queuedTask = null;
        Job withdrawn = queuedJob;
        queuedJob = null;
        if (withdrawn != null) {
            if (pendingState == null && withdrawn.state() != null) {
                pendingState = withdrawn.state();
            }
            if (pendingScope == null && withdrawn.scope() != null) {
                pendingScope = withdrawn.scope();
            }
        }
        recomputeCut();
    }

    /**
     * The client's scope changed. It is applied like a state (merged with any pending one, at most
     * one re-plan per state interval, the newest scope wins), at the slot the re-plan starts from.
     */
    private void onScope(JsonNode newScope) {
        if (scope == null) {
            closeWithError(ErrorCode.UNKNOWN_TYPE, "application " + application.name()
                    + " does not bind requests per session: its welcome does not offer \"" + Protocol.FEATURE_SCOPE
                    + "\"");
            return;
        }
        cutForReplan();
        pendingScope = newScope;
        replaceQueuedJob();
        maybeSchedule();
    }

    private void onRate(double bytesPerSecond) {
        bandwidth.report(bytesPerSecond);
        double estimate = bandwidth.bytesPerSecond();
        pacer.setRate(paceFor(estimate), now());
        pacingRate = pacer.rate();
        bandwidthEstimate = estimate;
    }

    private void onRequest(ControlMessage.RequestEvent r) {
        if (r.requestId() >= source.requestCount()) {
            closeWithError(ErrorCode.INVALID_MESSAGE, "request " + r.requestId() + " out of range [0, "
                    + source.requestCount() + ")");
            return;
        }
        requestsReceived++;
        if (application.predictFromRequests()) {
            onState(r.timeMillis(), ControlCodec.mapper().createObjectNode().put("request", r.requestId()));
        }
    }

    /**
     * Writable again: resume sending. Unwritable: whatever the phase (before the hello too, when
     * only a welcome or pongs are queued), a client that does not read for the stall timeout is
     * closed.
     */
    void onWritabilityChanged() {
        if (channel.isWritable()) {
            cancel(stallTimer);
            stallTimer = null;
            pump();
        } else if (phase == Phase.AWAITING_HELLO || phase == Phase.ACTIVE) {
            armStallTimer();
        }
    }

    void onIdle() {
        closeWithError(ErrorCode.IDLE_TIMEOUT, "no message from the client for " + config.readIdleTimeoutMillis()
                + " ms");
    }

    /** Asks the session, from any thread, to close with {@code shutdown}. */
    void requestShutdown() {
        requestShutdown("the server is shutting down");
    }

    /** Closes this session with {@code shutdown} and {@code reason}, from any thread. */
    void requestShutdown(String reason) {
        try {
            loop.execute(() -> closeWithError(ErrorCode.SHUTDOWN, reason));
        } catch (RejectedExecutionException e) {
            channel.close();
        }
    }

    /** Completes when the connection is closed. */
    io.netty.util.concurrent.Future<Void> closeFuture() {
        return channel.closeFuture();
    }

    /** The WebSocket layer closed the connection for a protocol violation (e.g. an oversized frame). */
    void onProtocolViolation(ErrorCode code, String message) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        server.refusals.log(Level.WARN, "session " + id + " from " + channel.remoteAddress(), code.wireName(),
                "closed by the WebSocket layer (" + code.closeStatus() + "): " + message);
        server.countError(code);
        stop(Phase.CLOSING);
    }

    /** Logs and closes the session with {@code code}: an error message, then a close frame. */
    void closeWithError(ErrorCode code, String message) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        Level level = code == ErrorCode.SHUTDOWN || code == ErrorCode.IDLE_TIMEOUT ? Level.INFO : Level.WARN;
        server.refusals.log(level, "session " + id + " from " + channel.remoteAddress(), code.wireName(),
                "closing (" + code.closeStatus() + "): " + message);
        server.countError(code);
        stop(Phase.CLOSING);
        if (channel.isActive()) {
            channel.write(new TextWebSocketFrame(ControlCodec.encode(ControlMessage.ErrorMessage.of(code, message))));
            channel.writeAndFlush(new CloseWebSocketFrame(code.closeStatus(), code.wireName()))
                    .addListener(ChannelFutureListener.CLOSE);
            // A client that does not read would keep the close frame queued: do not wait for it.
            loop.schedule(() -> {
                channel.close();
            }, config.closeTimeoutMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void closeNormally() {
        stop(Phase.CLOSING);
        if (channel.isActive()) {
            channel.writeAndFlush(new CloseWebSocketFrame(1000, "bye")).addListener(ChannelFutureListener.CLOSE);
        }
    }

    void onInactive() {
        boolean wasOpen = phase == Phase.ACTIVE || phase == Phase.CLOSING;
        stop(Phase.CLOSED);
        if (registered) {
            server.unregister(this, cacheBlocks);
            registered = false;
        }
        if (wasOpen) {
            log.info("session {}: closed after {} blocks ({} bytes), {} skipped, {} re-plans", id, nextSeq,
                    bytesPushed, blocksSkipped, replans);
        }
    }

    private void stop(Phase next) {
        phase = next;
        cancel(pumpTimer);
        cancel(wakeTimer);
        cancel(stallTimer);
        cancel(helloTimer);
        pumpTimer = null;
        wakeTimer = null;
        stallTimer = null;
        dropFrom(Long.MIN_VALUE);
        pendingState = null;
        pendingScope = null;
        if (queuedTask != null && server.withdraw(queuedTask)) {
            // A closed session's job that has not started would only cost scheduler time.
            queuedTask = null;
            queuedJob = null;
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    // ---------------------------------------------------------------- scheduling (event loop side)

    private double slotMillis() {
        return frameBytes / bandwidth.bytesPerSecond() * 1e3;
    }

    /**
     * Slots the sender will still write from the old plan while a re-plan is computed: enough to
     * cover a job's recent turnaround, so the sender rarely waits, and few, so that a new
     * distribution shows within a few blocks.
     */
    private int replanMargin() {
        double slotNanos = frameBytes / pacer.rate() * 1e9;
        // The slots a job's turnaround (executor queue, job, hand-back) covers keep the link busy while
        // it runs; they cost the state no delay, as they go out on credit once the new plan is ready.
        long m = (long) Math.ceil(ewmaTurnaroundNanos / slotNanos);
        return (int) Math.max(0, Math.min(MAX_REPLAN_MARGIN, m));
    }

    /** Starts the next scheduler job if none is running and one is due. */
    private void maybeSchedule() {
        if (phase != Phase.ACTIVE || taskRunning) {
            return;
        }
        long t = now();
        Job job;
        int chunk = application.chunkSize();
        if (pendingState != null || pendingScope != null) {
            if (pendingScope != null && !channel.isWritable()) {
                // Rebind messages are written whatever the water marks: apply a scope only while the
                // client reads, so at most one scope's rebinds sit in the outbound buffer. Writability
                // coming back pumps, which asks again.
                return;
            }
            long earliest = lastStateJobNanos + TimeUnit.MILLISECONDS.toNanos(config.stateIntervalMillis());
            // A job that replaces a withdrawn re-plan adds no re-plan, so the interval does not hold it back.
            if (stateJobStarted && t < earliest && inheritedOrder < 0) {
                // States come faster than the interval: the newest one waits and replaces any before it.
                wakeAt(earliest);
                return;
            }
            stateJobStarted = true;
            lastStateJobNanos = t;
            long from = Math.min(pendingFrom, plannedEnd);
            dropFrom(from);
            if (failureFrom >= from) {
                failureFrom = -1;
            }
            needInitialPlan = false;
            job = new Job(pendingState, distribution, from, slotMillis(), roomFrom(from), pendingStateArrivalNanos,
                    pendingStateArrivalSeq, pendingScope);
            pendingState = null;
            pendingScope = null;
        } else if (needInitialPlan) {
            needInitialPlan = false;
            job = new Job(null, distribution, nextSeq, slotMillis(), roomFrom(nextSeq), -1, -1, null);
        } else if (failureFrom >= 0) {
            if (t < failureRetryAtNanos) {
                wakeAt(failureRetryAtNanos);
                return;
            }
            job = new Job(null, distribution, failureFrom, slotMillis(), roomFrom(failureFrom), -1, -1, null);
            failureFrom = -1;
        } else if (distribution != null && plannedEnd - nextSeq < chunk
                && roomFrom(schedulerSeq) >= Math.max(1, Math.min(chunk, cacheBlocks / 2))) {
            // The refill threshold keeps jobs to at least half a ring when C < chunkSize, instead of
            // one job per written block.
            if (t < idleRetryAtNanos) {
                wakeAt(idleRetryAtNanos);
                return;
            }
            job = new Job(null, distribution, -1, slotMillis(), roomFrom(schedulerSeq), -1, -1, null);
        } else {
            return;
        }
        taskRunning = true;
        jobSubmittedNanos = t;
        runningFrom = job.replanFrom();
        recomputeCut();
        try {
            Runnable work = () -> {
                Result r = runJob(job);
                try {
                    loop.execute(() -> onResult(r));
                } catch (RejectedExecutionException e) {
                    log.debug("session {}: event loop gone before a scheduler result", id);
                }
            };
            boolean replan = job.replanFrom() >= 0;
            queuedTask = replan && inheritedOrder >= 0 ? server.schedule(true, inheritedOrder, work)
                    : server.schedule(replan, work);
            queuedJob = job;
            inheritedOrder = -1;
        } catch (RejectedExecutionException e) {
            // Only during shutdown: the queue holds at most one task per session.
            taskRunning = false;
            queuedTask = null;
            queuedJob = null;
            closeWithError(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    /**
     * How many slots a job whose planning starts at {@code startSeq} may plan: a chunk, but never
     * past {@code nextSeq + C}.
     *
     * <p>This is what keeps every re-plan possible. The scheduler can re-plan from any slot at
     * least {@code C} below the highest slot it ever planned (it keeps the log of the current and
     * the previous batch), and the session only re-plans from the sender's position or later. So
     * no job may plan a slot more than {@code C} past the sender: with a chunk larger than the
     * ring, planning two chunks ahead did, and the next state or failed fetch then asked for a
     * re-plan the scheduler could no longer do. Blocks planned that far ahead would also land in
     * ring slots the client still uses for blocks planned before them.
     */
    private int roomFrom(long startSeq) {
        long room = nextSeq + cacheBlocks - startSeq;
        return (int) Math.max(0, Math.min(application.chunkSize(), room));
    }

    /**
     * Slots at or after {@code cut} may not be sent: a re-plan from there is running or due (for a
     * running job, a pending state, or a skipped block).
     */
    private void recomputeCut() {
        long c = Long.MAX_VALUE;
        if (taskRunning && runningFrom >= 0) {
            c = runningFrom;
        }
        if (pendingState != null || pendingScope != null) {
            c = Math.min(c, pendingFrom);
        }
        if (failureFrom >= 0) {
            c = Math.min(c, failureFrom);
        }
        cut = c;
    }

    private void wakeAt(long atNanos) {
        if (wakeTimer != null && !wakeTimer.isDone() && wakeAtNanos <= atNanos) {
            return;
        }
        cancel(wakeTimer);
        wakeAtNanos = atNanos;
        wakeTimer = loop.schedule(() -> {
            wakeTimer = null;
            maybeSchedule();
            pump();
        }, Math.max(0, atNanos - now()), TimeUnit.NANOSECONDS);
    }

    /** Applies a scheduler job's result, on the event loop. */
    private void onResult(Result r) {
        taskRunning = false;
        queuedTask = null;
        queuedJob = null;
        runningFrom = -1;
        recomputeCut();
        if (phase != Phase.ACTIVE) {
            return;
        }
        chunksPlanned++;
        server.chunksPlanned.increment();
        schedulingNanosTotal += r.nanos();
        server.schedulingNanos.add(r.nanos());
        if (r.nanos() > schedulingNanosMax) {
            schedulingNanosMax = r.nanos();
        }
        long turnaround = now() - jobSubmittedNanos;
        ewmaTurnaroundNanos = ewmaTurnaroundNanos == 0 ? turnaround
                : (1 - EWMA) * ewmaTurnaroundNanos + EWMA * turnaround;
        if (r.error() != null) {
            closeWithError(r.error(), r.message());
            return;
        }
        ScheduleChunk c = r.chunk();
        schedulerSeq = c.endSeq();
        if (r.installed() != null) {
            distribution = r.installed();
        }
        if (r.rebind() != null && !r.rebind().isEmpty()) {
            // Before any block of the new generations: those are only ever planned by this job or later ones.
            r.rebind().forEach(text -> channel.write(new TextWebSocketFrame(text)));
            channel.flush();
            updateQueuedBytes();
        }
        if (r.replanFrom() >= 0) {
            replans++;
            server.replans.increment();
            if (r.job().stateArrivalNanos() >= 0) {
                reflectFromSeq = r.replanFrom();
                reflectReady = false;
                reflectArrivalNanos = r.job().stateArrivalNanos();
                long lag = r.replanFrom() - r.job().stateArrivalSeq();
                if (lag > maxReplanLagBlocks) {
                    maxReplanLagBlocks = lag;
                }
            }
        }
        if (c.isEmpty() && r.job().maxBlocks() > 0) {
            idleRetryAtNanos = now() + idleBackoffNanos;
            idleBackoffNanos = Math.min(MAX_IDLE_BACKOFF_NANOS, idleBackoffNanos * 2);
        } else if (!c.isEmpty() && c.firstSeq() == plannedEnd && c.firstSeq() < cut) {
            for (int k = 0; k < c.size(); k++) {
                Slot slot = new Slot(c.firstSeq() + k, c.requestId(k), c.blockIndex(k));
                if (r.annotation() != null) {
                    slot.contentKey = r.annotation().contentKeys()[k];
                    slot.generation = r.annotation().generations()[k];
                }
                planned.addLast(slot);
            }
            plannedEnd = c.endSeq();
            idleBackoffNanos = MIN_BACKOFF_NANOS;
            idleRetryAtNanos = 0;
        }
        // Otherwise the plan was cut meanwhile (a new state or a skipped block): the re-plan that is
        // due from the cut supersedes this chunk.
        pump();
    }

    /** Drops every planned slot with {@code seq >= from}, ending their fetches. */
    private void dropFrom(long from) {
        while (!planned.isEmpty() && planned.peekLast().seq >= from) {
            Slot s = planned.pollLast();
            if (s.state == SlotState.FETCHING) {
                cancel(s.timeout);
                app.backend().end(s.requestId);
            }
            s.state = SlotState.DROPPED;
            s.block = null;
        }
        plannedEnd = Math.min(plannedEnd, Math.max(from, nextSeq));
    }

    // ---------------------------------------------------------------- scheduling (scheduler thread)

    /**
     * Runs on the scheduler executor; touches only the scheduler and the job. Always returns a
     * result: anything user code throws, {@code Error}s included, becomes an error result that
     * closes only this session (logged once, by {@link #closeWithError}); without a result the
     * session would wait for its job forever, and the scheduler thread lives on.
     */
    private Result runJob(Job job) {
        try {
            if (scheduler == null) {
                // Creation is O(n) once per session; it is not counted as scheduling time per chunk.
                scheduler = application.schedulerFactory().create(schedulerContext());
                if (scheduler == null) {
                    return error(job, now(), ErrorCode.INTERNAL_ERROR, "the scheduler factory returned null");
                }
            }
        } catch (Throwable e) {
            log.debug("session {}: creating the scheduler failed", id, e);
            return error(job, now(), ErrorCode.INTERNAL_ERROR, "creating the scheduler failed: " + e);
        }
        long t0 = now();
        try {
            Distribution installed = null;
            if (job.state() != null) {
                try {
                    installed = application.predictor().decode(job.state());
                } catch (RuntimeException e) {
                    return error(job, t0, ErrorCode.INVALID_STATE, "state rejected by the predictor: "
                            + e.getMessage());
                }
                // An Error from the predictor is a bug, not a bad state: the catch below makes it internal_error.
                if (installed == null || installed.requestCount() != source.requestCount()) {
                    return error(job, t0, ErrorCode.INTERNAL_ERROR, "the predictor returned "
                            + (installed == null ? "no distribution" : "a distribution over "
                            + installed.requestCount() + " requests instead of " + source.requestCount()));
                }
            }
            BindingTable.Changes rebound = null;
            if (job.scope() != null) {
                try {
                    rebound = applyScope(job.scope());
                } catch (ProtocolException e) {
                    return error(job, t0, e.code(), e.getMessage());
                }
            }
            long from = -1;
            Distribution d = installed != null ? installed : job.current();
            // Without any distribution yet (waitForState) nothing was planned: a scope alone has nothing to re-plan.
            if (job.replanFrom() >= 0 && d != null) {
                from = Math.min(job.replanFrom(), scheduler.nextSeq());
                scheduler.replan(d, from, job.slotMillis());
                if (rebound != null && !rebound.isEmpty()) {
                    scheduler.invalidate(rebound.requestIds());
                }
            }
            ScheduleChunk chunk = scheduler.next(job.maxBlocks());
            if (!chunk.isEmpty()) {
                try {
                    source.prefetch(chunk);
                } catch (Throwable e) { // only a hint: the fetches will tell whether the source works
                    log.debug("session {}: prefetch hint failed", id, e);
                }
            }
            return new Result(job, installed, from, chunk, now() - t0, null, null,
                    rebound == null ? null : rebound.messages(), bindings == null ? null : bindings.annotate(chunk));
        } catch (Throwable e) {
            log.debug("session {}: scheduler failed", id, e);
            return error(job, t0, ErrorCode.INTERNAL_ERROR, "scheduler failed: " + e);
        }
    }

    private Result error(Job job, long t0, ErrorCode code, String message) {
        return new Result(job, null, -1, ScheduleChunk.empty(0), now() - t0, code, message, null, null);
    }

    /**
     * Decodes a client scope with the application's {@link RequestScope} and makes it the
     * session's bindings; scheduler task only.
     *
     * @throws ProtocolException {@code invalid_scope} if the scope is rejected, or as {@link BindingTable#apply}
     */
    private BindingTable.Changes applyScope(JsonNode clientScope) {
        if (bindings == null) {
            bindings = new BindingTable(source.requestCount(), application.maxBoundRequests());
        }
        dev.khameleon.core.Bindings decoded;
        try {
            decoded = scope.decode(clientScope);
        } catch (RuntimeException e) {
            throw new ProtocolException(ErrorCode.INVALID_SCOPE, "scope rejected by the application: " + e.getMessage());
        }
        if (decoded == null) {
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the request scope returned no bindings");
        }
        return bindings.apply(decoded);
    }

    private SchedulerContext schedulerContext() {
        BackendTracker backend = app.backend();
        return new SchedulerContext(cacheBlocks, source.requestCount(), source::blockCount, application.utility(),
                application.chunkSize(), application.discount(), server.newSchedulerSeed(),
                application.backendConcurrency(), backend::inFlight, backend::isFetching);
    }

    // ---------------------------------------------------------------- fetching (event loop side)

    private void startFetches() {
        int examined = 0;
        for (Iterator<Slot> it = planned.iterator(); it.hasNext() && examined < config.fetchWindow(); examined++) {
            Slot s = it.next();
            if (s.seq >= cut) {
                break;
            }
            if (s.state == SlotState.NEW && !startFetch(s)) {
                break;
            }
        }
    }

    private boolean startFetch(Slot s) {
        if (!app.backend().tryBegin(s.requestId, application.backendConcurrency())) {
            // Cb distinct requests are being fetched (by any session): look again shortly.
            wakeAt(now() + BACKEND_RETRY_NANOS);
            return false;
        }
        s.state = SlotState.FETCHING;
        if (fetchInline) {
            return fetchOnLoop(s);
        }
        try {
            server.fetchExecutor.execute(() -> fetchOffLoop(s));
        } catch (RejectedExecutionException e) {
            // The shared fetch queue is full: try again shortly rather than queue without bound.
            app.backend().end(s.requestId);
            s.state = SlotState.NEW;
            wakeAt(now() + MIN_BACKOFF_NANOS);
            return false;
        }
        s.timeout = loop.schedule(() -> onFetched(s, null, new TimeoutException("fetch timed out after "
                + config.fetchTimeoutMillis() + " ms")), config.fetchTimeoutMillis(), TimeUnit.MILLISECONDS);
        return true;
    }

    /**
     * A source that {@linkplain BlockSource#fetchesImmediately() fetches immediately} is called on
     * the event loop: a completed stage makes the slot ready (or failed) at once, so the caller's
     * pump can write it without two thread hand-offs. A stage that is not complete after all falls
     * back to the usual path: its completion comes back through the event loop, under the timeout.
     */
    private boolean fetchOnLoop(Slot s) {
        CompletableFuture<Block> done = callFetch(s).toCompletableFuture();
        if (!done.isDone()) {
            s.timeout = loop.schedule(() -> onFetched(s, null, new TimeoutException("fetch timed out after "
                    + config.fetchTimeoutMillis() + " ms")), config.fetchTimeoutMillis(), TimeUnit.MILLISECONDS);
            done.whenComplete((b, e) -> backOnLoop(s, b, e));
            return true;
        }
        Block b = null;
        Throwable error = null;
        try {
            b = done.getNow(null);
        } catch (CompletionException | CancellationException e) {
            error = e.getCause() != null ? e.getCause() : e;
        }
        complete(s, b, error);
        return true;
    }

    private static boolean fetchesImmediately(BlockSource source) {
        try {
            return source.fetchesImmediately();
        } catch (RuntimeException e) { // user code: without the promise, the executor path is always safe
            return false;
        }
    }

    /** Calls the source; a throw or a null stage becomes a failed stage. */
    private CompletionStage<Block> callFetch(Slot s) {
        try {
            CompletionStage<Block> stage = scope == null ? source.fetch(s.requestId, s.blockIndex)
                    : source.fetch(s.requestId, s.contentKey, s.blockIndex);
            return stage != null ? stage
                    : CompletableFuture.failedFuture(new NullPointerException("fetch returned null"));
        } catch (Throwable e) { // user code; an Error would otherwise leave the slot fetching until its timeout
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Runs on the fetch executor. */
    private void fetchOffLoop(Slot s) {
        callFetch(s).whenComplete((b, e) -> backOnLoop(s, b, e));
    }

    private void backOnLoop(Slot s, Block b, Throwable e) {
        try {
            loop.execute(() -> onFetched(s, b, e));
        } catch (RejectedExecutionException gone) {
            log.debug("session {}: event loop gone before a fetch completed", id);
        }
    }

    private void onFetched(Slot s, Block b, Throwable error) {
        if (s.state != SlotState.FETCHING) {
            return;
        }
        cancel(s.timeout);
        complete(s, b, error);
        pump();
    }

    /** Makes a fetching slot ready or failed; the caller pumps. */
    private void complete(Slot s, Block b, Throwable error) {
        app.backend().end(s.requestId);
        String problem = error != null ? String.valueOf(error) : check(s, b);
        if (problem != null) {
            s.state = SlotState.FAILED;
            if (!failureLogged) {
                failureLogged = true;
                log.warn("session {}: fetch of block {} of request {} failed, skipping it (further failures of this"
                        + " session are logged at debug): {}", id, s.blockIndex, s.requestId, problem);
            } else {
                log.debug("session {}: fetch of block {} of request {} failed: {}", id, s.blockIndex, s.requestId,
                        problem);
            }
        } else {
            s.state = SlotState.READY;
            s.block = b;
            if (s.seq == reflectFromSeq) {
                reflectReady = true;
            }
        }
    }

    private String check(Slot s, Block b) {
        if (b == null) {
            return "the block source returned no block";
        }
        if (b.requestId() != s.requestId || b.index() != s.blockIndex) {
            return "the block source returned " + b + " for block " + s.blockIndex + " of request " + s.requestId;
        }
        if (b.size() != blockSize) {
            return "the block source returned " + b.size() + " bytes, not the block size " + blockSize;
        }
        if (scope != null && b.count() != source.blockCount(s.requestId)) {
            return "the block source returned " + b.count() + " blocks for content " + s.contentKey + " but request "
                    + s.requestId + " has " + source.blockCount(s.requestId);
        }
        return null;
    }

    // ---------------------------------------------------------------- sending (event loop)

    /** Writes ready blocks in order while the channel is writable and the pacer allows. */
    private void pump() {
        if (phase != Phase.ACTIVE) {
            return;
        }
        startFetches();
        boolean wrote = false;
        while (!planned.isEmpty()) {
            Slot s = planned.peekFirst();
            if (s.seq >= cut) {
                break;
            }
            if (s.state == SlotState.FAILED) {
                skip(s);
                break;
            }
            if (s.state != SlotState.READY) {
                break;
            }
            if (!channel.isWritable()) {
                armStallTimer();
                break;
            }
            // Once a state's plan has its first block, that block and the old ones before it go out at
            // once, on credit: waiting for the pace would add up to a slot to the state's delay. The
            // debt (at most the re-plan margin and one frame) is repaid by the next blocks' waits.
            long wait = reflectReady && s.seq <= reflectFromSeq
                    ? pacer.acquireOnCredit(frameBytes, (double) (MAX_REPLAN_MARGIN + 1) * frameBytes, now())
                    : pacer.tryAcquire(frameBytes, now());
            if (wait > 0) {
                armPumpTimer(wait);
                break;
            }
            planned.pollFirst();
            if (s.seq != nextSeq) {
                closeWithError(ErrorCode.INTERNAL_ERROR, "plan out of step with the ring: slot " + s.seq
                        + " at sequence number " + nextSeq);
                return;
            }
            write(s);
            wrote = true;
            startFetches();
        }
        if (wrote) {
            channel.flush();
            updateQueuedBytes();
        }
        maybeSchedule();
    }

    private void write(Slot s) {
        Block b = s.block;
        s.block = null;
        ByteBuf buf = channel.alloc().buffer(frameBytes, frameBytes);
        buf.writeBytes(scope == null ? BlockFrame.header(s.seq, b) : BlockFrame.header(s.seq, b, s.generation));
        buf.writeBytes(b.payload());
        channel.write(new BinaryWebSocketFrame(buf)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        nextSeq = s.seq + 1;
        bytesPushed += frameBytes;
        server.bytesPushed.add(frameBytes);
        server.blocksPushed.increment();
        failureBackoffNanos = MIN_BACKOFF_NANOS;
        if (reflectFromSeq >= 0 && s.seq >= reflectFromSeq) {
            replanDelayNanosTotal += now() - reflectArrivalNanos;
            replanDelayCount++;
            reflectFromSeq = -1;
            reflectReady = false;
        }
    }

    private void updateQueuedBytes() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        long q = out == null ? 0 : out.totalPendingWriteBytes();
        queuedBytes = q;
        if (q > maxQueuedBytes) {
            maxQueuedBytes = q;
        }
    }

    /** The head slot's fetch failed: skip it without using its sequence number, and re-plan from there. */
    private void skip(Slot s) {
        blocksSkipped++;
        server.blocksSkipped.increment();
        dropFrom(s.seq);
        failureFrom = failureFrom >= 0 ? Math.min(failureFrom, s.seq) : s.seq;
        recomputeCut();
        failureRetryAtNanos = now() + failureBackoffNanos;
        failureBackoffNanos = Math.min(MAX_FAILURE_BACKOFF_NANOS, failureBackoffNanos * 2);
    }

    private void armPumpTimer(long waitNanos) {
        if (pumpTimer != null && !pumpTimer.isDone()) {
            return;
        }
        pumpTimer = loop.schedule(() -> {
            pumpTimer = null;
            pump();
        }, waitNanos, TimeUnit.NANOSECONDS);
    }

    private void armStallTimer() {
        updateQueuedBytes();
        if (stallTimer != null) {
            return;
        }
        stallTimer = loop.schedule(() -> {
            stallTimer = null;
            if (!channel.isWritable()) {
                updateQueuedBytes();
                closeWithError(ErrorCode.SLOW_CONSUMER, "the client stopped reading: nothing could be written for "
                        + config.writeStallTimeoutMillis() + " ms, " + queuedBytes + " bytes queued");
            }
        }, config.writeStallTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    // ---------------------------------------------------------------- metrics (any thread)

    /** The rate the sender is paced at now (estimate × pacing gain), bytes per second; for tests. */
    double pacingBytesPerSecond() {
        return pacingRate;
    }

    /** The pacer's burst at {@code rate}: the most it admits at once; for tests. */
    double pacingBurstBytes(double rate) {
        return Pacer.burstBytes(rate, pacer.minBurstBytes());
    }

    SessionMetrics metrics() {
        long chunks = chunksPlanned;
        long delays = replanDelayCount;
        return new SessionMetrics(id, application.name(), String.valueOf(channel.remoteAddress()), cacheBlocks,
                nextSeq, bytesPushed, nextSeq, blocksSkipped, replans, chunks,
                chunks == 0 ? 0 : schedulingNanosTotal / 1e3 / chunks, schedulingNanosMax / 1e3, bandwidthEstimate,
                queuedBytes, maxQueuedBytes, statesReceived, requestsReceived,
                delays == 0 ? 0 : replanDelayNanosTotal / 1e3 / delays, maxReplanLagBlocks);
    }
}
