package dev.khameleon.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DistributionTest {
    private static final long[] H = {50, 150, 250, 500};

    @Test
    void of_sortsIdsAndKeepsProbabilitiesAligned() {
        Distribution d = Distribution.of(10, new long[] {100}, new int[][] {{7, 2, 5}},
                new double[][] {{0.1, 0.2, 0.3}}, new double[] {0.4});
        assertEquals(2, d.explicitId(0, 0));
        assertEquals(5, d.explicitId(0, 1));
        assertEquals(7, d.explicitId(0, 2));
        assertEquals(0.2, d.probability(0, 2));
        assertEquals(0.3, d.probability(0, 5));
        assertEquals(0.1, d.probability(0, 7));
        assertEquals(0.4 / 7, d.residualPerRequest(0), 1e-15);
        assertEquals(0.4 / 7, d.probability(0, 0), 1e-15);
        assertEquals(1.0, d.totalMass(0), 1e-12);
    }

    @Test
    void uniform_givesEveryRequestOneOverN() {
        Distribution d = Distribution.uniform(1_000_000, H);
        for (int j = 0; j < H.length; j++) {
            assertEquals(1e-6, d.probability(j, 123_456), 1e-18);
            assertEquals(0, d.explicitCount(j));
        }
    }

    @Test
    void point_putsAllMassOnOneRequest() {
        Distribution d = Distribution.point(100, 42, H);
        assertEquals(1.0, d.probability(3, 42));
        assertEquals(0.0, d.probability(3, 41));
    }

    @Test
    void probabilityAt_interpolatesLinearlyAndHoldsOutsideHorizons() {
        Distribution d = Distribution.builder(4, 100, 200)
                .explicit(0, 1, 0.8).residual(0, 0.2)
                .explicit(1, 1, 0.2).residual(1, 0.8)
                .build();
        assertEquals(0.8, d.probabilityAt(0, 1), 1e-12);
        assertEquals(0.8, d.probabilityAt(100, 1), 1e-12);
        assertEquals(0.5, d.probabilityAt(150, 1), 1e-12);
        assertEquals(0.2, d.probabilityAt(200, 1), 1e-12);
        assertEquals(0.2, d.probabilityAt(10_000, 1), 1e-12, "mass past the last horizon is kept");
        assertEquals((0.2 / 3 + 0.8 / 3) / 2, d.probabilityAt(150, 0), 1e-12);
    }

    @Test
    void of_rejectsNegativeProbability() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50)
                .explicit(0, 3, -0.1).build());
        assertTrue(e.getMessage().contains("request 3"), e.getMessage());
        assertTrue(e.getMessage().contains("-0.1"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void of_rejectsNonFiniteProbability(double p) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50)
                .explicit(0, 1, p).build());
        assertTrue(e.getMessage().contains("finite"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, -1e-9, Double.POSITIVE_INFINITY})
    void of_rejectsBadResidual(double r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50)
                .residual(0, r).build());
        assertTrue(e.getMessage().contains("residual"), e.getMessage());
    }

    @Test
    void of_rejectsMassAboveOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50, 100)
                .explicit(1, 1, 0.7).explicit(1, 2, 0.2).residual(1, 0.2).build());
        assertTrue(e.getMessage().contains("horizon 1"), e.getMessage());
        assertTrue(e.getMessage().contains("exceeds 1"), e.getMessage());
    }

    @Test
    void of_acceptsRoundingSlackAboveOne() {
        Distribution d = Distribution.builder(3, 50).explicit(0, 0, 0.1).explicit(0, 1, 0.2).explicit(0, 2, 0.7 + 1e-9).build();
        assertEquals(1.0, d.totalMass(0), 1e-8);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 5, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void of_rejectsIdOutOfRange(int id) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50)
                .explicit(0, id, 0.1).build());
        assertTrue(e.getMessage().contains("out of range [0, 5)"), e.getMessage());
    }

    @Test
    void of_rejectsDuplicateId() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(5, 50)
                .explicit(0, 2, 0.1).explicit(0, 2, 0.1).build());
        assertTrue(e.getMessage().contains("listed twice"), e.getMessage());
    }

    @Test
    void of_rejectsHorizonsNotStrictlyIncreasing() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.uniform(5, 50, 50));
        assertTrue(e.getMessage().contains("strictly increasing"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Distribution.uniform(5, 100, 50));
        assertThrows(IllegalArgumentException.class, () -> Distribution.uniform(5, -1));
        assertThrows(IllegalArgumentException.class, () -> Distribution.uniform(5));
    }

    @Test
    void of_rejectsResidualWhenEveryIdIsExplicit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Distribution.builder(2, 50)
                .explicit(0, 0, 0.3).explicit(0, 1, 0.3).residual(0, 0.2).build());
        assertTrue(e.getMessage().contains("every request is explicit"), e.getMessage());
    }

    @Test
    void of_rejectsMismatchedArrays() {
        assertThrows(IllegalArgumentException.class, () -> Distribution.of(5, new long[] {50},
                new int[][] {{1, 2}}, new double[][] {{0.1}}, new double[] {0}));
        assertThrows(IllegalArgumentException.class, () -> Distribution.of(5, new long[] {50, 100},
                new int[][] {{1}}, new double[][] {{0.1}}, new double[] {0}));
        assertThrows(IllegalArgumentException.class, () -> Distribution.uniform(0, 50));
    }

    @Test
    void of_copiesInputs() {
        int[][] ids = {{1}};
        double[][] probs = {{0.5}};
        Distribution d = Distribution.of(5, new long[] {50}, ids, probs, new double[] {0.5});
        ids[0][0] = 4;
        probs[0][0] = 0.9;
        assertEquals(0.5, d.probability(0, 1));
        int[] copy = d.explicitIds(0);
        copy[0] = 3;
        assertEquals(1, d.explicitId(0, 0));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void probability_matchesExplicitAndResidualOnRandomDistributions(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 1 + rnd.nextInt(200);
        Distribution.Builder b = Distribution.builder(n, H);
        double[][] expected = new double[H.length][n];
        for (int j = 0; j < H.length; j++) {
            boolean[] explicit = new boolean[n];
            double left = 1.0;
            int k = rnd.nextInt(n + 1);
            for (int e = 0; e < k; e++) {
                int id = rnd.nextInt(n);
                if (explicit[id]) {
                    continue;
                }
                double p = left * rnd.nextDouble() * 0.5;
                left -= p;
                explicit[id] = true;
                expected[j][id] = p;
                b.explicit(j, id, p);
            }
            int others = 0;
            for (boolean x : explicit) {
                others += x ? 0 : 1;
            }
            double residual = others == 0 ? 0 : left * rnd.nextDouble();
            b.residual(j, residual);
            for (int id = 0; id < n; id++) {
                if (!explicit[id]) {
                    expected[j][id] = residual / others;
                }
            }
        }
        Distribution d = b.build();
        for (int j = 0; j < H.length; j++) {
            double sum = 0;
            for (int id = 0; id < n; id++) {
                assertEquals(expected[j][id], d.probability(j, id), 1e-15);
                sum += d.probability(j, id);
            }
            assertEquals(d.totalMass(j), sum, 1e-9);
            assertTrue(sum <= 1 + Distribution.MASS_TOLERANCE);
        }
    }
}
