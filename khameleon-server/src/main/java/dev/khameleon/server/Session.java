package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ResumeRequest;
import dev.khameleon.server.Plan.Slot;
import dev.khameleon.server.Plan.SlotState;
import dev.khameleon.server.SessionScheduler.Job;
import dev.khameleon.server.SessionScheduler.Result;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client's session: protocol state, the paced sender and the hand-offs to the scheduler and
 * the block source. What is planned, where the plan is cut and when to re-plan is the
 * {@link Plan}'s; {@link SessionScheduler} runs the jobs and {@link SlotFetcher} the fetches.
 *
 * <p><b>Threading.</b> Everything is confined to the channel's event loop except the jobs, which
 * {@link SessionScheduler} runs on the shared scheduler executor, one job per session at a
 * time: the event loop decides each job (what to re-plan from, with which state) and applies its
 * result, so the plan, the sequence numbers and the ring model are only ever touched by the event
 * loop. Fetches start on the shared fetch executor and complete back on the event loop. Counters
 * read by {@link #metrics()} are in {@link SessionCounters}, with the event loop as their only
 * writer.
 */
final class Session {
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private static final int MAX_REPLAN_MARGIN = 16;
    /** The least time of sending that fetched blocks cover ahead of the sender. */
    private static final long MIN_FETCH_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The fewest planned blocks fetched ahead of the sender (the head and the next). */
    private static final int MIN_FETCH_WINDOW = 2;
    private static final double EWMA = 0.2;
    private static final long[] NO_COUNTS = new long[0];

    /**
     * Where the session is. A hello asking to resume goes through {@code AWAITING_RESUME_PARTS}
     * (while its manifest's {@code resumePart} messages arrive) and {@code RESUMING} (while the
     * scheduler is seeded) before the welcome makes it {@code ACTIVE}.
     */
    private enum Phase { AWAITING_HELLO, AWAITING_RESUME_PARTS, RESUMING, ACTIVE, CLOSING, CLOSED }

    private final String id;
    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final Application application;
    private final GuardedBlockSource source;
    private final ServerConfig config;
    private final Channel channel;
    private final EventLoop loop;
    private final int blockSize;
    private final int frameBytes;
    /** Null for an application whose request ids mean the same for every session. */
    private final GuardedRequestScope scope;
    private final BandwidthEstimator bandwidth;
    private final Pacer pacer;

    private final SlotFetcher fetcher;
    /** The exact counts of lazily counted requests; null when the application has none. */
    private final LazyCountTable lazyCounts;
    /** Runs this session's jobs on the scheduler executor; created by the hello. */
    private SessionScheduler jobs;

    // Confined to the event loop.
    private Phase phase = Phase.AWAITING_HELLO;
    private boolean registered;
    /** Created by the hello, which gives the ring size. */
    private Plan plan;
    /** The job of {@link Plan#jobRunning()}, queued or running. */
    private SchedulerTask queuedTask;
    /** The job {@link #queuedTask} runs, so that a withdrawn job's state or scope is not lost. */
    private Job queuedJob;
    /** The queue turn of a withdrawn re-plan, for the job that replaces it; -1 if none. */
    private long inheritedOrder = -1;
    /** The newest state not yet handed to a job, as text (see {@link HeldJson}). */
    private HeldJson pendingState;
    /** The newest scope not yet handed to a job, as text. */
    private HeldJson pendingScope;
    private Distribution distribution;
    private long lastStateTime = -1;
    private double ewmaTurnaroundNanos;
    private long jobSubmittedNanos;
    private final LoopTimer pumpTimer;
    private final LoopTimer wakeTimer;
    private final LoopTimer stallTimer;
    private final LoopTimer helloTimer;
    private final LoopTimer tokenTimer;
    /** The accepted hello; null before. */
    private ControlMessage.Hello hello;
    /** The manifest of a resume being collected or checked; null otherwise. */
    private ResumeAssembly resume;

    private final SessionCounters counters;

    Session(ServerRuntime server, ServerRuntime.App app, Channel channel) {
        this.id = server.newSessionId();
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.source = application.guardedSource();
        this.config = server.config;
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.blockSize = source.blockSize();
        this.scope = application.guardedScope();
        this.frameBytes = BlockFrameEncoder.frameBytes(scope != null, blockSize);
        this.bandwidth = new BandwidthEstimator(config.initialBytesPerSecond(), config.maxBytesPerSecond(),
                config.fixedBytesPerSecond());
        this.pacer = new Pacer(paceFor(bandwidth.bytesPerSecond()), 2 * frameBytes, now());
        this.counters = new SessionCounters(server);
        counters.rates(bandwidth.bytesPerSecond(), pacer.rate());
        this.pumpTimer = new LoopTimer(loop, server::nanoTime, this::pump);
        this.wakeTimer = new LoopTimer(loop, server::nanoTime, () -> {
            maybeSchedule();
            pump();
        });
        this.stallTimer = new LoopTimer(loop, server::nanoTime, this::onStallTimeout);
        this.helloTimer = new LoopTimer(loop, server::nanoTime, () -> {
            if (phase == Phase.AWAITING_HELLO) {
                closeWithError(ErrorCode.MISSING_HELLO, "no hello within " + config.helloTimeoutMillis() + " ms");
            } else if (phase == Phase.AWAITING_RESUME_PARTS) {
                closeWithError(ErrorCode.MISSING_HELLO, "the hello's resume manifest was not complete within "
                        + config.helloTimeoutMillis() + " ms");
            }
        });
        this.tokenTimer = new LoopTimer(loop, server::nanoTime, this::refreshResumeToken);
        this.lazyCounts = application.hasLazyCounts() ? new LazyCountTable() : null;
        this.fetcher = new SlotFetcher(server, app, loop, id, wakeTimer::armIn, this::onFetched, this::recordFetched,
                lazyCounts);
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
        helloTimer.armIn(TimeUnit.MILLISECONDS.toNanos(config.helloTimeoutMillis()));
        log.debug("session {}: WebSocket open from {} on {}", id, channel.remoteAddress(), application.path());
    }

    /** A control message from the client, decoded by {@link ControlMessageCodec}. */
    void onMessage(ControlMessage m) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
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
        } else if (m instanceof ControlMessage.ResumePart p) {
            onResumePart(p);
        } else if (phase == Phase.AWAITING_RESUME_PARTS) {
            closeWithError(ErrorCode.INVALID_MESSAGE, "the hello announced more resumePart messages, got " + m.type());
        } else if (phase == Phase.RESUMING && m instanceof ControlMessage.PredictionState s) {
            // No plan to cut yet: the newest state waits for the welcome.
            if (s.timeMillis() >= lastStateTime) {
                lastStateTime = s.timeMillis();
                pendingState = HeldJson.of(s.state(), ErrorCode.INVALID_STATE);
                counters.stateReceived();
            }
        } else if (phase == Phase.RESUMING && m instanceof ControlMessage.RequestEvent r) {
            if (r.requestId() >= source.requestCount()) {
                closeWithError(ErrorCode.INVALID_MESSAGE, "request " + r.requestId() + " out of range [0, "
                        + source.requestCount() + ")");
            } else {
                counters.requestReceived();
            }
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
        hello = h;
        AddressLimits.Ticket ticket = channel.attr(AddressLimits.TICKET).get();
        if (ticket != null) {
            ticket.handshakeDone();
        }
        int cacheBlocks = h.cacheBlocks();
        counters.cacheBlocks(cacheBlocks);
        jobs = new SessionScheduler(server, app, id, cacheBlocks);
        plan = new Plan(cacheBlocks, application.chunkSize(), TimeUnit.MILLISECONDS.toNanos(config.stateIntervalMillis()),
                fetcher::abandon);
        if (h.resume().isPresent()) {
            startResume(h.resume().get());
        } else {
            welcome(0, Optional.empty(), Optional.empty());
        }
    }

    /** Sends the welcome and starts the session at {@code firstSeq}. */
    private void welcome(long firstSeq, Optional<Boolean> resumed, Optional<String> refused) {
        helloTimer.cancel();
        phase = Phase.ACTIVE;
        resume = null;
        int cacheBlocks = hello.cacheBlocks();
        // An application that binds requests per session cannot resume (its bindings are not in the manifest).
        boolean resumable = scope == null;
        List<String> features = new ArrayList<>(2);
        if (scope != null) {
            features.add(Protocol.FEATURE_SCOPE);
        }
        if (resumable) {
            features.add(Protocol.FEATURE_RESUME);
        }
        Optional<String> token = resumable
                ? Optional.of(server.resumeTokens().issue(id, application.path(), cacheBlocks, blockSize))
                : Optional.empty();
        ControlMessage.Welcome welcome = new ControlMessage.Welcome(Protocol.VERSION, id, application.name(),
                blockSize, source.requestCount(), cacheBlocks, longList(application.horizonsMillis()), firstSeq,
                application.blockCounts(), features, token, resumed, refused);
        channel.writeAndFlush(welcome);
        if (resumable && (hello.supports(Protocol.FEATURE_RESUME) || hello.resume().isPresent())) {
            tokenTimer.armIn(TimeUnit.MILLISECONDS.toNanos(server.resumeTokens().ttlMillis() / 2));
        }
        log.info("session {}: {} opened by {}, cache {} blocks{}", id, application.name(), channel.remoteAddress(),
                cacheBlocks, resumed.isEmpty() ? "" : resumed.get() ? ", resumed at sequence number " + firstSeq
                        : ", resume refused (" + refused.orElse("") + "), starting afresh");
        application.initialDistribution().ifPresent(d -> {
            distribution = d;
            plan.requestInitialPlan();
        });
        if (pendingState != null) {
            // A state that came while the resume was checked.
            plan.cutForReplan(replanMargin(), now());
        }
        maybeSchedule();
    }

    // ---------------------------------------------------------------- resume (event loop)

    /**
     * The hello asks to resume: checks the token and collects the manifest (waiting for its
     * {@code resumePart} messages if any), then has the scheduler seeded. Any refusal ends in a
     * fresh session, never in an error.
     */
    private void startResume(ResumeRequest r) {
        String refusal = null;
        String detail = "";
        if (scope != null) {
            refusal = ResumeAssembly.UNSUPPORTED;
            detail = "the application binds requests per session";
        } else {
            ResumeTokens.Verdict v = server.resumeTokens().verify(r.token(), application.path(), hello.cacheBlocks(),
                    blockSize);
            if (!v.accepted()) {
                refusal = v.refusal();
                detail = "token refused";
            } else {
                detail = "earlier session " + v.sessionId().get();
            }
        }
        resume = new ResumeAssembly(r, hello.cacheBlocks(), source.requestCount(), refusal);
        if (resume.refusal() == null && resume.awaitingParts()) {
            phase = Phase.AWAITING_RESUME_PARTS;
            return;
        }
        finishResume(detail);
    }

    /**
     * More of the manifest. After the welcome (a resume refused before its parts came) it is
     * ignored, so that a refusal never turns into an error.
     */
    private void onResumePart(ControlMessage.ResumePart p) {
        if (phase != Phase.AWAITING_RESUME_PARTS) {
            return;
        }
        resume.add(p.manifest());
        if (resume.partReceived() || resume.refusal() != null) {
            finishResume("");
        }
    }

    private void finishResume(String detail) {
        ResumeAssembly a = resume;
        a.complete();
        if (a.refusal() != null) {
            log.info("session {}: resume refused: {} {} {}", id, a.refusal(), detail, a.detail());
            server.countResume(false);
            welcome(0, Optional.of(false), Optional.of(a.refusal()));
            return;
        }
        phase = Phase.RESUMING;
        try {
            queuedTask = server.schedule(false, () -> {
                String refusal = jobs.resume(a.nextSeq(), a.requestIds(), a.blockIndexes());
                try {
                    loop.execute(() -> onResumed(a, refusal));
                } catch (RejectedExecutionException e) {
                    log.debug("session {}: event loop gone before the resume result", id);
                }
            });
        } catch (RejectedExecutionException e) {
            closeWithError(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    /** The scheduler job seeding the resume ended; {@code refusal} null if it resumed. */
    private void onResumed(ResumeAssembly a, String refusal) {
        queuedTask = null;
        if (phase != Phase.RESUMING) {
            return;
        }
        server.countResume(refusal == null);
        if (refusal == null) {
            plan.startAt(a.nextSeq());
            welcome(a.nextSeq(), Optional.of(true), Optional.empty());
        } else {
            log.info("session {}: resume refused by the scheduler: {}", id, refusal);
            welcome(0, Optional.of(false), Optional.of(refusal));
        }
    }

    /** Sends a fresh resume token before the last one expires, every half time to live. */
    private void refreshResumeToken() {
        if (phase != Phase.ACTIVE) {
            return;
        }
        channel.writeAndFlush(new ControlMessage.ResumeToken(server.resumeTokens().issue(id, application.path(),
                hello.cacheBlocks(), blockSize)));
        tokenTimer.armIn(TimeUnit.MILLISECONDS.toNanos(server.resumeTokens().ttlMillis() / 2));
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
        counters.stateReceived();
        plan.cutForReplan(replanMargin(), now());
        pendingState = HeldJson.of(state, ErrorCode.INVALID_STATE);
        replaceQueuedJob();
        maybeSchedule();
    }

    /**
     * If this session's job is queued but has not started, withdraws it so that the job for the
     * newest state or scope takes its place: it re-plans from no later than the withdrawn job
     * would have (its cut is at most that one's), and a withdrawn re-plan's turn in the queue
     * passes to it. Whatever the withdrawn job carried and nothing newer replaces (a scope when a
     * state arrives, or the reverse) goes back to pending, so no scope or state is lost.
     */
    private void replaceQueuedJob() {
        if (!plan.jobRunning() || queuedTask == null || !server.withdraw(queuedTask)) {
            return;
        }
        plan.jobEnded();
        if (queuedTask.replan()) {
            inheritedOrder = queuedTask.order();
        }
        queuedTask = null;
        Job withdrawn = queuedJob;
        queuedJob = null;
        if (withdrawn != null && lazyCounts != null) {
            lazyCounts.restore(withdrawn.toldCounts());
        }
        if (withdrawn != null) {
            if (pendingState == null && withdrawn.state() != null) {
                pendingState = withdrawn.state();
            }
            if (pendingScope == null && withdrawn.scope() != null) {
                pendingScope = withdrawn.scope();
            }
        }
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
        plan.cutForReplan(replanMargin(), now());
        pendingScope = HeldJson.of(newScope, ErrorCode.INVALID_SCOPE);
        replaceQueuedJob();
        maybeSchedule();
    }

    private void onRate(double bytesPerSecond) {
        bandwidth.report(bytesPerSecond);
        double estimate = bandwidth.bytesPerSecond();
        pacer.setRate(paceFor(estimate), now());
        counters.rates(estimate, pacer.rate());
    }

    private void onRequest(ControlMessage.RequestEvent r) {
        if (r.requestId() >= source.requestCount()) {
            closeWithError(ErrorCode.INVALID_MESSAGE, "request " + r.requestId() + " out of range [0, "
                    + source.requestCount() + ")");
            return;
        }
        counters.requestReceived();
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
            stallTimer.cancel();
            pump();
        } else if (phase != Phase.CLOSING && phase != Phase.CLOSED) {
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
            channel.write(ControlMessage.ErrorMessage.of(code, message));
            sendClose(new CloseWebSocketFrame(code.closeStatus(), code.wireName()));
        }
    }

    private void closeNormally() {
        stop(Phase.CLOSING);
        if (channel.isActive()) {
            sendClose(new CloseWebSocketFrame(1000, "bye"));
        }
    }

    /**
     * Writes the close frame; on a socket, {@link CloseHandshakeHandler} closes the connection when the
     * client answers it (see there why not sooner), elsewhere it is closed once the frame is written.
     * Either way, a client that neither reads nor answers is closed after the close timeout.
     */
    private void sendClose(CloseWebSocketFrame frame) {
        ChannelFuture written = channel.writeAndFlush(frame);
        if (channel.pipeline().get(CloseHandshakeHandler.class) == null) {
            written.addListener(ChannelFutureListener.CLOSE);
        } else {
            written.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
        loop.schedule(() -> {
            channel.close();
        }, config.closeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    void onInactive() {
        boolean wasOpen = phase == Phase.ACTIVE || phase == Phase.CLOSING;
        stop(Phase.CLOSED);
        if (registered) {
            server.unregister(this, counters.cacheBlocks());
            registered = false;
        }
        if (wasOpen) {
            log.info("session {}: closed after {} blocks ({} bytes), {} skipped, {} re-plans", id,
                    counters.blocksPushed(), counters.bytesPushed(), counters.blocksSkipped(), counters.replans());
        }
    }

    private void stop(Phase next) {
        phase = next;
        pumpTimer.cancel();
        wakeTimer.cancel();
        stallTimer.cancel();
        helloTimer.cancel();
        tokenTimer.cancel();
        if (plan != null) {
            plan.clear();
        }
        pendingState = null;
        pendingScope = null;
        if (queuedTask != null && server.withdraw(queuedTask)) {
            // A closed session's job that has not started would only cost scheduler time.
            queuedTask = null;
            queuedJob = null;
        }
    }

    // ---------------------------------------------------------------- scheduling (event loop side)

    private double slotMillis() {
        return frameBytes / bandwidth.bytesPerSecond() * 1e3;
    }

    /** How long one frame takes at the pacer's current rate, in nanoseconds. */
    private double pacedSlotNanos() {
        return frameBytes / pacer.rate() * 1e9;
    }

    /**
     * Slots the sender will still write from the old plan while a re-plan is computed: enough to
     * cover a job's recent turnaround, so the sender rarely waits, and few, so that a new
     * distribution shows within a few blocks.
     */
    private int replanMargin() {
        double slotNanos = pacedSlotNanos();
        // The slots a job's turnaround (executor queue, job, hand-back) covers keep the link busy while
        // it runs; they cost the state no delay, as they go out on credit once the new plan is ready.
        long m = (long) Math.ceil(ewmaTurnaroundNanos / slotNanos);
        return (int) Math.max(0, Math.min(MAX_REPLAN_MARGIN, m));
    }

    /**
     * How many planned blocks to fetch ahead of the sender: those it will write within twice the
     * source's mean fetch time (at least {@link #MIN_FETCH_LEAD_NANOS}) at the current pace, and at
     * least up to the first block a re-plan can place (so that a new state's first block is fetched
     * while the margin's old blocks wait), within {@code [MIN_FETCH_WINDOW, fetchWindow]}. Fetching
     * further ahead fetches blocks that the next state's re-plan mostly drops: with the whole window
     * fetched a session read several blocks from its source for every block it sent.
     */
    private int fetchWindow() {
        double slotNanos = pacedSlotNanos();
        double lead = Math.max(MIN_FETCH_LEAD_NANOS, 2 * fetcher.meanFetchNanos());
        long w = Math.max(1 + (long) Math.ceil(lead / slotNanos), replanMargin() + 2L);
        return (int) Math.min(config.fetchWindow(), Math.max(MIN_FETCH_WINDOW, w));
    }

    /** Starts the next scheduler job if none is running and one is due. */
    private void maybeSchedule() {
        if (phase != Phase.ACTIVE || plan.jobRunning()) {
            return;
        }
        if (pendingScope != null && !channel.isWritable()) {
            // Rebind messages are written whatever the water marks: apply a scope only while the
            // client reads, so at most one scope's rebinds sit in the outbound buffer. Writability
            // coming back pumps, which asks again.
            return;
        }
        long t = now();
        Plan.Decision d = plan.decide(t, distribution != null, inheritedOrder >= 0);
        if (!d.starts()) {
            if (d.wakeAtNanos() != Long.MAX_VALUE) {
                wakeTimer.armAt(d.wakeAtNanos());
            }
            return;
        }
        Job job;
        long[] told = lazyCounts == null ? NO_COUNTS : lazyCounts.drainTold();
        if (d.kind() == Plan.JobKind.REPLAN) {
            job = new Job(pendingState, distribution, d.replanFrom(), slotMillis(), d.maxBlocks(), d.arrivalNanos(),
                    d.arrivalSeq(), pendingScope, told);
            pendingState = null;
            pendingScope = null;
        } else {
            job = new Job(null, distribution, d.replanFrom(), slotMillis(), d.maxBlocks(), -1, -1, null, told);
        }
        jobSubmittedNanos = t;
        try {
            Runnable work = () -> {
                Result r = jobs.run(job);
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
            plan.jobEnded();
            queuedTask = null;
            queuedJob = null;
            closeWithError(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    /** Applies a scheduler job's result, on the event loop. */
    private void onResult(Result r) {
        plan.jobEnded();
        queuedTask = null;
        queuedJob = null;
        if (phase != Phase.ACTIVE) {
            return;
        }
        counters.chunkPlanned(r.nanos());
        long turnaround = now() - jobSubmittedNanos;
        ewmaTurnaroundNanos = ewmaTurnaroundNanos == 0 ? turnaround
                : (1 - EWMA) * ewmaTurnaroundNanos + EWMA * turnaround;
        if (r.error() != null) {
            closeWithError(r.error(), r.message());
            return;
        }
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
            counters.replanned(r.job().stateArrivalNanos() >= 0 ? r.replanFrom() - r.job().stateArrivalSeq() : -1);
        }
        boolean appended = plan.apply(r.chunk(), r.replanFrom(), r.job().maxBlocks(), r.job().stateArrivalNanos(),
                r.annotation(), now());
        if (appended && lazyCounts != null) {
            // Planned while a count was being learned: its blocks past that count do not exist.
            plan.replanFromFirst(r.chunk().firstSeq(), this::beyondCount);
        }
        pump();
    }

    // ---------------------------------------------------------------- fetching (event loop side)

    private void startFetches() {
        int window = fetchWindow();
        if (lazyCounts == null) {
            plan.forEachToFetch(window, fetcher::start);
            return;
        }
        plan.forEachToFetch(window, this::startCounted);
        // Learned while the plan was walked (a fetch may end within start): cut only now.
        if (lazyCounts.takeCapsPending()) {
            plan.replanFromFirst(Long.MIN_VALUE, this::beyondCount);
        }
    }

    /**
     * Starts fetching {@code s} unless its request's count is told lazily and not known yet (only
     * block 0 goes first, and tells it; the plan's head is always fetched, so nothing waits for
     * ever) or known to end before it (a re-plan takes the slot back).
     */
    private boolean startCounted(Slot s) {
        if (application.isBlockCountBound(s.requestId)) {
            int known = lazyCounts.known(s.requestId);
            boolean hold = known >= 0 ? s.blockIndex >= known : s.blockIndex > 0 && s.seq != plan.nextSeq();
            if (hold) {
                return true;
            }
        }
        return fetcher.start(s);
    }

    private boolean beyondCount(Slot s) {
        return lazyCounts.beyondCount(s.requestId, s.blockIndex);
    }

    /** A fetch ended: {@code b} is the slot's block, or null if the slot failed. */
    private void onFetched(Slot s, Block b) {
        recordFetched(s, b);
        pump();
    }

    /** A fetch ended while the plan is being walked: recorded only; the walking pump sends it. */
    private void recordFetched(Slot s, Block b) {
        if (b != null) {
            plan.fetched(s, b);
        }
    }

    // ---------------------------------------------------------------- sending (event loop)

    /** Writes ready blocks in order while the channel is writable and the pacer allows. */
    private void pump() {
        if (phase != Phase.ACTIVE) {
            return;
        }
        startFetches();
        boolean wrote = false;
        for (Slot s = plan.head(); s != null; s = plan.head()) {
            if (s.state == SlotState.FAILED) {
                counters.blockSkipped();
                plan.skip(s, now());
                break;
            }
            if (s.state != SlotState.READY) {
                break;
            }
            if (!channel.isWritable()) {
                armStallTimer();
                break;
            }
            // The first block of a state's plan and the old ones before it go out on credit (see
            // Plan#sendsOnCredit); the debt (at most the re-plan margin and one frame) is repaid by
            // the next blocks' waits.
            long wait = plan.sendsOnCredit(s)
                    ? pacer.acquireOnCredit(frameBytes, (double) (MAX_REPLAN_MARGIN + 1) * frameBytes, now())
                    : pacer.tryAcquire(frameBytes, now());
            if (wait > 0) {
                pumpTimer.armIn(wait);
                break;
            }
            if (s.seq != plan.nextSeq()) {
                closeWithError(ErrorCode.INTERNAL_ERROR, "plan out of step with the ring: slot " + s.seq
                        + " at sequence number " + plan.nextSeq());
                return;
            }
            write(s.seq, plan.takeHead(), s.generation);
            wrote = true;
            startFetches();
        }
        if (wrote) {
            channel.flush();
            updateQueuedBytes();
        }
        maybeSchedule();
    }

    private void write(long seq, Block b, int generation) {
        // BlockFrameEncoder, in front of this session's handler, turns it into a binary frame.
        channel.write(new BlockFrame(seq, b, generation)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        counters.blockWritten(frameBytes);
        long delay = plan.written(seq, now());
        if (delay >= 0) {
            counters.replanDelay(delay);
        }
    }

    private void updateQueuedBytes() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        counters.queuedBytes(out == null ? 0 : out.totalPendingWriteBytes());
    }

    private void armStallTimer() {
        updateQueuedBytes();
        stallTimer.armIn(TimeUnit.MILLISECONDS.toNanos(config.writeStallTimeoutMillis()));
    }

    private void onStallTimeout() {
        if (!channel.isWritable()) {
            updateQueuedBytes();
            closeWithError(ErrorCode.SLOW_CONSUMER, "the client stopped reading: nothing could be written for "
                    + config.writeStallTimeoutMillis() + " ms, " + counters.queuedBytes() + " bytes queued");
        }
    }

    // ---------------------------------------------------------------- metrics (any thread)

    /** The rate the sender is paced at now (estimate × pacing gain), bytes per second; for tests. */
    double pacingBytesPerSecond() {
        return counters.pacingRate();
    }

    /** The pacer's burst at {@code rate}: the most it admits at once; for tests. */
    double pacingBurstBytes(double rate) {
        return Pacer.burstBytes(rate, pacer.minBurstBytes());
    }

    SessionMetrics metrics() {
        Plan p = plan;
        return counters.snapshot(id, application.name(), String.valueOf(channel.remoteAddress()),
                p == null ? 0 : p.nextSeq());
    }
}
