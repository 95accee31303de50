package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Block counts told lazily ({@link SchedulerConfig.Builder#lazyBlockCounts},
 * {@link Scheduler#blockCountKnown}): a request is planned on its bound until its exact count is
 * told, then never at or past that count, while the link keeps carrying other requests' blocks.
 */
class LazyBlockCountTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;
    private static final int BOUND = 8;
    private static final int N = 20;
    private static final int C = 100;

    /** All mass on request 0 of {@code n}. */
    private static Distribution pointOnZero(int n) {
        Distribution.Builder b = Distribution.builder(n, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            b.explicit(j, 0, 0.9).residual(j, 0.1);
        }
        return b.build();
    }

    /** Twenty requests of at most {@link #BOUND} blocks, every count told lazily. */
    private static Scheduler lazyScheduler(Function<SchedulerConfig, Scheduler> factory) {
        return factory.apply(SchedulerConfig.builder().cacheBlocks(C).requestCount(N).blocksPerRequest(BOUND)
                .lazyBlockCounts(i -> true).selection(Selection.MAX_GAIN).build());
    }

    private static int[] blockIndices(ScheduleChunk chunk, int requestId) {
        return IntStream.range(0, chunk.size()).filter(k -> chunk.requestId(k) == requestId)
                .map(chunk::blockIndex).toArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void countToldBeforePlanning_requestGetsExactlyItsBlocks(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = lazyScheduler(factory);
        s.replan(pointOnZero(N), 0, 1.0);
        ScheduleChunk first = s.next(1);
        assertEquals(0, first.requestId(0));
        assertEquals(0, first.blockIndex(0));
        s.blockCountKnown(0, 3);
        ScheduleChunk rest = s.next(30);
        assertArrayEquals(new int[] {1, 2}, blockIndices(rest, 0), "blocks 1 and 2 of request 0, nothing past its count");
        assertEquals(30, rest.size(), "the link does not idle: the other requests fill the chunk");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void countToldAfterPlanningOnTheBound_replanTakesTheExtraBlocksBack(String name,
                                                                       Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = lazyScheduler(factory);
        Distribution d = pointOnZero(N);
        s.replan(d, 0, 1.0);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, blockIndices(s.next(8), 0), "planned on the bound");
        s.blockCountKnown(0, 3);
        s.replan(d, 3, 1.0);
        ScheduleChunk again = s.next(40);
        assertEquals(0, blockIndices(again, 0).length, "blocks 3.. of request 0 do not exist");
        assertEquals(40, again.size(), "the link does not idle");
        // Into the next batch: the request gets its three blocks again, and no more.
        s.next(C - (int) s.nextSeq());
        assertArrayEquals(new int[] {0, 1, 2}, blockIndices(s.next(C), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void droppedRequest_isNeverPlannedAgain(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = lazyScheduler(factory);
        Distribution d = pointOnZero(N);
        s.replan(d, 0, 1.0);
        s.next(2);
        s.blockCountKnown(0, 2);
        s.blockCountKnown(0, 0);
        s.replan(d, 1, 1.0);
        ScheduleChunk rest = s.next(C - 1);
        assertEquals(C - 1, rest.size(), "the others' blocks (19 × 8) fill the batch");
        assertArrayEquals(new int[0], blockIndices(rest, 0), "request 0 is not planned again once dropped");
        ScheduleChunk nextBatch = s.next(C);
        assertEquals(C, nextBatch.size());
        assertArrayEquals(new int[0], blockIndices(nextBatch, 0), "nor in the next batch");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void blockCountKnown_rejectsBadCounts(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = lazyScheduler(factory);
        assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(1, BOUND + 1), "above the bound");
        assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(1, -1));
        assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(N, 1), "id out of range");
        s.blockCountKnown(1, 4);
        s.blockCountKnown(1, 4);
        IllegalArgumentException changed = assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(1, 5));
        assertTrue(changed.getMessage().contains("was told to have 4 blocks, now 5"), changed.getMessage());
        s.blockCountKnown(1, 0);
        assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(1, 4), "a dropped request stays dropped");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void exactCounts_acceptOnlyThemselves(String name, Function<SchedulerConfig, Scheduler> factory) {
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(10).requestCount(4).blocksPerRequest(3)
                .lazyBlockCounts(i -> i == 2).build();
        assertEquals(1, config.lazyBlockCounts());
        assertTrue(config.isBlockCountBound(2));
        assertFalse(config.isBlockCountBound(1));
        Scheduler s = factory.apply(config);
        s.blockCountKnown(1, 3);
        assertThrows(IllegalArgumentException.class, () -> s.blockCountKnown(1, 2), "request 1 has exactly 3 blocks");
        s.blockCountKnown(2, 2);
    }

    @Test
    void configWithoutLazyRequests_countsNone() {
        SchedulerConfig none = SchedulerConfig.builder().cacheBlocks(10).requestCount(4).lazyBlockCounts(i -> false)
                .build();
        assertEquals(0, none.lazyBlockCounts());
        assertEquals(0, SchedulerConfig.builder().cacheBlocks(10).requestCount(4).build().lazyBlockCounts());
        assertThrows(NullPointerException.class, () -> SchedulerConfig.builder().lazyBlockCounts(null));
    }

    /**
     * The fast scheduler's exactness survives told counts: with counts told at random moments
     * (below, at and above what was planned, drops included), its probability for the next slot
     * equals the reference's for every request, through batches and re-plans; under
     * {@code MAX_GAIN} both pick the same request.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void greedy_matchesReferenceWithToldCounts(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int n = 100 + rng.nextInt(100);
        int cache = 30 + rng.nextInt(40);
        SchedulerConfig.Builder b = SchedulerConfig.builder().cacheBlocks(cache).requestCount(n)
                .blockCounts(i -> 1 + (i * 7) % 9).lazyBlockCounts(i -> i % 3 != 0)
                .utility(TestInstances.randomConcaveUtility(rng)).seed(seed);
        BatchScheduler fast = (BatchScheduler) Schedulers.greedy(b.build());
        BatchScheduler ref = (BatchScheduler) Schedulers.reference(b.build());
        b.selection(Selection.MAX_GAIN);
        BatchScheduler fastMax = (BatchScheduler) Schedulers.greedy(b.build());
        Scheduler refMax = Schedulers.reference(b.build());
        SchedulerConfig config = b.build();
        Distribution d = TestInstances.randomDistribution(rng, n, 20);
        for (Scheduler s : new Scheduler[] {fast, ref, fastMax, refMax}) {
            s.replan(d, 0, 20.0);
        }
        int told = 0;
        while (fast.nextSeq() < 4L * cache) {
            if (rng.nextInt(4) == 0) {
                int id = rng.nextInt(n);
                if (config.isBlockCountBound(id)) {
                    int count = rng.nextInt(config.blockCount(id) + 1);
                    try {
                        fast.blockCountKnown(id, count);
                    } catch (IllegalArgumentException changed) {
                        count = 0;
                        fast.blockCountKnown(id, count);
                    }
                    ref.blockCountKnown(id, count);
                    fastMax.blockCountKnown(id, count);
                    refMax.blockCountKnown(id, count);
                    told++;
                }
            }
            if (rng.nextInt(20) == 0) {
                long from = Math.max(fast.oldestReplannableSeq(), fast.nextSeq() - rng.nextInt(8));
                d = TestInstances.randomDistribution(rng, n, 20);
                fast.replan(d, from, 20.0);
                ref.replan(d, from, 20.0);
                long fromMax = Math.max(fastMax.oldestReplannableSeq(), fastMax.nextSeq() - rng.nextInt(8));
                fastMax.replan(d, fromMax, 20.0);
                refMax.replan(d, fromMax, 20.0);
            }
            double[] pr = ref.nextSlotProbabilities();
            assertArrayEquals(pr, fast.nextSlotProbabilities(), 1e-9, "slot " + fast.nextSeq());
            ScheduleChunk chunk = fast.next(1);
            if (chunk.isEmpty()) {
                assertEquals(0.0, Arrays.stream(pr).sum(), "fast stopped while the reference had weight");
                break;
            }
            assertEquals(ref.planNext(chunk.requestId(0)), chunk.blockIndex(0));
            ScheduleChunk a = fastMax.next(1);
            ScheduleChunk r = refMax.next(1);
            assertEquals(r.size(), a.size());
            if (a.size() == 1) {
                assertEquals(r.requestId(0), a.requestId(0), "MAX_GAIN at slot " + a.firstSeq());
                assertEquals(r.blockIndex(0), a.blockIndex(0));
            }
        }
        assertTrue(told > cache / 2, "told only " + told + " counts");
    }

    /**
     * The fast scheduler's draw itself, not only its weights, follows the exact slot probabilities
     * once counts are told: requests in learned classes, touched ones and dropped ones included
     * (chi-square at {@link ChiSquare#ALPHA}, fixed seeds).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void greedy_drawsTheExactSlotDistributionWithToldCounts(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int n = 60;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(200).requestCount(n).blocksPerRequest(BOUND)
                .lazyBlockCounts(i -> i % 4 != 0).seed(seed).build();
        BatchScheduler fast = (BatchScheduler) Schedulers.greedy(config);
        Distribution.Builder b = Distribution.builder(n, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            b.explicit(j, 1, 0.2).explicit(j, 2, 0.1).residual(j, 0.7);
        }
        fast.replan(b.build(), 0, 5.0);
        fast.next(25);
        for (int id = 0; id < n; id++) {
            if (config.isBlockCountBound(id) && rng.nextInt(3) > 0) {
                fast.blockCountKnown(id, rng.nextInt(4) == 0 ? 0 : 1 + rng.nextInt(BOUND));
            }
        }
        fast.next(15);
        double[] p = fast.nextSlotProbabilities();
        int t = (int) (fast.nextSeq() % config.cacheBlocks());
        long draws = 200_000;
        long[] observed = new long[n];
        for (long k = 0; k < draws; k++) {
            observed[fast.sample(t)]++;
        }
        double[] fit = ChiSquare.goodnessOfFit(observed, p, draws);
        assertTrue(fit[0] < ChiSquare.critical((int) fit[1]), "chi-square " + fit[0] + " with " + fit[1] + " df");
    }
}
