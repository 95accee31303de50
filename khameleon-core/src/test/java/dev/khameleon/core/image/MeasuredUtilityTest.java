package dev.khameleon.core.image;

import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;

import java.awt.image.BufferedImage;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MeasuredUtilityTest {

    private static void assertValidCurve(MeasuredUtility measured, int points) {
        double[] f = measured.fractions();
        double[] u = measured.utilities();
        assertEquals(points, f.length);
        assertEquals(1.0, f[points - 1]);
        assertEquals(1.0, u[points - 1]);
        for (int i = 1; i < points; i++) {
            assertTrue(u[i] >= u[i - 1], "non-decreasing at " + i + ": " + measured);
        }
        assertTrue(u[0] >= 0);
        UtilityFunction utility = measured.toUtilityFunction();
        double[] gains = utility.marginalGains(13);
        double total = 0;
        for (double g : gains) {
            total += g;
        }
        assertEquals(1.0, total, 1e-9, "gains of a valid utility add up to 1");
    }

    @Test
    void measure_kodakPhotos_givesAValidFrontLoadedCurve() {
        List<BufferedImage> photos = TestImages.kodak(3);
        MeasuredUtility measured = MeasuredUtility.measure(ProgressiveJpegEncoder.builder().build(), photos, 10);
        assertValidCurve(measured, 10);
        assertEquals(3, measured.sampleCount());
        UtilityFunction u = measured.toUtilityFunction();
        // Progressive JPEG front-loads quality: half the bytes give more than half the SSIM.
        assertTrue(u.utility(0.5) > 0.5, measured.toString());
        assertTrue(u.utility(0.1) > 0.1, measured.toString());
    }

    @Test
    void toUtilityFunction_givesEveryBlockAPositiveNonIncreasingGain() {
        List<BufferedImage> samples = List.of(TestImages.synthetic(200, 150, 1), TestImages.synthetic(200, 150, 2));
        MeasuredUtility measured = MeasuredUtility.measure(ProgressiveJpegEncoder.builder().blockSize(1024).build(),
                samples, 10);
        UtilityFunction u = measured.toUtilityFunction();
        for (int blocks = 1; blocks <= 32; blocks++) {
            double[] g = u.marginalGains(blocks);
            for (int b = 0; b < blocks; b++) {
                assertTrue(g[b] > 0, blocks + " blocks: block " + b + " adds nothing to " + measured);
                assertTrue(b == 0 || g[b] <= g[b - 1] + 1e-12, blocks + " blocks: gains grow at " + b + " on " + measured);
            }
        }
    }

    @Test
    void prefixSsim_startsAtZeroEndsAtOneAndTheFirstBlockIsWorthSomething() {
        double[] scores = MeasuredUtility.prefixSsim(ProgressiveJpegEncoder.builder().blockSize(2048).build(),
                TestImages.synthetic(320, 240, 3), Ssim.standard());
        assertEquals(0.0, scores[0]);
        assertEquals(1.0, scores[scores.length - 1]);
        assertTrue(scores[1] > 0.2, "preview score " + scores[1]);
    }

    @Test
    void of_rebuildsAMeasuredCurveFromItsNumbers_andRefusesOnesNoMeasurementGives() {
        List<BufferedImage> samples = List.of(TestImages.synthetic(200, 150, 1), TestImages.synthetic(200, 150, 2));
        MeasuredUtility measured = MeasuredUtility.measure(ProgressiveJpegEncoder.builder().blockSize(1024).build(),
                samples, 8);
        MeasuredUtility again = MeasuredUtility.of(measured.fractions(), measured.utilities(), measured.sampleCount());
        assertEquals(measured, again);
        assertEquals(measured.toUtilityFunction().utility(0.3), again.toUtilityFunction().utility(0.3));

        double[] f = {0.5, 1};
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {0.5}, 1), "lengths");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {0.7, 0.6}, 1),
                "decreasing, and not ending at 1");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {0.5, 0.9}, 1),
                "not ending at 1");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(new double[] {0.5, 0.5, 1},
                new double[] {0.2, 0.3, 1}, 1), "fractions must rise");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {-0.1, 1}, 1), "negative");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {Double.NaN, 1}, 1), "NaN");
        assertThrows(IllegalArgumentException.class, () -> MeasuredUtility.of(f, new double[] {0.5, 1}, 0), "no samples");
        double[] fractions = {0.5, 1};
        MeasuredUtility copy = MeasuredUtility.of(fractions, new double[] {0.6, 1}, 2);
        fractions[0] = 0.9;
        assertEquals(0.5, copy.fractions()[0], "the arrays are copied");
    }

    @Test
    void measure_isDeterministic() {
        List<BufferedImage> samples = List.of(TestImages.synthetic(200, 150, 1), TestImages.synthetic(200, 150, 2));
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(1024).build();
        MeasuredUtility a = MeasuredUtility.measure(encoder, samples, 8);
        MeasuredUtility b = MeasuredUtility.measure(encoder, samples, 8);
        assertEquals(a, b);
        assertArrayEquals(a.utilities(), b.utilities());
        assertValidCurve(a, 8);
    }

    @Test
    void measure_rejectsNoSamplesAndNoPoints() {
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().build();
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> MeasuredUtility.measure(encoder, List.of(), 10));
        assertTrue(empty.getMessage().contains("samples"));
        IllegalArgumentException points = assertThrows(IllegalArgumentException.class,
                () -> MeasuredUtility.measure(encoder, List.of(TestImages.synthetic(8, 8, 1)), 0));
        assertTrue(points.getMessage().contains("points"));
    }
}
