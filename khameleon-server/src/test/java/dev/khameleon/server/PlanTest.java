package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.server.Plan.Decision;
import dev.khameleon.server.Plan.JobKind;
import dev.khameleon.server.Plan.Slot;
import dev.khameleon.server.Plan.SlotState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plan's bookkeeping on its own: slots, cut, room, drops, back-offs and which job runs next. */
class PlanTest {
    private static final long INTERVAL = TimeUnit.MILLISECONDS.toNanos(10);

    private final List<Slot> abandoned = new ArrayList<>();

    private Plan plan(int cacheBlocks, int chunkSize) {
        return new Plan(cacheBlocks, chunkSize, INTERVAL, abandoned::add);
    }

    private static ScheduleChunk chunk(long first, int n) {
        int[] ids = new int[n];
        int[] idx = new int[n];
        for (int k = 0; k < n; k++) {
            ids[k] = k;
        }
        return ScheduleChunk.of(first, ids, idx);
    }

    /** Starts the initial job and applies its chunk of {@code n} slots from 0. */
    private static void planInitial(Plan p, int n) {
        p.requestInitialPlan();
        Decision d = p.decide(0, true, false, 0);
        assertEquals(JobKind.INITIAL, d.kind());
        p.jobEnded();
        assertTrue(p.apply(chunk(0, n), -1, d.maxBlocks(), -1, null, 0));
    }

    /** Makes every slot ready and writes the first {@code n}. */
    private static void writeHead(Plan p, int n) {
        for (int k = 0; k < n; k++) {
            Slot s = p.head();
            p.fetched(s, Block.of(s.requestId, 0, 1, new byte[4], 0));
            p.takeHead();
            p.written(s.seq, 0);
        }
    }

    @Test
    void constructor_rejectsNonPositiveSizes() {
        assertThrows(IllegalArgumentException.class, () -> plan(0, 4));
        assertThrows(IllegalArgumentException.class, () -> plan(4, 0));
        assertThrows(IllegalArgumentException.class, () -> new Plan(4, 4, -1, s -> { }));
    }

    @Test
    void roomFrom_neverPlansPastTheRing() {
        Plan p = plan(8, 5);
        assertEquals(5, p.roomFrom(0), "a chunk when the ring has room");
        assertEquals(2, p.roomFrom(6), "only up to nextSeq + C");
        assertEquals(0, p.roomFrom(9), "nothing past the ring");
    }

    @Test
    void decide_startsNothingWithoutDistributionOrCause() {
        Plan p = plan(8, 4);
        assertFalse(p.decide(0, false, false, 0).starts());
        assertEquals(Long.MAX_VALUE, p.decide(0, false, false, 0).wakeAtNanos());
    }

    @Test
    void decide_refillsFromWhereTheSchedulerStopped() {
        Plan p = plan(16, 4);
        planInitial(p, 4);
        writeHead(p, 2);
        Decision d = p.decide(0, true, false, 0);
        assertEquals(JobKind.REFILL, d.kind());
        assertEquals(-1, d.replanFrom());
        assertEquals(4, d.maxBlocks());
        assertTrue(p.jobRunning());
        assertFalse(p.decide(0, true, false, 0).starts(), "one job at a time");
        assertEquals(Long.MAX_VALUE, p.cut(), "planning ahead cuts nothing");
    }

    @Test
    void cutForReplan_dropsTheTailAndCutsAtTheMargin() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        writeHead(p, 2);
        p.cutForReplan(3, 100);
        assertEquals(5, p.cut(), "nextSeq 2 + margin 3");
        assertEquals(5, p.plannedEnd());
        assertEquals(3, p.plannedCount());
        Decision d = p.decide(200, true, false, 0);
        assertEquals(JobKind.REPLAN, d.kind());
        assertEquals(5, d.replanFrom());
        assertEquals(100, d.arrivalNanos());
        assertEquals(2, d.arrivalSeq());
        assertEquals(5, p.cut(), "the running re-plan keeps the cut");
        assertFalse(p.replanPending());
    }

    @Test
    void cutForReplan_secondStateSharesThePendingReplan() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        p.cutForReplan(4, 0);
        writeHead(p, 3);
        p.cutForReplan(1, 50);
        assertEquals(4, p.cut(), "the first state's cut holds");
        assertEquals(0, p.decide(60, true, false, 0).arrivalNanos(), "the first arrival counts");
    }

    @Test
    void cutForReplan_endsFetchesOfDroppedSlots() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        List<Slot> fetching = new ArrayList<>();
        p.forEachToFetch(8, s -> {
            s.state = SlotState.FETCHING;
            fetching.add(s);
            return true;
        });
        assertEquals(8, fetching.size());
        p.cutForReplan(2, 0);
        assertEquals(6, abandoned.size(), "slots 2..7 were fetching");
        assertTrue(abandoned.stream().allMatch(s -> s.state == SlotState.DROPPED && s.seq >= 2));
    }

    @Test
    void forEachToFetch_stopsAtWindowCutAndRefusal() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        List<Long> seen = new ArrayList<>();
        p.forEachToFetch(3, s -> seen.add(s.seq));
        assertEquals(List.of(0L, 1L, 2L), seen, "the window");
        seen.clear();
        p.forEachToFetch(8, s -> seen.add(s.seq) && s.seq < 1);
        assertEquals(List.of(0L, 1L), seen, "stops at the first refusal");
        seen.clear();
        p.cutForReplan(2, 0);
        p.forEachToFetch(8, s -> seen.add(s.seq));
        assertEquals(List.of(0L, 1L), seen, "nothing at or past the cut");
    }

    @Test
    void decide_holdsStatesWithinTheInterval_unlessExempt() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        p.cutForReplan(2, 0);
        assertEquals(JobKind.REPLAN, p.decide(1000, true, false, 0).kind());
        p.jobEnded();
        p.cutForReplan(2, 1001);
        Decision held = p.decide(1002, true, false, 0);
        assertFalse(held.starts());
        assertEquals(1000 + INTERVAL, held.wakeAtNanos());
        assertEquals(JobKind.REPLAN, p.decide(1002, true, true, 0).kind(), "a replacement is not held");
    }

    @Test
    void decide_holdsStatesForTheSessionsOwnGap_whereItExceedsTheInterval() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        p.cutForReplan(2, 0);
        assertEquals(JobKind.REPLAN, p.decide(1000, true, false, 5 * INTERVAL).kind());
        p.jobEnded();
        p.cutForReplan(2, 1001);
        Decision held = p.decide(1000 + INTERVAL, true, false, 5 * INTERVAL);
        assertFalse(held.starts(), "past the state interval, within the session's gap");
        assertEquals(1000 + 5 * INTERVAL, held.wakeAtNanos());
        assertEquals(JobKind.REPLAN, p.decide(1000 + 5 * INTERVAL, true, false, 5 * INTERVAL).kind());
        p.jobEnded();
        p.cutForReplan(2, 1002 + 5 * INTERVAL);
        assertEquals(1000 + 6 * INTERVAL, p.decide(1001 + 5 * INTERVAL, true, false, INTERVAL / 2).wakeAtNanos(),
                "a gap below the interval: the interval holds");
    }

    @Test
    void apply_discardsAChunkThatNoLongerContinuesThePlan() {
        Plan p = plan(16, 4);
        planInitial(p, 3);
        Decision refill = p.decide(0, true, false, 0);
        assertEquals(JobKind.REFILL, refill.kind());
        p.cutForReplan(1, 0);
        p.jobEnded();
        assertFalse(p.apply(chunk(3, 4), -1, refill.maxBlocks(), -1, null, 0), "the plan was cut meanwhile");
        assertEquals(1, p.plannedEnd());
    }

    @Test
    void apply_emptyChunkBacksRefillsOff() {
        Plan p = plan(16, 4);
        planInitial(p, 4);
        writeHead(p, 4);
        Decision d = p.decide(0, true, false, 0);
        p.jobEnded();
        assertFalse(p.apply(ScheduleChunk.empty(4), -1, d.maxBlocks(), -1, null, 0));
        Decision wait = p.decide(1, true, false, 0);
        assertFalse(wait.starts());
        assertEquals(Plan.MIN_BACKOFF_NANOS, wait.wakeAtNanos());
        assertEquals(JobKind.REFILL, p.decide(Plan.MIN_BACKOFF_NANOS, true, false, 0).kind());
        p.jobEnded();
        p.apply(ScheduleChunk.empty(4), -1, 4, -1, null, Plan.MIN_BACKOFF_NANOS);
        assertEquals(3 * Plan.MIN_BACKOFF_NANOS, p.decide(0, true, false, 0).wakeAtNanos(), "the back-off doubles");
    }

    @Test
    void skip_replansFromTheFailedSlotAfterBackoff() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        writeHead(p, 1);
        Slot failed = p.head();
        failed.state = SlotState.FAILED;
        p.skip(failed, 1000);
        assertEquals(1, p.cut());
        assertEquals(1, p.plannedEnd());
        assertEquals(1, p.nextSeq(), "a skipped slot uses no sequence number");
        assertEquals(1000 + Plan.MIN_BACKOFF_NANOS, p.decide(1000, true, false, 0).wakeAtNanos());
        Decision retry = p.decide(1000 + Plan.MIN_BACKOFF_NANOS, true, false, 0);
        assertEquals(JobKind.RETRY, retry.kind());
        assertEquals(1, retry.replanFrom());
    }

    @Test
    void replanFromFirst_cutsAtTheFirstInvalidSlot_andReplansWithoutBackoff() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        writeHead(p, 1);
        assertFalse(p.replanFromFirst(0, s -> false), "nothing invalid: the plan stays");
        assertEquals(8, p.plannedEnd());
        // Slots 3 and 5 hold blocks that turned out not to exist: the plan is cut at the first.
        assertTrue(p.replanFromFirst(0, s -> s.seq == 3 || s.seq == 5));
        assertEquals(3, p.cut());
        assertEquals(3, p.plannedEnd());
        assertEquals(1, p.head().seq, "the slots before it stay");
        Decision retry = p.decide(0, true, false, 0);
        assertEquals(JobKind.RETRY, retry.kind(), "at once: nothing failed, so no back-off");
        assertEquals(3, retry.replanFrom());
    }

    @Test
    void takeHead_refusesASlotThatIsNotReady() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        assertThrows(IllegalStateException.class, p::takeHead);
    }

    @Test
    void written_reportsTheDelayOfTheFirstBlockOfAStatesPlan() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        p.cutForReplan(2, 100);
        Decision d = p.decide(200, true, false, 0);
        p.jobEnded();
        assertTrue(p.apply(chunk(2, 4), d.replanFrom(), d.maxBlocks(), d.arrivalNanos(), null, 300));
        Slot s0 = p.head();
        p.fetched(s0, Block.of(0, 0, 1, new byte[4], 0));
        assertFalse(p.sendsOnCredit(s0), "not before the state's first block is ready");
        List<Slot> toFetch = new ArrayList<>();
        p.forEachToFetch(8, toFetch::add);
        Slot first = toFetch.get(1);
        assertEquals(2, first.seq);
        p.fetched(first, Block.of(0, 0, 1, new byte[4], 0));
        assertTrue(p.sendsOnCredit(s0), "old blocks before it go on credit");
        p.takeHead();
        assertEquals(-1, p.written(0, 400));
        p.fetched(toFetch.get(0), Block.of(1, 0, 1, new byte[4], 0));
        p.takeHead();
        assertEquals(-1, p.written(1, 450));
        assertSame(first, p.head());
        p.takeHead();
        assertEquals(400, p.written(2, 500), "from the arrival at 100 to the write at 500");
        assertFalse(p.sendsOnCredit(p.head()));
    }

    @Test
    void clear_dropsEverythingAndForgetsThePendingReplan() {
        Plan p = plan(16, 8);
        planInitial(p, 8);
        p.cutForReplan(2, 0);
        p.clear();
        assertEquals(0, p.plannedCount());
        assertFalse(p.replanPending());
        assertNull(p.head());
    }
}
