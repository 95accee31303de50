package dev.khameleon.core.testkit;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every {@link Scheduler} promises (see its javadoc): chunks start at {@code nextSeq()} and
 * advance it; nothing is planned before a distribution; within a batch of {@code C} slots a
 * request gets each of its blocks at most once and in order, and only requests with probability
 * get blocks; a re-plan keeps every slot before its {@code fromSeq}; bad arguments are refused;
 * and, for a scheduler that takes block counts told lazily ({@link #lazilyCountedScheduler}), no
 * block at or past a told count is planned.
 */
public abstract class SchedulerContract {
    /** Horizons used by the distributions of this kit. */
    protected static final long[] HORIZONS = {50, 150, 250, 500};

    /**
     * A fresh scheduler for {@code requestCount} requests of {@code blocksPerRequest} blocks each
     * and a cache of {@code cacheBlocks} blocks.
     */
    protected abstract Scheduler scheduler(int requestCount, int blocksPerRequest, int cacheBlocks);

    /**
     * A fresh scheduler like {@link #scheduler}, in which every request's count {@code bound} is
     * only an upper bound, to be told with {@link Scheduler#blockCountKnown}; or null (the default)
     * if the scheduler does not take counts told lazily, which skips those checks.
     */
    protected Scheduler lazilyCountedScheduler(int requestCount, int bound, int cacheBlocks) {
        return null;
    }

    @Test
    void toldBlockCounts_areNeverExceeded_andTheLinkStaysBusy() {
        int n = 30;
        int bound = 6;
        int cache = 60;
        Scheduler s = lazilyCountedScheduler(n, bound, cache);
        assumeTrue(s != null, "this scheduler does not take block counts told lazily (lazilyCountedScheduler is null)");
        s.replan(Distribution.uniform(n, HORIZONS), 0, 10);
        ScheduleChunk first = s.next(10);
        for (int id = 0; id < n; id++) {
            s.blockCountKnown(id, 1 + id % bound);
        }
        s.replan(Distribution.uniform(n, HORIZONS), first.endSeq() / 2, 10);
        for (int batch = 0; batch < 3; batch++) {
            ScheduleChunk c = s.next(cache - (int) (s.nextSeq() % cache));
            assertEquals(cache - c.firstSeq() % cache, c.size(), "the told blocks (105 per batch) fill the batch");
            for (int k = 0; k < c.size(); k++) {
                int id = c.requestId(k);
                assertTrue(c.blockIndex(k) < 1 + id % bound, "block " + c.blockIndex(k) + " of request " + id
                        + ", which has " + (1 + id % bound));
            }
        }
    }

    @Test
    void nothingIsPlanned_beforeADistribution() {
        Scheduler s = scheduler(10, 4, 20);
        ScheduleChunk c = s.next(8);
        assertTrue(c.isEmpty(), "planned without a distribution: " + c);
        assertEquals(0, s.nextSeq());
        assertEquals(20, s.cacheBlocks());
    }

    @Test
    void chunks_startAtNextSeqAndAdvanceIt_withinTheirLimit() {
        Scheduler s = scheduler(50, 5, 40);
        s.replan(Distribution.uniform(50, HORIZONS), 0, 10);
        long expected = 0;
        for (int round = 0; round < 20; round++) {
            int max = 1 + round % 7;
            ScheduleChunk c = s.next(max);
            assertEquals(expected, c.firstSeq(), "a chunk starts where the last one ended");
            assertTrue(c.size() <= max, "chunk of " + c.size() + " for a limit of " + max);
            expected += c.size();
            assertEquals(expected, s.nextSeq());
        }
        assertTrue(expected > 0, "a uniform distribution over 50 requests plans something");
    }

    @Test
    void aBatch_givesEachRequestItsBlocksAtMostOnceAndInOrder_andOnlyToLikelyRequests() {
        int n = 30;
        int blocks = 6;
        int cache = 48;
        Scheduler s = scheduler(n, blocks, cache);
        SplittableRandom rnd = new SplittableRandom(5);
        Distribution.Builder b = Distribution.builder(n, HORIZONS);
        double[] p = {0.5, 0.3, 0.15, 0.05};
        int[] likely = {3, 17, 8, 25};
        for (int j = 0; j < HORIZONS.length; j++) {
            for (int k = 0; k < likely.length; k++) {
                b.explicit(j, likely[k], p[k]);
            }
        }
        s.replan(b.build(), 0, 10);
        Map<Integer, Integer> nextIndex = new HashMap<>();
        long seq = 0;
        while (seq < cache) {
            ScheduleChunk c = s.next(1 + rnd.nextInt(9));
            if (c.isEmpty()) {
                break;
            }
            for (int k = 0; k < c.size(); k++) {
                int id = c.requestId(k);
                assertTrue(id == 3 || id == 17 || id == 8 || id == 25, "request " + id + " has no probability");
                int expectedIndex = nextIndex.getOrDefault(id, 0);
                assertEquals(expectedIndex, c.blockIndex(k), "blocks of request " + id + " in order, each once");
                assertTrue(c.blockIndex(k) < blocks);
                nextIndex.put(id, expectedIndex + 1);
            }
            seq = c.endSeq();
        }
        assertEquals(blocks, nextIndex.getOrDefault(3, 0), "the likeliest request is planned whole");
    }

    @Test
    void replan_keepsTheSlotsBeforeFromSeq_andPlansAgainFromThere() {
        Scheduler s = scheduler(20, 4, 40);
        s.replan(Distribution.point(20, 2, HORIZONS), 0, 10);
        ScheduleChunk first = s.next(6);
        assertEquals(0, first.firstSeq());
        assertTrue(first.size() >= 4, "a point distribution plans its request's blocks: " + first);
        for (int k = 0; k < 4; k++) {
            assertEquals(2, first.requestId(k));
        }
        long from = first.endSeq() - 1;
        s.replan(Distribution.point(20, 9, HORIZONS), from, 10);
        assertEquals(from, s.nextSeq(), "planning continues at the re-plan's first slot");
        ScheduleChunk next = s.next(4);
        assertEquals(from, next.firstSeq());
        assertTrue(next.size() >= 1);
        assertEquals(9, next.requestId(0), "the new distribution takes effect at fromSeq");
    }

    @Test
    void badArguments_areRefused() {
        Scheduler s = scheduler(10, 3, 12);
        assertThrows(IllegalArgumentException.class, () -> s.replan(Distribution.uniform(11, HORIZONS), 0, 10),
                "a distribution over another number of requests");
        assertThrows(IllegalArgumentException.class, () -> s.replan(Distribution.uniform(10, HORIZONS), 0, 0),
                "slotMillis 0");
        assertThrows(IllegalArgumentException.class, () -> s.replan(Distribution.uniform(10, HORIZONS), 1, 10),
                "fromSeq beyond nextSeq()");
    }
}
