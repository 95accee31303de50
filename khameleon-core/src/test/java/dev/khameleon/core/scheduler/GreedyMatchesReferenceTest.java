package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast scheduler draws from exactly the distribution of the paper's Listing 1: checked
 * against brute-force exact slot marginals, against the reference by chi-square, and slot by
 * slot on the exact probabilities both compute. Every chi-square test is per slot at
 * significance {@link ChiSquare#ALPHA} with fixed seeds, so the outcome is deterministic.
 */
class GreedyMatchesReferenceTest {
    private static final int RUNS = 10_000;

    /** A tiny instance whose exact slot marginals {@link ExactGreedy} can enumerate. */
    record Scenario(String name, int cache, int[] counts, UtilityFunction utility, double discount,
                    double horizonMillis, double fadeMillis, Distribution first, Distribution second,
                    int planBeforeSwitch, int switchAt, double slotMillis) {
        SchedulerConfig config(long seed) {
            return SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts).utility(utility).discount(discount)
                    .planningHorizonMillis(horizonMillis).forecastFadeMillis(fadeMillis).seed(seed).build();
        }

        ExactGreedy exact() {
            return new ExactGreedy(cache, counts, utility, discount, horizonMillis, fadeMillis, first, second,
                    switchAt, slotMillis);
        }

        /** Plans one batch: {@code planBeforeSwitch} slots, a re-plan from {@code switchAt}, then the rest. */
        int[] run(Scheduler s) {
            int[] slots = new int[cache];
            java.util.Arrays.fill(slots, -1);
            s.replan(first, 0, slotMillis);
            record(s.next(planBeforeSwitch), slots);
            if (second != null) {
                s.replan(second, switchAt, slotMillis);
            }
            record(s.next(cache - (int) s.nextSeq()), slots);
            return slots;
        }

        private static void record(ScheduleChunk chunk, int[] slots) {
            for (int k = 0; k < chunk.size(); k++) {
                slots[(int) chunk.firstSeq() + k] = chunk.requestId(k);
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Scenario> scenarios() {
        long[] h = TestInstances.HORIZONS;
        Distribution mixed = Distribution.builder(5, h)
                .explicit(0, 1, 0.6).explicit(0, 3, 0.1).residual(0, 0.3)
                .explicit(1, 1, 0.3).explicit(1, 2, 0.3).residual(1, 0.2)
                .explicit(2, 2, 0.5).residual(2, 0.5)
                .explicit(3, 4, 0.2).explicit(3, 0, 0.2).residual(3, 0.4)
                .build();
        Distribution drift = Distribution.builder(5, h)
                .explicit(0, 4, 0.7).residual(0, 0.3)
                .explicit(1, 4, 0.4).explicit(1, 0, 0.4).residual(1, 0.2)
                .explicit(2, 0, 0.8).residual(2, 0.1)
                .explicit(3, 2, 0.9).residual(3, 0.1)
                .build();
        Distribution late = Distribution.builder(5, h)
                .explicit(0, 0, 1.0).explicit(1, 0, 1.0).explicit(2, 1, 0.5).explicit(2, 3, 0.5)
                .explicit(3, 2, 0.6).residual(3, 0.4)
                .build();
        double paper = Double.POSITIVE_INFINITY;
        return Stream.of(
                new Scenario("explicit and residual, mixed block counts", 7, new int[] {1, 2, 3, 2, 1},
                        TestInstances.power(0.5), 1.0, paper, paper, mixed, null, 7, 7, 45.0),
                new Scenario("discount and a re-plan that discards two planned slots", 7, new int[] {2, 2, 3, 1, 2},
                        TestInstances.power(0.7), 0.8, paper, paper, mixed, drift, 5, 3, 60.0),
                new Scenario("all mass in the residual", 6, new int[] {1, 3, 2, 2, 1},
                        UtilityFunction.linear(), 1.0, paper, paper, Distribution.uniform(5, h), null, 6, 6, 100.0),
                // Slots at 0..840 ms: the forecast fades from 500 ms and is uniform from 750 ms.
                new Scenario("forecast fading to uniform past the last horizon", 7, new int[] {2, 1, 2, 3, 1},
                        TestInstances.power(0.6), 1.0, paper, 250.0, drift, null, 7, 7, 120.0),
                // A horizon of 2 steps: request 0 fills it early on, the rest of the batch barely counts.
                new Scenario("planning horizon shorter than the batch", 7, new int[] {2, 1, 2, 2, 1},
                        TestInstances.power(0.5), 1.0, 70.0, paper, late, null, 7, 7, 60.0),
                new Scenario("planning horizon and fade with a discount and a re-plan", 7, new int[] {2, 2, 1, 2, 2},
                        UtilityFunction.linear(), 0.9, 300.0, 100.0, drift, mixed, 6, 4, 150.0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void greedy_matchesExactSlotMarginals(Scenario scenario) {
        assertMatchesExact(scenario, Schedulers::greedy);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void reference_matchesExactSlotMarginals(Scenario scenario) {
        assertMatchesExact(scenario, Schedulers::reference);
    }

    private static void assertMatchesExact(Scenario scenario, Function<SchedulerConfig, Scheduler> factory) {
        double[][] exact = scenario.exact().marginals();
        int n = scenario.counts().length;
        long[][] observed = new long[scenario.cache()][n + 1];
        for (int r = 0; r < RUNS; r++) {
            int[] slots = scenario.run(factory.apply(scenario.config(1000 + r)));
            for (int t = 0; t < slots.length; t++) {
                observed[t][slots[t] < 0 ? n : slots[t]]++;
            }
        }
        for (int t = 0; t < scenario.cache(); t++) {
            double[] expected = java.util.Arrays.copyOf(exact[t], n + 1);
            double planned = 0;
            for (int i = 0; i < n; i++) {
                planned += exact[t][i];
            }
            expected[n] = Math.max(0, 1 - planned);
            double[] test = ChiSquare.goodnessOfFit(observed[t], expected, RUNS);
            assertTrue(test[0] < ChiSquare.critical((int) test[1]), "slot " + t + ": chi-square " + test[0]
                    + " with " + (int) test[1] + " df exceeds " + ChiSquare.critical((int) test[1]));
        }
    }

    @Test
    void greedyAndReference_drawFromTheSameDistributionAcrossBatchesAndReplans() {
        int n = 40;
        int cache = 12;
        int runs = 6_000;
        SplittableRandom rng = new SplittableRandom(77);
        Distribution d1 = TestInstances.randomDistribution(rng, n, 6);
        Distribution d2 = TestInstances.randomDistribution(rng, n, 6);
        int slots = 3 * cache;
        long[][] fast = new long[slots][n];
        long[][] ref = new long[slots][n];
        for (int r = 0; r < runs; r++) {
            // 36 slots of 40 and 25 ms run well past the last horizon (500 ms) and the fade; the
            // planning horizon is 4 to 6 slots.
            SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(cache).requestCount(n)
                    .blockCounts(i -> 1 + i % 3).utility(TestInstances.power(0.6)).planningHorizonMillis(150)
                    .forecastFadeMillis(300).seed(r).build();
            count(runScript(Schedulers.greedy(config), d1, d2), fast);
            count(runScript(Schedulers.reference(config), d1, d2), ref);
        }
        for (int t = 0; t < slots; t++) {
            double[] test = ChiSquare.homogeneity(fast[t], ref[t]);
            assertTrue(test[0] < ChiSquare.critical((int) test[1]), "slot " + t + ": chi-square " + test[0]
                    + " with " + (int) test[1] + " df exceeds " + ChiSquare.critical((int) test[1]));
        }
    }

    /** Three batches in chunks of 5 with a re-plan into the previous batch at seq 14 (from 16). */
    private static int[] runScript(Scheduler s, Distribution d1, Distribution d2) {
        int[] out = new int[3 * s.cacheBlocks()];
        s.replan(d1, 0, 40.0);
        while (s.nextSeq() < out.length) {
            if (s.nextSeq() == 16) {
                s.replan(d2, 10, 25.0);
            }
            ScheduleChunk c = s.next(5);
            assertTrue(c.size() > 0, "a 40-request instance never runs out within a batch of 12");
            for (int k = 0; k < c.size() && c.firstSeq() + k < out.length; k++) {
                out[(int) c.firstSeq() + k] = c.requestId(k);
            }
        }
        return out;
    }

    private static void count(int[] slots, long[][] counts) {
        for (int t = 0; t < slots.length; t++) {
            counts[t][slots[t]]++;
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void greedy_slotProbabilitiesEqualReferenceExactly(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int n = 200 + rng.nextInt(200);
        int cache = 30 + rng.nextInt(50);
        double discount = rng.nextBoolean() ? 1.0 : 0.9 + 0.1 * rng.nextDouble();
        // Every pairing of: the forecast held for ever, switched to uniform at once, faded over up
        // to 2 s; with the whole batch or a planning horizon of up to 300 ms.
        double fade = seed % 3 == 0 ? Double.POSITIVE_INFINITY : seed % 3 == 1 ? 0 : 2000 * rng.nextDouble();
        double horizon = seed % 2 == 0 ? Double.POSITIVE_INFINITY : 1 + 300 * rng.nextDouble();
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(cache).requestCount(n)
                .blockCounts(i -> 1 + (i * 7) % 5).utility(TestInstances.randomConcaveUtility(rng))
                .discount(discount).planningHorizonMillis(horizon).forecastFadeMillis(fade).seed(seed).build();
        BatchScheduler fast = (BatchScheduler) Schedulers.greedy(config);
        BatchScheduler ref = (BatchScheduler) Schedulers.reference(config);
        Distribution d = TestInstances.randomDistribution(rng, n, 30);
        fast.replan(d, 0, 20.0);
        ref.replan(d, 0, 20.0);
        int compared = 0;
        while (fast.nextSeq() < 4L * cache) {
            double[] pr = ref.nextSlotProbabilities();
            boolean exhausted = java.util.Arrays.stream(pr).sum() == 0;
            if (exhausted || rng.nextInt(25) == 0) {
                // Mostly short rewinds, sometimes into the previous batch; none when exhausted.
                int back = exhausted ? 0 : rng.nextInt(5) == 0 ? rng.nextInt(cache) : rng.nextInt(8);
                long from = Math.max(fast.oldestReplannableSeq(), fast.nextSeq() - back);
                double slotMillis = 5 + 40 * rng.nextDouble();
                d = TestInstances.randomDistribution(rng, n, 30);
                fast.replan(d, from, slotMillis);
                ref.replan(d, from, slotMillis);
                pr = ref.nextSlotProbabilities();
            }
            double[] pf = fast.nextSlotProbabilities();
            assertArrayEquals(pr, pf, 1e-9, "slot " + fast.nextSeq());
            ScheduleChunk chunk = fast.next(1);
            if (chunk.isEmpty()) {
                assertEquals(0.0, java.util.Arrays.stream(pr).sum(), "fast stopped while the reference had weight");
                continue;
            }
            assertEquals(ref.planNext(chunk.requestId(0)), chunk.blockIndex(0));
            compared++;
        }
        assertTrue(compared > 2 * cache, "compared only " + compared + " slots");
    }
}
