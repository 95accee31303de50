package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One session's plan of upcoming slots and the bookkeeping that decides when and from where the
 * scheduler re-plans: the planned slots, the cut past which nothing may be sent, the room a job may
 * fill, dropping a plan's tail, and the back-offs after failed fetches and empty chunks. Knows no
 * channel, clock or executor: times are passed in, so every invariant can be tested on its own.
 *
 * <p><b>Ring model.</b> {@link #nextSeq()} is the number of block frames written: the next frame
 * carries it, and the client puts it in slot {@code nextSeq mod C}. The scheduler plans slots by
 * the same numbers. A planned block whose fetch fails is never written: the plan from that slot on
 * is dropped and re-planned from the same sequence number, so the scheduler's model of the ring
 * stays equal to what was actually written. No job plans past {@code nextSeq + C}
 * ({@link #roomFrom}), so every re-plan the plan asks for is one the scheduler can still do.
 *
 * <p><b>Threading.</b> Confined to the session's event loop; {@link #nextSeq()} may be read from
 * any thread (for metrics).
 */
final class Plan {
    static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_FAILURE_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_IDLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** Where a slot's block is. */
    enum SlotState { NEW, FETCHING, READY, FAILED, DROPPED }

    /** One planned slot: block {@code blockIndex} of {@code requestId} goes out with sequence number {@code seq}. */
    static final class Slot {
        final long seq;
        final int requestId;
        final int blockIndex;
        /** What the block answers: the content key and binding generation of its request when planned. */
        long contentKey;
        int generation;
        SlotState state = SlotState.NEW;
        Block block;
        /** When the fetch started, on the server's clock. */
        long fetchStartNanos;

        Slot(long seq, int requestId, int blockIndex) {
            this.seq = seq;
            this.requestId = requestId;
            this.blockIndex = blockIndex;
            this.contentKey = requestId;
        }
    }

    /** What kind of scheduler job {@link #decide} started. */
    enum JobKind {
        /** Re-plan for a new state or scope, from {@link #cutForReplan}'s slot. */
        REPLAN,
        /** The first plan, from the application's initial distribution. */
        INITIAL,
        /** Re-plan from a skipped block, after the failure back-off. */
        RETRY,
        /** Plan ahead from where the scheduler stopped. */
        REFILL
    }

    /**
     * A decision of {@link #decide}: start a job of {@code kind} that re-plans from
     * {@code replanFrom} (-1: plans ahead without re-planning) and plans at most {@code maxBlocks}
     * slots; or ({@code kind} null) start nothing and ask again at {@code wakeAtNanos}
     * ({@link Long#MAX_VALUE}: only when something changes). For a {@code REPLAN},
     * {@code arrivalNanos} and {@code arrivalSeq} are when the state or scope that caused it
     * arrived and the sequence number the sender was at then; -1 otherwise.
     */
    record Decision(JobKind kind, long replanFrom, int maxBlocks, long wakeAtNanos, long arrivalNanos,
                    long arrivalSeq) {
        static final Decision NOTHING = new Decision(null, -1, 0, Long.MAX_VALUE, -1, -1);

        static Decision wakeAt(long atNanos) {
            return new Decision(null, -1, 0, atNanos, -1, -1);
        }

        /** Whether a job is to start. */
        boolean starts() {
            return kind != null;
        }
    }

    private final int cacheBlocks;
    private final int chunkSize;
    private final long stateIntervalNanos;
    /** Told about each slot dropped while its fetch runs, so that the fetch is ended. */
    private final Consumer<Slot> abandonFetch;

    private final ArrayDeque<Slot> planned = new ArrayDeque<>();
    /** Written by this plan's thread only; volatile for metrics. */
    private volatile long nextSeq;
    private long plannedEnd;
    /**
     * The scheduler's {@code nextSeq()} after the last job: ahead of {@link #plannedEnd} when a
     * chunk was discarded because the plan was cut meanwhile.
     */
    private long schedulerSeq;
    private long cut = Long.MAX_VALUE;

    private boolean jobRunning;
    private long runningFrom = -1;
    private boolean replanPending;
    private long pendingFrom;
    private long pendingArrivalNanos = -1;
    private long pendingArrivalSeq = -1;
    private boolean initialPlanDue;
    private boolean stateJobStarted;
    private long lastStateJobNanos;

    private long failureFrom = -1;
    private long failureRetryAtNanos;
    private long failureBackoffNanos = MIN_BACKOFF_NANOS;
    private long idleRetryAtNanos;
    private long idleBackoffNanos = MIN_BACKOFF_NANOS;

    private long reflectFromSeq = -1;
    private boolean reflectReady;
    private long reflectArrivalNanos;

    /**
     * @param cacheBlocks        {@code C}, the client's ring size in blocks
     * @param chunkSize          the most slots one job plans
     * @param stateIntervalNanos the least time between two re-plans for states or scopes
     * @param abandonFetch       called for each slot dropped while fetching, after its state became
     *                           {@link SlotState#DROPPED}
     */
    Plan(int cacheBlocks, int chunkSize, long stateIntervalNanos, Consumer<Slot> abandonFetch) {
        if (cacheBlocks < 1 || chunkSize < 1 || stateIntervalNanos < 0) {
            throw new IllegalArgumentException("cacheBlocks " + cacheBlocks + " and chunkSize " + chunkSize
                    + " must be positive, stateIntervalNanos " + stateIntervalNanos + " not negative");
        }
        this.cacheBlocks = cacheBlocks;
        this.chunkSize = chunkSize;
        this.stateIntervalNanos = stateIntervalNanos;
        this.abandonFetch = abandonFetch;
    }

    /**
     * Starts this new plan at sequence number {@code seq} instead of 0: a resumed session whose
     * client's ring (and the scheduler's model of it) already holds the frames before it.
     *
     * @throws IllegalStateException if anything was planned or written already
     */
    void startAt(long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0, was " + seq);
        }
        if (nextSeq != 0 || plannedEnd != 0 || schedulerSeq != 0 || jobRunning || !planned.isEmpty()) {
            throw new IllegalStateException("a plan can only start at another sequence number before any job");
        }
        nextSeq = seq;
        plannedEnd = seq;
        schedulerSeq = seq;
    }

    /** Block frames written; the sequence number of the next one. Any thread. */
    long nextSeq() {
        return nextSeq;
    }

    /** One past the last planned slot. */
    long plannedEnd() {
        return plannedEnd;
    }

    /** Slots at or after the cut may not be sent: a re-plan from there is running or due. */
    long cut() {
        return cut;
    }

    /** The number of planned slots not yet written. */
    int plannedCount() {
        return planned.size();
    }

    /** Whether a job is running (or queued) for this plan. */
    boolean jobRunning() {
        return jobRunning;
    }

    /** Whether a state or scope awaits its re-plan. */
    boolean replanPending() {
        return replanPending;
    }

    // ---------------------------------------------------------------- sending

    /** The first planned slot if it is before the cut, else null. */
    Slot head() {
        Slot s = planned.peekFirst();
        return s == null || s.seq >= cut ? null : s;
    }

    /**
     * Offers {@code start} the slots still to be fetched among the first {@code window} planned
     * slots before the cut, in order, until it returns false.
     */
    void forEachToFetch(int window, Predicate<Slot> start) {
        int examined = 0;
        for (Iterator<Slot> it = planned.iterator(); it.hasNext() && examined < window; examined++) {
            Slot s = it.next();
            if (s.seq >= cut) {
                break;
            }
            if (s.state == SlotState.NEW && !start.test(s)) {
                break;
            }
        }
    }

    /**
     * The fetch of {@code s} succeeded with {@code b}: the slot is ready to be written.
     */
    void fetched(Slot s, Block b) {
        s.state = SlotState.READY;
        s.block = b;
        if (s.seq == reflectFromSeq) {
            reflectReady = true;
        }
    }

    /**
     * Whether {@code s} may go out at once, on credit: once the first block of a state's plan is
     * ready, it and the old blocks before it are not held back by the pace, which would add up to
     * a slot to the state's delay.
     */
    boolean sendsOnCredit(Slot s) {
        return reflectReady && s.seq <= reflectFromSeq;
    }

    /**
     * Takes the head slot out to be written as frame {@link #nextSeq()}.
     *
     * @return the slot's block
     * @throws IllegalStateException if the head slot is not ready or not the next in the ring
     */
    Block takeHead() {
        Slot s = head();
        if (s == null || s.state != SlotState.READY) {
            throw new IllegalStateException("no ready slot before the cut");
        }
        if (s.seq != nextSeq) {
            throw new IllegalStateException("plan out of step with the ring: slot " + s.seq
                    + " at sequence number " + nextSeq);
        }
        planned.pollFirst();
        Block b = s.block;
        s.block = null;
        return b;
    }

    /**
     * The frame for slot {@code seq} taken by {@link #takeHead} is written at {@code nowNanos}.
     *
     * @return the time from the arrival of the state whose plan this slot starts to now, if it is
     *         the first block written from that plan; -1 otherwise
     */
    long written(long seq, long nowNanos) {
        nextSeq = seq + 1;
        failureBackoffNanos = MIN_BACKOFF_NANOS;
        if (reflectFromSeq >= 0 && seq >= reflectFromSeq) {
            reflectFromSeq = -1;
            reflectReady = false;
            return nowNanos - reflectArrivalNanos;
        }
        return -1;
    }

    /**
     * The head slot's fetch failed at {@code nowNanos}: skip it without using its sequence number,
     * and re-plan from there after the failure back-off.
     */
    void skip(Slot s, long nowNanos) {
        dropFrom(s.seq);
        failureFrom = failureFrom >= 0 ? Math.min(failureFrom, s.seq) : s.seq;
        recomputeCut();
        failureRetryAtNanos = nowNanos + failureBackoffNanos;
        failureBackoffNanos = Math.min(MAX_FAILURE_BACKOFF_NANOS, failureBackoffNanos * 2);
    }

    /**
     * Drops the plan from the first slot at or after {@code fromSeq} that {@code invalid} accepts
     * (a block that turned out not to exist: its request's count, told lazily, is below its index)
     * and re-plans from there as soon as no job runs, without the failure back-off: nothing failed.
     *
     * @return whether such a slot was found
     */
    boolean replanFromFirst(long fromSeq, Predicate<Slot> invalid) {
        for (Slot s : planned) {
            if (s.seq >= fromSeq && invalid.test(s)) {
                long seq = s.seq;
                dropFrom(seq);
                if (failureFrom < 0) {
                    failureRetryAtNanos = 0;
                    failureFrom = seq;
                } else {
                    failureFrom = Math.min(failureFrom, seq);
                }
                recomputeCut();
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- re-plan bookkeeping

    /** The application has an initial distribution: plan from it before any state arrives. */
    void requestInitialPlan() {
        initialPlanDue = true;
    }

    /**
     * A new state or scope arrived at {@code nowNanos}: unless a re-plan is already pending, stop
     * the old plan {@code margin} slots from the sender at once, even if a job is running, so that
     * the state shows within those few slots whatever the scheduler is doing meanwhile. Several
     * states before their job starts share one re-plan.
     */
    void cutForReplan(int margin, long nowNanos) {
        if (!replanPending) {
            pendingFrom = Math.min(nextSeq + margin, plannedEnd);
            pendingArrivalNanos = nowNanos;
            pendingArrivalSeq = nextSeq;
            replanPending = true;
            dropFrom(pendingFrom);
            recomputeCut();
        }
    }

    /**
     * Decides at {@code nowNanos} whether to start a job and which; a started job is running from
     * then until {@link #jobEnded()}.
     *
     * @param hasDistribution whether the session has a distribution to plan ahead with
     * @param intervalExempt  whether a re-plan may start within the state interval (it replaces a
     *                        withdrawn one, so it adds no re-plan)
     * @param replanGapNanos  the session's own least time between re-plans ({@link ReplanBudget}),
     *                        which applies where it exceeds the state interval
     */
    Decision decide(long nowNanos, boolean hasDistribution, boolean intervalExempt, long replanGapNanos) {
        if (jobRunning) {
            return Decision.NOTHING;
        }
        Decision d;
        if (replanPending) {
            long earliest = lastStateJobNanos + Math.max(stateIntervalNanos, replanGapNanos);
            if (stateJobStarted && nowNanos < earliest && !intervalExempt) {
                // States come faster than the interval: the newest one waits and replaces any before it.
                return Decision.wakeAt(earliest);
            }
            stateJobStarted = true;
            lastStateJobNanos = nowNanos;
            long from = Math.min(pendingFrom, plannedEnd);
            dropFrom(from);
            if (failureFrom >= from) {
                failureFrom = -1;
            }
            initialPlanDue = false;
            replanPending = false;
            d = new Decision(JobKind.REPLAN, from, roomFrom(from), 0, pendingArrivalNanos, pendingArrivalSeq);
        } else if (initialPlanDue) {
            initialPlanDue = false;
            d = new Decision(JobKind.INITIAL, nextSeq, roomFrom(nextSeq), 0, -1, -1);
        } else if (failureFrom >= 0) {
            if (nowNanos < failureRetryAtNanos) {
                return Decision.wakeAt(failureRetryAtNanos);
            }
            d = new Decision(JobKind.RETRY, failureFrom, roomFrom(failureFrom), 0, -1, -1);
            failureFrom = -1;
        } else if (hasDistribution && plannedEnd - nextSeq < chunkSize
                && roomFrom(schedulerSeq) >= Math.max(1, Math.min(chunkSize, cacheBlocks / 2))) {
            // The refill threshold keeps jobs to at least half a ring when C < chunkSize, instead of
            // one job per written block.
            if (nowNanos < idleRetryAtNanos) {
                return Decision.wakeAt(idleRetryAtNanos);
            }
            d = new Decision(JobKind.REFILL, -1, roomFrom(schedulerSeq), 0, -1, -1);
        } else {
            return Decision.NOTHING;
        }
        jobRunning = true;
        runningFrom = d.replanFrom();
        recomputeCut();
        return d;
    }

    /**
     * The job {@link #decide} started ended without a chunk to apply (it failed, was withdrawn
     * before it ran, or could not be queued), or before {@link #apply}.
     */
    void jobEnded() {
        jobRunning = false;
        runningFrom = -1;
        recomputeCut();
    }

    /**
     * Applies a job's chunk at {@code nowNanos}, after {@link #jobEnded()}: appends its slots if it
     * continues the plan before the cut, else discards it (the plan was cut meanwhile and the
     * re-plan due from the cut supersedes it). A job that could plan but returned nothing backs
     * refills off, doubling up to half a second.
     *
     * @param replanFrom  where the job re-planned from, -1 if it did not
     * @param maxBlocks   the most slots the job was allowed to plan
     * @param arrivalNanos for a re-plan caused by a state or scope, when that arrived; -1 otherwise
     * @param annotation  what each slot answers, for an application with a request scope; else null
     * @return whether the chunk's slots were appended
     */
    boolean apply(ScheduleChunk c, long replanFrom, int maxBlocks, long arrivalNanos,
                  BindingTable.Annotation annotation, long nowNanos) {
        schedulerSeq = c.endSeq();
        if (replanFrom >= 0 && arrivalNanos >= 0) {
            reflectFromSeq = replanFrom;
            reflectReady = false;
            reflectArrivalNanos = arrivalNanos;
        }
        if (c.isEmpty() && maxBlocks > 0) {
            idleRetryAtNanos = nowNanos + idleBackoffNanos;
            idleBackoffNanos = Math.min(MAX_IDLE_BACKOFF_NANOS, idleBackoffNanos * 2);
            return false;
        }
        if (c.isEmpty() || c.firstSeq() != plannedEnd || c.firstSeq() >= cut) {
            return false;
        }
        for (int k = 0; k < c.size(); k++) {
            Slot slot = new Slot(c.firstSeq() + k, c.requestId(k), c.blockIndex(k));
            if (annotation != null) {
                slot.contentKey = annotation.contentKeys()[k];
                slot.generation = annotation.generations()[k];
            }
            planned.addLast(slot);
        }
        plannedEnd = c.endSeq();
        idleBackoffNanos = MIN_BACKOFF_NANOS;
        idleRetryAtNanos = 0;
        return true;
    }

    /** The session stops: drops every slot (ending their fetches) and forgets any pending re-plan. */
    void clear() {
        dropFrom(Long.MIN_VALUE);
        replanPending = false;
    }

    /**
     * How many slots a job whose planning starts at {@code startSeq} may plan: a chunk, but never
     * past {@code nextSeq + C}.
     *
     * <p>This is what keeps every re-plan possible. The scheduler can re-plan from any slot at
     * least {@code C} below the highest slot it ever planned (it keeps the log of the current and
     * the previous batch), and the plan only re-plans from the sender's position or later. So no
     * job may plan a slot more than {@code C} past the sender: with a chunk larger than the ring,
     * planning two chunks ahead did, and the next state or failed fetch then asked for a re-plan
     * the scheduler could no longer do. Blocks planned that far ahead would also land in ring
     * slots the client still uses for blocks planned before them.
     */
    int roomFrom(long startSeq) {
        long room = nextSeq + cacheBlocks - startSeq;
        return (int) Math.max(0, Math.min(chunkSize, room));
    }

    private void recomputeCut() {
        long c = Long.MAX_VALUE;
        if (jobRunning && runningFrom >= 0) {
            c = runningFrom;
        }
        if (replanPending) {
            c = Math.min(c, pendingFrom);
        }
        if (failureFrom >= 0) {
            c = Math.min(c, failureFrom);
        }
        cut = c;
    }

    /** Drops every planned slot with {@code seq >= from}, ending their fetches. */
    private void dropFrom(long from) {
        while (!planned.isEmpty() && planned.peekLast().seq >= from) {
            Slot s = planned.pollLast();
            boolean fetching = s.state == SlotState.FETCHING;
            s.state = SlotState.DROPPED;
            s.block = null;
            if (fetching) {
                abandonFetch.accept(s);
            }
        }
        plannedEnd = Math.min(plannedEnd, Math.max(from, nextSeq));
    }
}
