package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Greedy's expected utility (the paper's Eq. 2, averaged over seeds) against the exact optimum
 * ({@link OptimalScheduler}) on random small instances in the paper's Appendix A.1 ranges
 * (5–15 requests, cache 10–30 blocks, 5–15 blocks per request), for both {@link Selection}
 * rules on the same instances. The measured ratios are printed and quoted in
 * {@code docs/scheduler.md}.
 *
 * <p>The paper's rule ({@link Selection#SAMPLE}) samples {@code ∝ u_i(t)} instead of taking the
 * best request, so it hedges even where the optimum would not; its ratio to the optimum falls
 * as the distribution gets spikier and the utility closer to linear, and the target of
 * {@code >= 0.9 × optimum} is met on average only for smooth predictions. So its bounds pin the
 * measured figures (with a small margin). {@link Selection#MAX_GAIN} meets the target on
 * average on both families; it is still a greedy rule, and a few instances in a hundred fall
 * below 0.9 (see the docs), so the per-instance minimum is pinned as measured.
 *
 * <p>For a larger measurement: {@code -Dkhameleon.optimum.instances=400}
 * ({@code -Dkhameleon.optimum.seeds=...} for the runs per instance of {@code SAMPLE}); the
 * minimum bounds, pinned for the default 40 instances, are then not checked.
 */
class GreedyVersusOptimumTest {
    private static final int DEFAULT_INSTANCES = 40;
    private static final int INSTANCES = Integer.getInteger("khameleon.optimum.instances", DEFAULT_INSTANCES);
    private static final int SEEDS_PER_INSTANCE = Integer.getInteger("khameleon.optimum.seeds", 300);
    private static final boolean PINNED = INSTANCES == DEFAULT_INSTANCES;

    /**
     * Pointer-like predictions (a Gaussian bump over the requests that drifts across the
     * horizons, plus a small uniform residual) and progressive-image-like utilities (most of
     * the quality in the first blocks): the setting Khameleon is built for.
     */
    @Test
    void greedyExpectedUtility_forSmoothPredictionsAndImageLikeUtilities_staysNearMeasuredRatio() {
        double[] ratios = measure(3030, SMOOTH, IMAGE_LIKE, Selection.SAMPLE);
        assertTrue(!PINNED || ratios[0] >= 0.75, "min ratio " + ratios[0]);
        assertTrue(ratios[1] >= 0.87, "mean ratio " + ratios[1]);
    }

    /**
     * Arbitrary random distributions (spiky explicit parts, any residual) and any concave
     * utility up to linear. Proportional sampling hedges even where the optimum would not, so
     * the ratio is lower here; the bounds pin the measured figures against regressions.
     */
    @Test
    void greedyExpectedUtility_onArbitraryRandomInstances_staysNearMeasuredRatio() {
        double[] ratios = measure(2020, ARBITRARY, TestInstances::randomConcaveUtility, Selection.SAMPLE);
        assertTrue(!PINNED || ratios[0] >= 0.6, "min ratio " + ratios[0]);
        assertTrue(ratios[1] >= 0.83, "mean ratio " + ratios[1]);
    }

    /** {@link Selection#MAX_GAIN} on the same instances as the smooth-prediction test above. */
    @Test
    void maxGainUtility_forSmoothPredictionsAndImageLikeUtilities_isAtLeast90PercentOfOptimum() {
        double[] ratios = measure(3030, SMOOTH, IMAGE_LIKE, Selection.MAX_GAIN);
        assertTrue(!PINNED || ratios[0] >= 0.9, "min ratio " + ratios[0]);
        assertTrue(ratios[1] >= 0.97, "mean ratio " + ratios[1]);
    }

    /**
     * {@link Selection#MAX_GAIN} on the same instances as the arbitrary-instance test above: at
     * least 0.9 of the optimum on average, though not on every instance.
     */
    @Test
    void maxGainUtility_onArbitraryRandomInstances_isAtLeast90PercentOfOptimumOnAverage() {
        double[] ratios = measure(2020, ARBITRARY, TestInstances::randomConcaveUtility, Selection.MAX_GAIN);
        assertTrue(!PINNED || ratios[0] >= 0.87, "min ratio " + ratios[0]);
        assertTrue(ratios[1] >= 0.95, "mean ratio " + ratios[1]);
    }

    private static final BiFunction<SplittableRandom, Integer, Distribution> SMOOTH =
            GreedyVersusOptimumTest::gaussianBump;
    private static final BiFunction<SplittableRandom, Integer, Distribution> ARBITRARY =
            (rng, n) -> TestInstances.randomDistribution(rng, n, n);
    private static final Function<SplittableRandom, UtilityFunction> IMAGE_LIKE =
            rng -> TestInstances.power(0.2 + 0.3 * rng.nextDouble());

    /**
     * Returns {min, mean} of greedy's expected utility over the optimum. {@code seed} alone
     * fixes the instances, so both selections are measured on the same ones; the deterministic
     * {@link Selection#MAX_GAIN} needs one run per instance.
     */
    private static double[] measure(long seed, BiFunction<SplittableRandom, Integer, Distribution> distributions,
                                    Function<SplittableRandom, UtilityFunction> utilities, Selection selection) {
        int runs = selection == Selection.SAMPLE ? SEEDS_PER_INSTANCE : 1;
        SplittableRandom rng = new SplittableRandom(seed);
        double min = Double.POSITIVE_INFINITY;
        double sum = 0;
        int measured = 0;
        int below90 = 0;
        for (int instance = 0; instance < INSTANCES; instance++) {
            int n = 5 + rng.nextInt(11);
            int cache = 10 + rng.nextInt(21);
            int[] counts = rng.ints(n, 5, 16).toArray();
            double slotMillis = 10 + 90 * rng.nextDouble();
            UtilityFunction utility = utilities.apply(rng);
            Distribution d = distributions.apply(rng, n);
            // The paper's rule: the whole rest of the batch counts, the last forecast held to its end.
            SchedulerConfig base = SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts).utility(utility)
                    .planningHorizonMillis(Double.POSITIVE_INFINITY).forecastFadeMillis(Double.POSITIVE_INFINITY)
                    .build();
            OptimalScheduler.Solution optimum = OptimalScheduler.solve(base, d, slotMillis);
            if (optimum.value() <= 0) {
                continue;
            }
            double[][] tail = OptimalScheduler.tails(base, d, slotMillis);
            double total = 0;
            for (int s = 0; s < runs; s++) {
                Scheduler greedy = Schedulers.greedy(SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts)
                        .utility(utility).planningHorizonMillis(Double.POSITIVE_INFINITY)
                        .forecastFadeMillis(Double.POSITIVE_INFINITY).selection(selection)
                        .seed(seed * 1000 + s).build());
                greedy.replan(d, 0, slotMillis);
                ScheduleChunk chunk = greedy.next(cache);
                int[] schedule = new int[cache];
                Arrays.fill(schedule, -1);
                for (int k = 0; k < chunk.size(); k++) {
                    schedule[k] = chunk.requestId(k);
                }
                total += OptimalScheduler.value(base, tail, schedule);
            }
            double ratio = total / runs / optimum.value();
            assertTrue(ratio <= 1 + 1e-9, "greedy cannot beat the optimum, ratio " + ratio);
            min = Math.min(min, ratio);
            sum += ratio;
            measured++;
            below90 += ratio < 0.9 ? 1 : 0;
        }
        double mean = sum / measured;
        System.out.printf("greedy %s/optimum (seed %d) over %d instances x %d runs: min %.4f, mean %.4f,"
                + " below 0.9: %d%n", selection, seed, measured, runs, min, mean, below90);
        return new double[] {min, mean};
    }

    /** A Gaussian bump over ids 0..n-1 whose centre drifts across the horizons, plus 5 % residual
     * (when some id is not explicit). */
    private static Distribution gaussianBump(SplittableRandom rng, int n) {
        long[] h = TestInstances.HORIZONS;
        double centre = rng.nextDouble() * (n - 1);
        double velocity = (rng.nextDouble() - 0.5) * n / 500.0;
        double sigma = 0.5 + 2.5 * rng.nextDouble();
        Distribution.Builder b = Distribution.builder(n, h);
        for (int j = 0; j < h.length; j++) {
            double c = centre + velocity * h[j];
            double s = sigma * (1 + h[j] / 250.0);
            double[] w = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                w[i] = Math.exp(-0.5 * (i - c) * (i - c) / (s * s));
                sum += w[i];
            }
            int explicit = 0;
            for (int i = 0; i < n; i++) {
                if (w[i] / sum > 1e-3) {
                    b.explicit(j, i, 0.95 * w[i] / sum);
                    explicit++;
                }
            }
            b.residual(j, explicit < n ? 0.05 : 0.0);
        }
        return b.build();
    }
}
