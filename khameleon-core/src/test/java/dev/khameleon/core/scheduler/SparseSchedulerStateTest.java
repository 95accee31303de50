package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.ScheduleChunk;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The greedy scheduler's per-request state in sparse tables (issue 27): the same schedules as the
 * arrays of {@code n} give until the first restart of the permutation, the exact distribution after
 * it, and memory for the touched requests rather than for all of them.
 */
class SparseSchedulerStateTest {
    private static final int N = 3000;
    private static final int C = 200;

    /** A fixed, deterministic backend: two fetches in flight, every seventh request being fetched. */
    private static final BackendLoad BUSY = new BackendLoad() {
        @Override
        public int inFlight() {
            return 2;
        }

        @Override
        public boolean isFetching(int requestId) {
            return requestId % 7 == 0;
        }
    };

    static Stream<Arguments> configs() {
        IntFunction<SchedulerConfig.Builder> base = seed -> SchedulerConfig.builder().cacheBlocks(C).requestCount(N)
                .seed(seed).utility(TestInstances.power(0.5));
        return Stream.of(
                Arguments.of("uniform counts", base.apply(1).blocksPerRequest(4).build()),
                Arguments.of("per-request counts (a layout)", base.apply(2).blockCounts(i -> 1 + i % 3 + (i % 11 == 0 ? 5 : 0)).build()),
                Arguments.of("lazy counts told", base.apply(3).blockCounts(i -> 1 + i % 4).lazyBlockCounts(i -> i % 5 == 0).build()),
                Arguments.of("backend concurrency", base.apply(4).blocksPerRequest(3).backendConcurrency(5, BUSY).build()),
                Arguments.of("max gain", base.apply(5).blockCounts(i -> 1 + i % 3).selection(Selection.MAX_GAIN).build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void sparseTables_planExactlyWhatArraysPlan_untilThePermutationRestarts(String name, SchedulerConfig config) {
        GreedyScheduler dense = new GreedyScheduler(config, false);
        GreedyScheduler sparse = new GreedyScheduler(config, true);
        SplittableRandom rng = new SplittableRandom(name.hashCode());
        // Three batches: the permutation's changed positions stay below the restart threshold.
        while (sparse.nextSeq() < 3L * C) {
            step(rng, config, dense, sparse);
        }
        assertEquals(0, sparse.compactions(), "the premise: no restart within three batches");
        assertArrayEquals(dense.nextSlotProbabilities(), sparse.nextSlotProbabilities());
    }

    /** One random step, the same on both: a re-plan, a chunk, an invalidation or a told count. */
    private static void step(SplittableRandom rng, SchedulerConfig config, GreedyScheduler a, GreedyScheduler b) {
        int action = rng.nextInt(10);
        if (action < 3 || a.distribution == null) {
            Distribution d = TestInstances.randomDistribution(rng, N, 40);
            long from = a.oldestReplannableSeq() + rng.nextLong(a.nextSeq() - a.oldestReplannableSeq() + 1);
            a.replan(d, from, 2.0);
            b.replan(d, from, 2.0);
        } else if (action == 3) {
            int[] ids = rng.ints(5, 0, N).toArray();
            a.invalidate(ids);
            b.invalidate(ids);
        } else if (action == 4 && config.lazyBlockCounts() > 0) {
            int id = 5 * rng.nextInt(N / 5);
            int count = rng.nextInt(config.blockCount(id) + 1);
            try {
                a.blockCountKnown(id, count);
            } catch (IllegalArgumentException e) {
                return; // a count may only change to 0: skip on both
            }
            b.blockCountKnown(id, count);
        } else {
            int k = 1 + rng.nextInt(150);
            ScheduleChunk ca = a.next(k);
            ScheduleChunk cb = b.next(k);
            assertEquals(ca.firstSeq(), cb.firstSeq());
            assertArrayEquals(plan(ca), plan(cb), "chunk at " + ca.firstSeq());
        }
    }

    /** A chunk's request ids and then its block indexes. */
    private static int[] plan(ScheduleChunk chunk) {
        int[] p = new int[2 * chunk.size()];
        for (int k = 0; k < chunk.size(); k++) {
            p[k] = chunk.requestId(k);
            p[chunk.size() + k] = chunk.blockIndex(k);
        }
        return p;
    }

    @Test
    void sparseTables_keepTheExactDistribution_acrossRestarts() {
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(C).requestCount(N).seed(9)
                .blockCounts(i -> 1 + i % 3).utility(TestInstances.power(0.5)).build();
        GreedyScheduler sparse = new GreedyScheduler(config, true);
        GreedyScheduler dense = new GreedyScheduler(config, false);
        SplittableRandom rng = new SplittableRandom(21);
        Distribution d = null;
        for (int round = 0; round < 400; round++) {
            if (round % 3 == 0) {
                d = spread(rng);
                long from = sparse.nextSeq();
                sparse.replan(d, from, 2.0);
                dense.replan(d, from, 2.0);
            }
            ScheduleChunk chunk = sparse.next(1 + rng.nextInt(100));
            for (int k = 0; k < chunk.size(); k++) {
                dense.planNext(chunk.requestId(k));
            }
        }
        assertTrue(sparse.compactions() > 0, "the permutation restarted");
        double[] expected = dense.nextSlotProbabilities();
        assertArrayEquals(expected, sparse.nextSlotProbabilities());
        // The draws of the restarted permutation: an id not untouched, or untouched ones unevenly.
        int t = (int) (sparse.nextSeq() % C);
        int draws = 200_000;
        long[] observed = new long[N];
        for (int r = 0; r < draws; r++) {
            observed[sparse.sample(t)]++;
        }
        double[] test = ChiSquare.goodnessOfFit(observed, expected, draws);
        assertTrue(test[0] < ChiSquare.critical((int) test[1]), "chi-square " + test[0] + " with " + (int) test[1]
                + " df exceeds " + ChiSquare.critical((int) test[1]));
    }

    /** A few explicit ids and a large residual: most draws come from the untouched permutation. */
    private static Distribution spread(SplittableRandom rng) {
        Distribution.Builder b = Distribution.builder(N, TestInstances.HORIZONS);
        for (int j = 0; j < TestInstances.HORIZONS.length; j++) {
            for (int id : rng.ints(0, N).distinct().limit(10).toArray()) {
                b.explicit(j, id, 0.02);
            }
            b.residual(j, 0.8);
        }
        return b.build();
    }

    @Test
    void sparseScheduler_atAMillionRequests_holdsIntsForItsTouchedRequestsOnly() {
        int n = 1_000_000;
        int c = 5000;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(c).requestCount(n).blocksPerRequest(50).seed(4)
                .build();
        GreedyScheduler s = (GreedyScheduler) Schedulers.greedy(config);
        assertTrue(s.requestStateInts() <= 256, "as built: " + s.requestStateInts() + " ints");
        assertTrue(new GreedyScheduler(config, false).requestStateInts() >= 4L * n, "arrays hold 4 ints per request");
        s.replan(Distribution.uniform(n, Horizons.defaults().toArray()), 0, 1.0);
        long peak = 0;
        for (int batch = 0; batch < 40; batch++) {
            for (int planned = 0; planned < c; ) {
                planned += s.next(100).size();
            }
            peak = Math.max(peak, s.requestStateInts());
            if (batch == 0) {
                // About 2 changed positions per touched request in the permutation and its inverse,
                // 1 touched index each, at most 4/3 · 2 ints per entry after the tables double.
                assertTrue(peak <= 24L * c, "after one batch: " + peak + " ints");
                assertEquals(0, s.compactions(), "the first batch plans exactly what arrays would");
            }
        }
        assertTrue(s.compactions() > 0, "the permutation restarted");
        assertTrue(peak <= 64L * c, "over 40 batches: " + peak + " ints, " + s.compactions() + " restarts");
    }
}
