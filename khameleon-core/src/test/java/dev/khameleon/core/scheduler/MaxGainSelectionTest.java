package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Selection#MAX_GAIN}: the fast scheduler takes exactly the reference's request in every
 * slot, that request has the largest gain with ties to the lowest id, and the guarantees of
 * the default rule (block counts, batches, re-plans, backend limit) still hold.
 */
class MaxGainSelectionTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;

    private static SchedulerConfig.Builder maxGain(int cache, int n) {
        return SchedulerConfig.builder().cacheBlocks(cache).requestCount(n).selection(Selection.MAX_GAIN);
    }

    /** Explicit, mostly-residual or all-residual, so every part of the fast scheduler can win a slot. */
    private static Distribution randomDistribution(SplittableRandom rng, int n) {
        return switch (rng.nextInt(4)) {
            case 0 -> Distribution.uniform(n, HORIZONS);
            case 1 -> TestInstances.randomDistribution(rng, n, 3);
            default -> TestInstances.randomDistribution(rng, n, 30);
        };
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void maxGain_fastEqualsReferenceSlotForSlotAcrossBatchesAndReplans(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        // Few requests exhaust the untouched residual ids within a batch, so touched ones must win.
        boolean few = seed % 3 == 0;
        int n = few ? 5 + rng.nextInt(20) : 50 + rng.nextInt(250);
        int cache = 20 + rng.nextInt(60);
        int classes = 1 + rng.nextInt(5);
        int minBlocks = few ? 4 : 1;
        double discount = rng.nextBoolean() ? 1.0 : 0.9 + 0.1 * rng.nextDouble();
        UtilityFunction utility = rng.nextInt(3) == 0 ? UtilityFunction.linear() : TestInstances.randomConcaveUtility(rng);
        SchedulerConfig.Builder builder = maxGain(cache, n).blockCounts(i -> minBlocks + (i * 7) % classes)
                .utility(utility).discount(discount).seed(seed);
        if (seed % 2 == 0) {
            // Both see the same stateless backend: one query in flight, every 7th request being fetched.
            builder.backendConcurrency(3, new BackendLoad() {
                @Override
                public int inFlight() {
                    return 1;
                }

                @Override
                public boolean isFetching(int requestId) {
                    return requestId % 7 == 0;
                }
            });
        }
        SchedulerConfig config = builder.build();
        Scheduler fast = Schedulers.greedy(config);
        Scheduler ref = Schedulers.reference(config);
        Distribution d = randomDistribution(rng, n);
        fast.replan(d, 0, 20.0);
        ref.replan(d, 0, 20.0);
        int planned = 0;
        // Bounded: a batch that runs out of blocks stops early and only a rewind plans again.
        for (int step = 0; step < 400 && fast.nextSeq() < 4L * cache; step++) {
            int ask = 1 + rng.nextInt(20);
            ScheduleChunk a = fast.next(ask);
            ScheduleChunk b = ref.next(ask);
            assertEquals(b.firstSeq(), a.firstSeq());
            assertArrayEquals(ids(b), ids(a), "slots from " + a.firstSeq());
            assertArrayEquals(blocks(b), blocks(a), "slots from " + a.firstSeq());
            for (int k = 0; k < a.size(); k++) {
                int id = a.requestId(k);
                assertTrue(a.blockIndex(k) < config.blockCount(id), "request " + id + " got more blocks than it has");
            }
            planned += a.size();
            if (a.isEmpty() || rng.nextInt(6) == 0) {
                // Mostly short rewinds, sometimes into the previous batch.
                int back = rng.nextInt(5) == 0 ? rng.nextInt(cache) : rng.nextInt(8);
                long from = Math.max(((BatchScheduler) fast).oldestReplannableSeq(), fast.nextSeq() - back);
                double slotMillis = 5 + 40 * rng.nextDouble();
                d = randomDistribution(rng, n);
                fast.replan(d, from, slotMillis);
                ref.replan(d, from, slotMillis);
            }
        }
        assertTrue(planned >= cache, "planned only " + planned + " slots");
    }

    /** Checked against the exact gains ({@link BatchScheduler#nextSlotProbabilities}), not against {@code best}. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void maxGain_takesALargestGainEverySlotWithTiesToTheLowestId(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int n = 40 + rng.nextInt(60);
        int cache = 30;
        SchedulerConfig config = maxGain(cache, n).blockCounts(i -> 1 + i % 4)
                .utility(TestInstances.randomConcaveUtility(rng)).build();
        BatchScheduler fast = (BatchScheduler) Schedulers.greedy(config);
        BatchScheduler ref = (BatchScheduler) Schedulers.reference(config);
        Distribution d = randomDistribution(rng, n);
        fast.replan(d, 0, 15.0);
        ref.replan(d, 0, 15.0);
        int checked = 0;
        while (fast.nextSeq() < 3L * cache) {
            double[] p = ref.nextSlotProbabilities();
            ScheduleChunk chunk = fast.next(1);
            if (chunk.isEmpty()) {
                assertEquals(0.0, Arrays.stream(p).max().orElse(0), "stopped while some request had a gain");
                d = randomDistribution(rng, n);
                fast.replan(d, fast.nextSeq(), 15.0);
                ref.replan(d, ref.nextSeq(), 15.0);
                continue;
            }
            int id = chunk.requestId(0);
            double max = Arrays.stream(p).max().orElseThrow();
            assertEquals(max, p[id], max * 1e-9, "slot " + chunk.firstSeq() + " took a smaller gain");
            for (int i = 0; i < id; i++) {
                assertTrue(p[i] < max * (1 - 1e-9), "request " + i + " ties with the larger id " + id);
            }
            ref.planNext(id);
            checked++;
        }
        assertTrue(checked >= 2 * cache, "checked only " + checked + " slots");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void maxGain_uniformDistribution_takesRequestsInIdOrder(String name, Function<SchedulerConfig, Scheduler> factory) {
        // Linear utility: every block of every request has the same gain, so request 0 takes both
        // its blocks before request 1 starts.
        Scheduler linear = factory.apply(maxGain(30, 10).blocksPerRequest(2).build());
        linear.replan(Distribution.uniform(10, HORIZONS), 0, 10.0);
        ScheduleChunk chunk = linear.next(30);
        assertEquals(20, chunk.size(), "10 requests of 2 blocks, then the batch is exhausted");
        for (int k = 0; k < 20; k++) {
            assertEquals(k / 2, chunk.requestId(k));
            assertEquals(k % 2, chunk.blockIndex(k));
        }
        // Concave utility: a first block beats a second, so every request gets one block first.
        Scheduler concave = factory.apply(maxGain(30, 10).blocksPerRequest(2).utility(TestInstances.power(0.5)).build());
        concave.replan(Distribution.uniform(10, HORIZONS), 0, 10.0);
        chunk = concave.next(30);
        assertEquals(20, chunk.size());
        for (int k = 0; k < 20; k++) {
            assertEquals(k % 10, chunk.requestId(k));
            assertEquals(k / 10, chunk.blockIndex(k));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void maxGain_pointDistribution_yieldsItsBlocksFirst(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler scheduler = factory.apply(maxGain(50, 20).blocksPerRequest(5).build());
        TestInstances.assertPointRequestBlocksFirst(scheduler);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void maxGain_doesNotDependOnTheSeed(String name, Function<SchedulerConfig, Scheduler> factory) {
        Distribution d = TestInstances.randomDistribution(new SplittableRandom(5), 60, 20);
        int[][] schedules = new int[2][];
        for (int s = 0; s < 2; s++) {
            Scheduler scheduler = factory.apply(maxGain(40, 60).blockCounts(i -> 1 + i % 3)
                    .utility(TestInstances.power(0.6)).seed(100 + s).build());
            scheduler.replan(d, 0, 12.0);
            schedules[s] = ids(scheduler.next(100));
        }
        assertTrue(schedules[0].length > 40, "planned across a batch boundary");
        assertArrayEquals(schedules[0], schedules[1]);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void maxGain_withBackendLimit_endsTheChunkWhileTheBestRequestIsNotAdmitted(
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
        Scheduler s = factory.apply(maxGain(100, 10).blocksPerRequest(50).backendConcurrency(4, load).build());
        // Request 5 is the best but the backend is saturated and not fetching it.
        s.replan(Distribution.point(10, 5, HORIZONS), 0, 10.0);
        assertTrue(s.next(10).isEmpty(), "a saturated backend admits no new request");
        // Request 2 is being fetched, so it may always be planned.
        s.replan(Distribution.point(10, 2, HORIZONS), 0, 10.0);
        assertArrayEquals(new int[] {2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, ids(s.next(10)));
        // One free backend slot: request 5 is admitted, and it stays the best.
        inFlight[0] = 3;
        s.replan(Distribution.point(10, 5, HORIZONS), s.nextSeq(), 10.0);
        assertArrayEquals(new int[] {5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, ids(s.next(10)));
        // Uniform with a linear utility: every gain ties and request 0, the lowest id, is the one
        // new request the budget admits; it keeps the largest gain for the whole chunk.
        s.replan(Distribution.uniform(10, HORIZONS), s.nextSeq(), 10.0);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ids(s.next(10)));
        // Saturated again: request 0 stays the best but is no longer in the chunk or being fetched.
        inFlight[0] = 4;
        assertTrue(s.next(10).isEmpty(), "the best request is not admitted, so the chunk ends");
    }

    private static int[] ids(ScheduleChunk c) {
        int[] out = new int[c.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = c.requestId(k);
        }
        return out;
    }

    private static int[] blocks(ScheduleChunk c) {
        int[] out = new int[c.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = c.blockIndex(k);
        }
        return out;
    }
}
