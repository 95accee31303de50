package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Seeded random distributions and utilities for the scheduler tests. */
final class TestInstances {
    static final long[] HORIZONS = {50, 150, 250, 500};

    private TestInstances() {
    }

    /**
     * A random distribution: at each horizon up to {@code maxExplicit} explicit ids with random
     * weights, and a random share of the mass (sometimes none, sometimes all) in the residual.
     */
    static Distribution randomDistribution(SplittableRandom rng, int n, int maxExplicit) {
        int m = HORIZONS.length;
        Distribution.Builder b = Distribution.builder(n, HORIZONS);
        for (int j = 0; j < m; j++) {
            int k = Math.min(n, rng.nextInt(maxExplicit + 1));
            int[] ids = rng.ints(0, n).distinct().limit(k).toArray();
            double[] w = new double[k];
            double sum = 0;
            for (int e = 0; e < k; e++) {
                w[e] = Math.pow(rng.nextDouble(), 3) + 1e-3;
                sum += w[e];
            }
            int mode = rng.nextInt(4);
            double residual = k == n ? 0 : k == 0 || mode == 0 ? 1.0 : mode == 1 ? 0.0 : rng.nextDouble() * 0.5;
            double explicitMass = 1.0 - residual;
            for (int e = 0; e < k; e++) {
                b.explicit(j, ids[e], explicitMass * w[e] / sum);
            }
            b.residual(j, residual);
        }
        return b.build();
    }

    /** A random concave utility: {@code U(f) = f^a} with {@code a} in {@code [0.3, 1]}, tabulated. */
    static UtilityFunction randomConcaveUtility(SplittableRandom rng) {
        double a = 0.3 + 0.7 * rng.nextDouble();
        return power(a);
    }

    /** {@code U(f) = f^a} tabulated at 20 points (concave for {@code a <= 1}). */
    static UtilityFunction power(double a) {
        double[] f = new double[19];
        double[] u = new double[19];
        for (int i = 0; i < f.length; i++) {
            f[i] = (i + 1) / 20.0;
            u[i] = Math.pow(f[i], a);
        }
        return UtilityFunction.tabulated(f, u);
    }

    /** Both greedy schedulers, named, as arguments of a parameterized test. */
    static Stream<Arguments> implementations() {
        return Stream.of(
                Arguments.of("greedy", (Function<SchedulerConfig, Scheduler>) Schedulers::greedy),
                Arguments.of("reference", (Function<SchedulerConfig, Scheduler>) Schedulers::reference));
    }

    /**
     * Asserts that a fresh scheduler over 20 requests of 5 blocks, given all mass on request 7,
     * plans exactly request 7's five blocks in order and then nothing more in the batch.
     */
    static void assertPointRequestBlocksFirst(Scheduler scheduler) {
        assertPointRequestBlocksFirst(scheduler, 5);
    }

    /**
     * Asserts that a fresh scheduler over 20 requests of {@code blocks} blocks (a batch of at
     * most 500 ms at 10 ms a slot), given all mass on request 7, plans exactly request 7's
     * blocks in order and then nothing more in the batch.
     */
    static void assertPointRequestBlocksFirst(Scheduler scheduler, int blocks) {
        scheduler.replan(Distribution.point(20, 7, HORIZONS), 0, 10.0);
        ScheduleChunk chunk = scheduler.next(2 * blocks);
        assertEquals(blocks, chunk.size(), "only the point request has positive weight, and it has " + blocks + " blocks");
        for (int k = 0; k < blocks; k++) {
            assertEquals(7, chunk.requestId(k));
            assertEquals(k, chunk.blockIndex(k));
        }
        assertTrue(scheduler.next(Integer.MAX_VALUE).isEmpty(), "an exhausted batch plans nothing more");
        assertEquals(blocks, scheduler.nextSeq());
    }
}
