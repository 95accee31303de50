package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.server.Plan.Slot;
import dev.khameleon.server.Plan.SlotState;
import dev.khameleon.server.SessionScheduler.Job;
import dev.khameleon.server.SessionScheduler.Result;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One session's push policy, from the welcome on: when the scheduler plans and from where, which
 * planned blocks are fetched, when each is written, and what a new state, scope, rate report,
 * request, job result or fetched block changes. The server's push handler and the simulator both
 * run this class; it knows no channel, executor or wall clock. Events come in as method calls; what
 * is to be done goes out through the {@link PushPort}: submit or withdraw a scheduler job, write a block
 * frame, wake at a time, close with a code. Fetches go through a {@link SlotFetcher}, built on the
 * same port.
 *
 * <p>The rules, each of which used to be buried in the Netty session: a state or scope cuts the
 * plan {@link #replanMargin()} slots past the sender and the next job re-plans from the cut (states
 * faster than {@code stateInterval} are merged, the newest winning); a queued job that has not
 * started is withdrawn for the newer state and its re-plan's queue turn passes on; the blocks of
 * the first few planned slots are fetched ahead ({@link FetchAhead}), and a block of a request whose
 * count is told lazily waits for that count; the head block is written while the port is writable
 * and the {@link Pacer} allows, the first block of a state's plan and those before it on credit.
 *
 * <p><b>Threading.</b> Confined to one thread: the channel's event loop on the server, the event
 * loop of the simulator. Every port call is made on it.
 */
final class PushController implements SlotFetcher.Listener {
    private static final Logger log = LoggerFactory.getLogger(PushController.class);

    static final int MAX_REPLAN_MARGIN = 16;
    private static final double EWMA = 0.2;

    private final String id;
    private final Application application;
    private final ServerConfig config;
    private final SessionCounters counters;
    private final LongSupplier clock;
    private final PushPort port;
    private final int frameBytes;
    private final boolean scoped;
    private final SessionPace pace;
    private final ReplanBudget budget;
    private final Plan plan;
    private final FetchAhead fetches;
    private final SlotFetcher fetcher;

    private boolean active;
    private boolean stopped;
    /** The job submitted and not yet ended; null if none. */
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

    /**
     * @param id          the session's id, for logs
     * @param app         the application and its backend tracker
     * @param config      the server's settings: pacing, fetch window and timeout, state interval
     * @param counters    the session's counters, which this controller writes
     * @param cacheBlocks {@code C}, the client's ring size in blocks
     * @param port        what the controller's decisions are carried out by
     */
    PushController(String id, ServerRuntime.App app, ServerConfig config, SessionCounters counters, int cacheBlocks,
                   PushPort port) {
        this.id = id;
        this.application = app.application();
        this.config = config;
        this.counters = counters;
        this.clock = config.clock();
        this.port = port;
        GuardedBlockSource source = application.guardedSource();
        this.scoped = application.guardedScope() != null;
        this.frameBytes = BlockFrameEncoder.frameBytes(scoped, source.blockSize());
        this.pace = new SessionPace(config, frameBytes, counters, now());
        this.budget = new ReplanBudget(config.schedulerShare());
        LazyCountTable lazyCounts = application.hasLazyCounts() ? new LazyCountTable() : null;
        this.fetcher = new SlotFetcher(app, port, config.fetchTimeoutMillis(), clock, id, this, lazyCounts);
        this.plan = new Plan(cacheBlocks, application.chunkSize(),
                TimeUnit.MILLISECONDS.toNanos(config.stateIntervalMillis()), fetcher::abandon);
        this.fetches = new FetchAhead(application, plan, fetcher, lazyCounts, config.fetchWindow());
    }

    private long now() {
        return clock.getAsLong();
    }

    /** The bytes of one block frame on the wire. */
    int frameBytes() {
        return frameBytes;
    }

    /** Block frames written; the sequence number of the next one. Any thread. */
    long nextSeq() {
        return plan.nextSeq();
    }

    /** The pacer's smallest burst, in bytes; for tests. */
    int minBurstBytes() {
        return pace.minBurstBytes();
    }

    /** A resumed session: the client's ring already holds the frames before {@code seq}. Before {@link #start}. */
    void startAt(long seq) {
        plan.startAt(seq);
    }

    /**
     * The welcome went out: pushing starts, from the application's initial distribution if it has
     * one, and from a state that came while the session was being set up.
     */
    void start() {
        if (stopped) {
            return;
        }
        active = true;
        Optional<Distribution> initial = application.initialDistribution();
        initial.ifPresent(d -> {
            distribution = d;
            plan.requestInitialPlan();
        });
        if (pendingState != null) {
            plan.cutForReplan(replanMargin(), now());
        }
        maybeSchedule();
    }

    /**
     * The session ends: drops the plan (ending its fetches), forgets what was pending and withdraws
     * a job that has not started, which would only cost scheduler time. Idempotent.
     */
    void stop() {
        active = false;
        stopped = true;
        plan.clear();
        pendingState = null;
        pendingScope = null;
        if (queuedJob != null && port.withdraw() != PushPort.NOT_WITHDRAWN) {
            queuedJob = null;
        }
    }

    // ---------------------------------------------------------------- client messages

    /**
     * Applies a client message meant for the push policy (a state, a rate report, a request event,
     * a scope); while the session is being set up, a state is kept for {@link #start}.
     *
     * @return false if {@code m} is not one of those
     */
    boolean onMessage(ControlMessage m) {
        if (m instanceof ControlMessage.PredictionState s) {
            onState(s.timeMillis(), s.state());
        } else if (m instanceof ControlMessage.RateReport r) {
            onRate(r);
        } else if (m instanceof ControlMessage.RequestEvent r) {
            onRequest(r.timeMillis(), r.requestId(), r.miss());
        } else if (m instanceof ControlMessage.Scope sc) {
            onScope(sc.scope());
        } else {
            return false;
        }
        return true;
    }

    /** A prediction state made at the client's {@code timeMillis}; an older one than the last is ignored. */
    void onState(long timeMillis, JsonNode state) {
        if (stopped) {
            return;
        }
        if (timeMillis < lastStateTime) {
            log.debug("session {}: ignoring a state from {} ms, older than the last one ({} ms)", id, timeMillis,
                    lastStateTime);
            return;
        }
        lastStateTime = timeMillis;
        counters.stateReceived();
        HeldJson held = HeldJson.of(state, ErrorCode.INVALID_STATE);
        if (!active) {
            // No plan to cut yet: the newest state waits for start().
            pendingState = held;
            return;
        }
        plan.cutForReplan(replanMargin(), now());
        pendingState = held;
        replaceQueuedJob();
        maybeSchedule();
    }

    /**
     * The client's scope changed. It is applied like a state (merged with any pending one, at most
     * one re-plan per state interval, the newest scope wins), at the slot the re-plan starts from.
     */
    void onScope(JsonNode newScope) {
        if (stopped) {
            return;
        }
        if (!scoped) {
            port.close(ErrorCode.UNKNOWN_TYPE, "application " + application.name()
                    + " does not bind requests per session: its welcome does not offer \"" + Protocol.FEATURE_SCOPE
                    + "\"");
            return;
        }
        if (!active) {
            return;
        }
        plan.cutForReplan(replanMargin(), now());
        pendingScope = HeldJson.of(newScope, ErrorCode.INVALID_SCOPE);
        replaceQueuedJob();
        maybeSchedule();
    }

    /** A receive-rate report: the bandwidth estimate, the pace and the frames in flight follow it. */
    void onRate(ControlMessage.RateReport report) {
        if (stopped) {
            return;
        }
        pace.report(report.bytesPerSecond(), report.nextSeq(), now());
    }

    /**
     * The client asked for {@code requestId} at {@code timeMillis}: counted, and a state of its own
     * for an application that predicts from requests. A {@code miss} (the client had no block of
     * it) makes its fetches go ahead of every speculative fetch until a block of it is written. An
     * id out of range closes the session.
     */
    void onRequest(long timeMillis, int requestId, boolean miss) {
        if (stopped) {
            return;
        }
        int n = application.guardedSource().requestCount();
        if (requestId >= n) {
            port.close(ErrorCode.INVALID_MESSAGE, "request " + requestId + " out of range [0, " + n + ")");
            return;
        }
        counters.requestReceived();
        if (miss) {
            fetcher.demand(requestId);
        }
        if (active && application.predictFromRequests()) {
            onState(timeMillis, ControlCodec.mapper().createObjectNode().put("request", requestId));
        }
    }

    // ---------------------------------------------------------------- port events

    /** The port is writable again: the sender goes on. */
    void onWritable() {
        pump();
    }

    /** A wake asked for with {@link PushPort#wakeAt} is due. */
    void onWake() {
        pump();
    }

    /** A scheduler job's result, on the controller's thread. */
    void onResult(Result r) {
        plan.jobEnded();
        queuedJob = null;
        if (!active) {
            return;
        }
        counters.chunkPlanned(r.nanos());
        if (r.job().state() != null || r.job().scope() != null) {
            budget.record(r.nanos()); // what the client's messages cost: decoding them and re-planning
        }
        long turnaround = now() - jobSubmittedNanos;
        ewmaTurnaroundNanos = ewmaTurnaroundNanos == 0 ? turnaround
                : (1 - EWMA) * ewmaTurnaroundNanos + EWMA * turnaround;
        if (r.error() != null) {
            port.close(r.error(), r.message());
            return;
        }
        if (r.installed() != null) {
            distribution = r.installed();
        }
        if (r.rebind() != null && !r.rebind().isEmpty()) {
            // Before any block of the new generations: those are only ever planned by this job or later ones.
            port.writeControl(r.rebind());
        }
        if (r.replanFrom() >= 0) {
            counters.replanned(r.job().stateArrivalNanos() >= 0 ? r.replanFrom() - r.job().stateArrivalSeq() : -1);
        }
        boolean appended = plan.apply(r.chunk(), r.replanFrom(), r.job().maxBlocks(), r.job().stateArrivalNanos(),
                r.annotation(), now());
        if (appended) {
            fetches.appended(r.chunk().firstSeq());
        }
        pump();
    }

    @Override
    public void fetched(Slot s, Block b) {
        recordFetched(s, b);
        pump();
    }

    @Override
    public void fetchedNow(Slot s, Block b) {
        recordFetched(s, b);
    }

    @Override
    public void retryIn(long delayNanos) {
        port.wakeAt(now() + Math.max(0, delayNanos));
    }

    /** A fetch ended while the plan may be being walked: recorded only; whoever walks it sends it. */
    private void recordFetched(Slot s, Block b) {
        if (b != null) {
            plan.fetched(s, b);
        }
    }

    // ---------------------------------------------------------------- decisions

    /**
     * Slots the sender will still write from the old plan while a re-plan is computed: enough to
     * cover a job's recent turnaround, so the sender rarely waits, and few, so that a new
     * distribution shows within a few blocks.
     */
    int replanMargin() {
        // The slots a job's turnaround (executor queue, job, hand-back) covers keep the link busy while
        // it runs; they cost the state no delay, as they go out on credit once the new plan is ready.
        long m = (long) Math.ceil(ewmaTurnaroundNanos / pace.slotNanos());
        return (int) Math.max(0, Math.min(MAX_REPLAN_MARGIN, m));
    }

    /** How many planned blocks to fetch ahead of the sender now (see {@link FetchAhead#window}). */
    int fetchWindow() {
        return fetches.window(pace.slotNanos(), replanMargin());
    }

    /**
     * If this session's job is queued but has not started, withdraws it so that the job for the
     * newest state or scope takes its place: it re-plans from no later than the withdrawn job
     * would have (its cut is at most that one's), and a withdrawn re-plan's turn in the queue
     * passes to it. Whatever the withdrawn job carried and nothing newer replaces (a scope when a
     * state arrives, or the reverse) goes back to pending, so no scope or state is lost.
     */
    private void replaceQueuedJob() {
        if (!plan.jobRunning() || queuedJob == null) {
            return;
        }
        long order = port.withdraw();
        if (order == PushPort.NOT_WITHDRAWN) {
            return;
        }
        plan.jobEnded();
        if (order >= 0) {
            inheritedOrder = order;
        }
        Job withdrawn = queuedJob;
        queuedJob = null;
        fetches.restoreTold(withdrawn.toldCounts());
        if (pendingState == null && withdrawn.state() != null) {
            pendingState = withdrawn.state();
        }
        if (pendingScope == null && withdrawn.scope() != null) {
            pendingScope = withdrawn.scope();
        }
    }

    /** Starts the next scheduler job if none is running and one is due. */
    private void maybeSchedule() {
        if (!active || plan.jobRunning()) {
            return;
        }
        if (pendingScope != null && !port.isWritable()) {
            // Rebind messages are written whatever the water marks: apply a scope only while the
            // client reads, so at most one scope's rebinds sit in the outbound buffer. Writability
            // coming back pumps, which asks again.
            return;
        }
        long t = now();
        Plan.Decision d = plan.decide(t, distribution != null, inheritedOrder >= 0, budget.gapNanos());
        if (!d.starts()) {
            if (d.wakeAtNanos() != Long.MAX_VALUE) {
                port.wakeAt(d.wakeAtNanos());
            }
            return;
        }
        long[] told = fetches.drainTold();
        Job job;
        if (d.kind() == Plan.JobKind.REPLAN) {
            job = new Job(pendingState, distribution, d.replanFrom(), pace.estimatedSlotMillis(), d.maxBlocks(), d.arrivalNanos(),
                    d.arrivalSeq(), pendingScope, told);
            pendingState = null;
            pendingScope = null;
        } else {
            job = new Job(null, distribution, d.replanFrom(), pace.estimatedSlotMillis(), d.maxBlocks(), -1, -1, null, told);
        }
        jobSubmittedNanos = t;
        boolean replan = job.replanFrom() >= 0;
        queuedJob = job;
        long order = replan ? inheritedOrder : -1;
        inheritedOrder = -1;
        if (!port.submit(job, replan, order)) {
            // Only during shutdown: the queue holds at most one task per session.
            plan.jobEnded();
            queuedJob = null;
            port.close(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    private void startFetches() {
        fetches.start(fetchWindow());
    }

    /** Writes ready blocks in order while the port is writable and the pacer allows, then plans if due. */
    private void pump() {
        if (!active) {
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
            if (!port.isWritable()) {
                port.blocked();
                break;
            }
            // The first block of a state's plan and the old ones before it go out on credit (see
            // Plan#sendsOnCredit); the debt (at most the re-plan margin and one frame) is repaid by
            // the next blocks' waits.
            long wait = plan.sendsOnCredit(s)
                    ? pace.acquireOnCredit((double) (MAX_REPLAN_MARGIN + 1) * frameBytes, now())
                    : pace.acquire(now());
            if (wait > 0) {
                port.wakeAt(now() + wait);
                break;
            }
            if (s.seq != plan.nextSeq()) {
                port.close(ErrorCode.INTERNAL_ERROR, "plan out of step with the ring: slot " + s.seq
                        + " at sequence number " + plan.nextSeq());
                return;
            }
            long seq = s.seq;
            int generation = s.generation;
            fetcher.answered(s.requestId);
            port.write(seq, plan.takeHead(), generation);
            pace.sent(seq, now());
            counters.blockWritten(frameBytes);
            long delay = plan.written(seq, now());
            if (delay >= 0) {
                counters.replanDelay(delay);
            }
            wrote = true;
            startFetches();
        }
        if (wrote) {
            port.flush();
        }
        maybeSchedule();
    }
}
