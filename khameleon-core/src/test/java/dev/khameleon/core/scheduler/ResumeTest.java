package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Scheduler#resume}: a fresh scheduler given a client's ring continues as the scheduler
 * that planned that ring would have, and refuses a ring it could not have planned without
 * changing.
 */
class ResumeTest {
    private static final int C = 40;
    private static final int N = 30;
    private static final int BLOCKS = 6;

    private static SchedulerConfig config(Selection selection, long seed) {
        return SchedulerConfig.builder().cacheBlocks(C).requestCount(N).blocksPerRequest(BLOCKS).chunkSize(16)
                .selection(selection).seed(seed).build();
    }

    /** Plans {@code slots} slots with {@code d} and returns every (request, block) planned, in order. */
    private static List<int[]> plan(Scheduler s, Distribution d, int slots) {
        List<int[]> out = new ArrayList<>();
        while (out.size() < slots) {
            ScheduleChunk c = s.next(Math.min(16, slots - out.size()));
            if (c.isEmpty()) {
                throw new AssertionError("the scheduler stopped planning at " + out.size());
            }
            for (int k = 0; k < c.size(); k++) {
                out.add(new int[] {c.requestId(k), c.blockIndex(k)});
            }
        }
        return out;
    }

    /** The ring a client holds after {@code planned}: the last min(n, C) slots' ids and blocks. */
    private static int[][] ring(List<int[]> planned) {
        int n = planned.size();
        int slots = Math.min(n, C);
        int[] ids = new int[slots];
        int[] blocks = new int[slots];
        for (int k = 0; k < slots; k++) {
            int[] p = planned.get(n - slots + k);
            ids[k] = p[0];
            blocks[k] = p[1];
        }
        return new int[][] {ids, blocks};
    }

    @ParameterizedTest(name = "nextSeq {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 7, 40, 53, 80, 117})
    void resume_maxGain_plansExactlyWhatTheOriginalWouldHave(int nextSeq) {
        SplittableRandom rng = new SplittableRandom(nextSeq);
        Distribution d = TestInstances.randomDistribution(rng, N, 8);
        Scheduler original = Schedulers.greedy(config(Selection.MAX_GAIN, 1));
        original.replan(d, 0, 2.0);
        List<int[]> before = nextSeq == 0 ? List.of() : plan(original, d, nextSeq);
        Distribution next = TestInstances.randomDistribution(rng, N, 8);
        original.replan(next, nextSeq, 2.0);
        List<int[]> expected = plan(original, next, 2 * C);

        Scheduler resumed = Schedulers.greedy(config(Selection.MAX_GAIN, 99));
        int[][] ring = ring(before);
        assertTrue(resumed.resume(nextSeq, ring[0], ring[1]));
        assertEquals(nextSeq, resumed.nextSeq());
        resumed.replan(next, nextSeq, 2.0);
        List<int[]> actual = plan(resumed, next, 2 * C);
        for (int k = 0; k < expected.size(); k++) {
            assertArrayEquals(expected.get(k), actual.get(k), "slot " + (nextSeq + k));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void resume_neverRepeatsABlockOfTheCurrentBatch(String name, Function<SchedulerConfig, Scheduler> factory) {
        SplittableRandom rng = new SplittableRandom(5);
        Distribution d = TestInstances.randomDistribution(rng, N, 5);
        Scheduler original = factory.apply(config(Selection.SAMPLE, 3));
        original.replan(d, 0, 2.0);
        int nextSeq = C + 25;
        List<int[]> before = plan(original, d, nextSeq);
        Scheduler resumed = factory.apply(config(Selection.SAMPLE, 4));
        int[][] ring = ring(before);
        assertTrue(resumed.resume(nextSeq, ring[0], ring[1]));
        resumed.replan(d, nextSeq, 2.0);
        List<int[]> after = plan(resumed, d, C - 25);
        Set<Long> batch = new HashSet<>();
        for (int s = C; s < nextSeq; s++) {
            batch.add(key(before.get(s)));
        }
        for (int[] p : after) {
            assertTrue(batch.add(key(p)), "request " + p[0] + " block " + p[1] + " planned twice in one batch");
        }
    }

    private static long key(int[] p) {
        return ((long) p[0] << 32) | p[1];
    }

    @Test
    void resume_refusesARingItCouldNotHavePlanned_andStaysFresh() {
        Scheduler s = Schedulers.greedy(config(Selection.SAMPLE, 1));
        // 45 = one batch of 40 and 5 slots: the last 5 must give each request blocks 0, 1, 2, … in order.
        int[] ids = new int[C];
        int[] blocks = new int[C];
        java.util.Arrays.fill(ids, -1);
        ids[C - 2] = 3;
        blocks[C - 2] = 1;
        assertThrows(IllegalArgumentException.class, () -> s.resume(45, ids, blocks), "block 1 before block 0");
        ids[C - 2] = N;
        blocks[C - 2] = 0;
        assertThrows(IllegalArgumentException.class, () -> s.resume(45, ids, blocks), "request out of range");
        ids[C - 2] = 3;
        blocks[C - 2] = BLOCKS;
        ids[0] = 2;
        blocks[0] = BLOCKS;
        assertThrows(IllegalArgumentException.class, () -> s.resume(45, ids, blocks), "block beyond the count");
        assertThrows(IllegalArgumentException.class, () -> s.resume(45, new int[3], new int[3]), "wrong slot count");
        assertEquals(0, s.nextSeq(), "a refused resume leaves the scheduler fresh");
        blocks[0] = 0;
        blocks[C - 2] = 0;
        assertTrue(s.resume(45, ids, blocks));
        assertThrows(IllegalStateException.class, () -> s.resume(45, ids, blocks), "only before planning");
    }

    @Test
    void resume_defaultIsUnsupported() {
        Scheduler custom = new Scheduler() {
            @Override
            public void replan(Distribution distribution, long fromSeq, double slotMillis) {
            }

            @Override
            public ScheduleChunk next(int maxBlocks) {
                return ScheduleChunk.empty(0);
            }

            @Override
            public long nextSeq() {
                return 0;
            }

            @Override
            public int cacheBlocks() {
                return C;
            }
        };
        assertFalse(custom.resume(0, new int[0], new int[0]));
    }
}
