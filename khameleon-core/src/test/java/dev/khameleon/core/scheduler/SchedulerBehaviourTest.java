package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour every greedy scheduler shares, checked on the fast one and the reference alike. */
class SchedulerBehaviourTest {
    static final long[] HORIZONS = {50, 150, 250, 500};

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void pointDistribution_yieldsRequestedBlocksFirst(String name, Function<SchedulerConfig, Scheduler> factory) {
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(50).requestCount(20)
                .blocksPerRequest(5).seed(1).build();
        Scheduler scheduler = factory.apply(config);
        TestInstances.assertPointRequestBlocksFirst(scheduler);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void schedule_neverGivesMoreBlocksThanARequestHas(String name, Function<SchedulerConfig, Scheduler> factory) {
        int[] counts = {1, 2, 3, 1, 4, 2, 1, 1, 5, 3};
        int cache = 40;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts).seed(3).build();
        Scheduler scheduler = factory.apply(config);
        scheduler.replan(Distribution.uniform(counts.length, HORIZONS), 0, 5.0);
        int[] given = new int[counts.length];
        long planned = 0;
        for (int round = 0; round < 20; round++) {
            ScheduleChunk chunk = scheduler.next(7);
            for (int k = 0; k < chunk.size(); k++) {
                long seq = chunk.firstSeq() + k;
                if (seq % cache == 0) {
                    java.util.Arrays.fill(given, 0);
                }
                int id = chunk.requestId(k);
                assertEquals(given[id], chunk.blockIndex(k), "blocks of a request come in order");
                given[id]++;
                assertTrue(given[id] <= counts[id], "request " + id + " got more than " + counts[id] + " blocks");
            }
            planned += chunk.size();
        }
        assertEquals(23, planned, "the batch ends once all 23 blocks are planned");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void batch_neverExceedsCacheSizeAndResetsAfterIt(String name, Function<SchedulerConfig, Scheduler> factory) {
        int cache = 6;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(cache).requestCount(3)
                .blocksPerRequest(10).seed(5).build();
        Scheduler scheduler = factory.apply(config);
        scheduler.replan(Distribution.uniform(3, HORIZONS), 0, 10.0);
        int[] perBatch = new int[7];
        int[][] given = new int[7][3];
        for (int round = 0; round < 10; round++) {
            ScheduleChunk chunk = scheduler.next(4);
            assertEquals(4, chunk.size(), "30 blocks of a uniform distribution never run out in a batch of 6");
            for (int k = 0; k < chunk.size(); k++) {
                int batch = (int) ((chunk.firstSeq() + k) / cache);
                int id = chunk.requestId(k);
                assertEquals(given[batch][id], chunk.blockIndex(k), "each batch starts every request at block 0");
                given[batch][id]++;
                perBatch[batch]++;
            }
        }
        for (int batch = 0; batch < 7; batch++) {
            assertTrue(perBatch[batch] <= cache, "batch " + batch + " has " + perBatch[batch] + " > C blocks");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void replan_neverChangesHandedOutSlotsAndContinuesTheBatchConsistently(
            String name, Function<SchedulerConfig, Scheduler> factory) {
        SplittableRandom rng = new SplittableRandom(11);
        int n = 30;
        int cache = 20;
        int[] counts = rng.ints(n, 1, 5).toArray();
        Scheduler scheduler = factory.apply(SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts).seed(2).build());
        scheduler.replan(TestInstances.randomDistribution(rng, n, 8), 0, 15.0);
        List<ScheduleChunk> sent = new ArrayList<>();
        long sentUpTo = 0;
        for (int round = 0; round < 60; round++) {
            ScheduleChunk chunk = scheduler.next(1 + rng.nextInt(7));
            if (!chunk.isEmpty()) {
                assertEquals(scheduler.nextSeq() - chunk.size(), chunk.firstSeq());
                // Only part of a chunk may have gone out before the next distribution arrives.
                long sendNow = chunk.firstSeq() + rng.nextInt(chunk.size() + 1);
                sent.add(prefix(chunk, (int) (sendNow - chunk.firstSeq())));
                sentUpTo = sendNow;
            }
            scheduler.replan(TestInstances.randomDistribution(rng, n, 8), sentUpTo, 5 + rng.nextInt(30));
            assertEquals(sentUpTo, scheduler.nextSeq(), "planning resumes at the re-plan position");
        }
        // What was sent is one gap-free sequence whose block indexes are consistent per batch.
        int[][] given = new int[(int) (sentUpTo / cache) + 1][n];
        long expectedSeq = 0;
        for (ScheduleChunk c : sent) {
            assertEquals(expectedSeq, c.firstSeq(), "sent slots are contiguous");
            for (int k = 0; k < c.size(); k++) {
                int batch = (int) ((c.firstSeq() + k) / cache);
                int id = c.requestId(k);
                assertEquals(given[batch][id], c.blockIndex(k), "re-plans keep the block order of sent slots");
                given[batch][id]++;
                assertTrue(given[batch][id] <= counts[id]);
            }
            expectedSeq = c.endSeq();
        }
        assertTrue(sentUpTo > 2 * cache, "the scenario should span several batches, sent " + sentUpTo);
    }

    private static ScheduleChunk prefix(ScheduleChunk c, int size) {
        int[] ids = new int[size];
        int[] blocks = new int[size];
        for (int k = 0; k < size; k++) {
            ids[k] = c.requestId(k);
            blocks[k] = c.blockIndex(k);
        }
        return ScheduleChunk.of(c.firstSeq(), ids, blocks);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void residual_isSharedPerRequestNotWeightedLikeOneRequest(String name, Function<SchedulerConfig, Scheduler> factory) {
        int n = 1000;
        // Request 0 holds half the mass, the other 999 share the other half.
        Distribution d = Distribution.builder(n, 100).explicit(0, 0, 0.5).residual(0, 0.5).build();
        BatchScheduler s = (BatchScheduler) factory.apply(SchedulerConfig.builder().cacheBlocks(10).requestCount(n).build());
        s.replan(d, 0, 10.0);
        double[] p = s.nextSlotProbabilities();
        assertEquals(0.5, p[0], 1e-12);
        assertEquals(0.5 / 999, p[1], 1e-12);
        assertEquals(0.5 / 999, p[998], 1e-12);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void allMassInResidual_behavesLikeUniformOverNonExplicitIds(String name, Function<SchedulerConfig, Scheduler> factory) {
        int n = 12;
        Distribution d = Distribution.builder(n, HORIZONS)
                .explicit(0, 3, 0.0).explicit(1, 3, 0.0).explicit(2, 3, 0.0).explicit(3, 3, 0.0)
                .explicit(0, 7, 0.0).explicit(1, 7, 0.0).explicit(2, 7, 0.0).explicit(3, 7, 0.0)
                .residual(0, 1).residual(1, 1).residual(2, 1).residual(3, 1).build();
        int runs = 20_000;
        long[] observed = new long[n];
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(3).requestCount(n).random(new SplittableRandom(4)).build();
        Scheduler s = factory.apply(config);
        for (int r = 0; r < runs; r++) {
            s.replan(d, s.nextSeq(), 10.0);
            observed[s.next(1).requestId(0)]++;
        }
        double[] expected = new double[n];
        Arrays.fill(expected, 1.0 / (n - 2));
        expected[3] = 0;
        expected[7] = 0;
        double[] test = ChiSquare.goodnessOfFit(observed, expected, runs);
        assertTrue(test[0] < ChiSquare.critical((int) test[1]), "chi-square " + test[0] + " for " + Arrays.toString(observed));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void timeMapping_paperRule_usesSlotTimeAndHoldsTheLastHorizon(String name, Function<SchedulerConfig, Scheduler> factory) {
        // Request 1 only matters before 50 ms, request 2 only at and after 500 ms.
        Distribution d = Distribution.builder(3, HORIZONS)
                .explicit(0, 1, 1.0).explicit(1, 0, 1.0).explicit(2, 0, 1.0).explicit(3, 2, 1.0).build();
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(50).requestCount(3).blocksPerRequest(100)
                .planningHorizonMillis(Double.POSITIVE_INFINITY).forecastFadeMillis(Double.POSITIVE_INFINITY).build();
        BatchScheduler slow = (BatchScheduler) factory.apply(config);
        slow.replan(d, 0, 1000.0);
        assertEquals(0.5 / 50, slow.nextSlotProbabilities()[1], 1e-12,
                "slot 0 is at 0 ms: half a trapezoid step of request 1 out of 50 slots");
        slow.next(1);
        double[] late = slow.nextSlotProbabilities();
        assertEquals(1.0, late[2], 1e-12, "slots 1.. are past 500 ms: all weight stays on the last horizon's request");
        BatchScheduler fast = (BatchScheduler) factory.apply(config);
        fast.replan(d, 0, 0.01);
        double[] early = fast.nextSlotProbabilities();
        assertEquals(1.0, early[1], 1e-12, "the whole batch lasts 0.5 ms, before the first horizon");
        // The same batch re-planned mid-way: its slots are timed from the new origin.
        fast.next(20);
        fast.replan(d, 20, 1000.0);
        fast.next(1);
        assertEquals(1.0, fast.nextSlotProbabilities()[2], 1e-12);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void backendConcurrency_limitsDistinctNewRequestsPerChunk(String name, Function<SchedulerConfig, Scheduler> factory) {
        int n = 50;
        Set<Integer> fetching = Set.of(4, 9);
        BackendLoad load = new BackendLoad() {
            @Override
            public int inFlight() {
                return 2;
            }

            @Override
            public boolean isFetching(int requestId) {
                return fetching.contains(requestId);
            }
        };
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(100).requestCount(n).blocksPerRequest(20)
                .backendConcurrency(5, load).seed(8).build();
        Scheduler s = factory.apply(config);
        s.replan(Distribution.uniform(n, HORIZONS), 0, 10.0);
        for (int round = 0; round < 10; round++) {
            ScheduleChunk chunk = s.next(10);
            assertFalse(chunk.isEmpty());
            Set<Integer> fresh = new HashSet<>();
            for (int k = 0; k < chunk.size(); k++) {
                int id = chunk.requestId(k);
                if (!fetching.contains(id)) {
                    fresh.add(id);
                }
            }
            assertTrue(fresh.size() <= 3, "Cb 5 - 2 busy allows 3 new requests per chunk, got " + fresh);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void backendConcurrency_saturatedBackendAdmitsOnlyRequestsBeingFetched(
            String name, Function<SchedulerConfig, Scheduler> factory) {
        int[] inFlight = {4};
        BackendLoad load = new BackendLoad() {
            @Override
            public int inFlight() {
                return inFlight[0];
            }

            @Override
            public boolean isFetching(int requestId) {
                return requestId == 2;
            }
        };
        // Held forecast: with a fade, request 2 would be likely too, by the uniform tail.
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(100).requestCount(10).blocksPerRequest(50)
                .backendConcurrency(4, load).forecastFadeMillis(Double.POSITIVE_INFINITY).seed(6).build();
        Scheduler s = factory.apply(config);
        // Only request 5 is likely: with Cb - busy = 0 and 5 not being fetched, nothing may be planned.
        s.replan(Distribution.point(10, 5, HORIZONS), 0, 10.0);
        assertTrue(s.next(10).isEmpty(), "a saturated backend admits no new request");
        // Request 2 is already being fetched, so it may always be planned.
        s.replan(Distribution.point(10, 2, HORIZONS), 0, 10.0);
        ScheduleChunk chunk = s.next(10);
        assertEquals(10, chunk.size());
        for (int k = 0; k < chunk.size(); k++) {
            assertEquals(2, chunk.requestId(k));
        }
        inFlight[0] = 3;
        s.replan(Distribution.point(10, 5, HORIZONS), s.nextSeq(), 10.0);
        assertEquals(10, s.next(10).size(), "one free backend slot admits request 5 again");
    }

    @org.junit.jupiter.api.Test
    void greedy_handlesAMillionRequests() {
        int n = 1_000_000;
        int cache = 5000;
        SplittableRandom rng = new SplittableRandom(9);
        Distribution.Builder b = Distribution.builder(n, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            int[] ids = rng.ints(0, n).distinct().limit(1000).toArray();
            for (int id : ids) {
                b.explicit(j, id, 0.5 / 1000);
            }
            b.residual(j, 0.5);
        }
        Scheduler s = Schedulers.greedy(SchedulerConfig.builder().cacheBlocks(cache).requestCount(n)
                .blocksPerRequest(10).seed(1).build());
        s.replan(b.build(), 0, 2.0);
        Set<Integer> distinct = new HashSet<>();
        int planned = 0;
        while (planned < 2 * cache) {
            int ask = planned == 0 ? 2500 : 100;
            ScheduleChunk c = s.next(ask);
            assertEquals(ask, c.size());
            for (int k = 0; k < c.size(); k++) {
                distinct.add(c.requestId(k));
            }
            planned += c.size();
        }
        assertEquals(2L * cache, s.nextSeq());
        // Half the mass is spread over ~10^6 residual ids: most residual draws hit a fresh id.
        assertTrue(distinct.size() > 2000, "only " + distinct.size() + " distinct requests");
    }
}
