package dev.khameleon.core.spi;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import dev.khameleon.core.testkit.UtilityFunctionContract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UtilityFunctionTest {
    /** The progressive-JPEG SSIM curve quoted in the paper's image workload. */
    static final double[] SSIM_FRACTIONS = {0.09, 0.19, 0.45, 0.61, 1.0};
    static final double[] SSIM_UTILITIES = {0.81, 0.95, 0.985, 0.993, 1.0};

    @Nested
    class Linear extends UtilityFunctionContract {
        @Override
        protected UtilityFunction utility() {
            return UtilityFunction.linear();
        }
    }

    @Nested
    class Tabulated extends UtilityFunctionContract {
        @Override
        protected UtilityFunction utility() {
            return UtilityFunction.tabulated(SSIM_FRACTIONS, SSIM_UTILITIES);
        }
    }

    @Test
    void linear_marginalGainsAreEqual() {
        assertArrayEquals(new double[] {0.25, 0.25, 0.25, 0.25, 0}, UtilityFunction.linear().marginalGains(4), 1e-15);
    }

    @Test
    void tabulated_interpolatesBetweenPointsAndAddsEnds() {
        UtilityFunction u = UtilityFunction.tabulated(SSIM_FRACTIONS, SSIM_UTILITIES);
        assertEquals(0.0, u.utility(0));
        assertEquals(0.81 / 2, u.utility(0.045), 1e-12);
        assertEquals(0.95, u.utility(0.19), 1e-12);
        assertEquals((0.95 + 0.985) / 2, u.utility(0.32), 1e-12);
        assertEquals(1.0, u.utility(1));
        double[] g = u.marginalGains(10);
        assertTrue(g[0] > g[1] && g[1] > g[5], "a concave curve front-loads its gains");
    }

    @Test
    void tabulated_rejectsDecreasingUtilities() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UtilityFunction.tabulated(new double[] {0.2, 0.5}, new double[] {0.6, 0.5}));
        assertTrue(e.getMessage().contains("non-decreasing"), e.getMessage());
    }

    @Test
    void tabulated_rejectsBadPoints() {
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {0.5, 0.5}, new double[] {0.5, 0.6}));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {1.5}, new double[] {0.5}));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {0.5}, new double[] {Double.NaN}));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {0}, new double[] {0.1}));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {1}, new double[] {0.9}));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.tabulated(new double[] {0.5}, new double[] {0.5, 0.6}));
    }

    @Test
    void tabulated_replacesAFlatStretchByTheConcaveHull() {
        // Regression: as given, block 3 of 8 (from 3/8 to 4/8) adds nothing and the push stalled there.
        UtilityFunction u = UtilityFunction.tabulated(new double[] {0.3, 0.5, 1}, new double[] {0.75, 0.75, 1});
        assertEquals(0.75, u.utility(0.3), 1e-12, "a hull corner is kept");
        assertEquals(0.75 + 0.2 * 0.25 / 0.7, u.utility(0.5), 1e-12, "on the chord from (0.3, 0.75) to (1, 1)");
        assertEquals(2.5 * 0.1, u.utility(0.1), 1e-12);
        double[] g = u.marginalGains(8);
        for (int b = 0; b < 8; b++) {
            assertTrue(g[b] > 0, "block " + b + " adds utility: " + java.util.Arrays.toString(g));
            assertTrue(b == 0 || g[b] <= g[b - 1] + 1e-15, "gains never grow: " + java.util.Arrays.toString(g));
        }
    }

    @Test
    void tabulated_liftsAStretchAlreadyAtTheTopToTheLeastSlope() {
        UtilityFunction u = UtilityFunction.tabulated(new double[] {0.5, 0.8}, new double[] {0.9, 1.0});
        assertEquals(0.99 * 0.9 + 0.01 * 0.5, u.utility(0.5), 1e-12, "mixed with 1% of the linear curve");
        assertEquals(0.99 + 0.01 * 0.8, u.utility(0.8), 1e-12);
        assertEquals(1.0, u.utility(1));
        double[] g = u.marginalGains(10);
        assertEquals(0.01 / 10, g[9], 1e-12, "the last block still adds the least slope's share");
    }

    @Test
    void tabulated_keepsAConcaveCurveAsGivenAndFlattensAConvexBump() {
        UtilityFunction concave = UtilityFunction.tabulated(SSIM_FRACTIONS, SSIM_UTILITIES);
        for (int i = 0; i < SSIM_FRACTIONS.length; i++) {
            assertEquals(SSIM_UTILITIES[i], concave.utility(SSIM_FRACTIONS[i]), 1e-15);
        }
        UtilityFunction convex = UtilityFunction.tabulated(new double[] {0.5}, new double[] {0.1});
        assertEquals(0.5, convex.utility(0.5), 1e-12, "a point below the chord gives way to the straight line");
    }

    @Test
    void marginalGains_rejectsInvalidUserFunctions() {
        IllegalArgumentException nan = assertThrows(IllegalArgumentException.class,
                () -> ((UtilityFunction) f -> Double.NaN).marginalGains(3));
        assertTrue(nan.getMessage().contains("NaN"), nan.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ((UtilityFunction) f -> 1 - f).marginalGains(3));
        assertThrows(IllegalArgumentException.class, () -> ((UtilityFunction) f -> f / 2).marginalGains(3));
        assertThrows(IllegalArgumentException.class, () -> ((UtilityFunction) f -> 0.1 + f * 0.9).marginalGains(3));
        assertThrows(IllegalArgumentException.class, () -> UtilityFunction.linear().marginalGains(0));
    }
}
