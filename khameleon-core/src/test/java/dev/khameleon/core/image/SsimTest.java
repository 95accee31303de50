package dev.khameleon.core.image;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.awt.image.BufferedImage;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SsimTest {

    private static int[] randomPlane(int size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] p = new int[size];
        for (int i = 0; i < size; i++) {
            p[i] = random.nextInt(256);
        }
        return p;
    }

    private static int[] noisy(int[] plane, int amplitude, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] out = new int[plane.length];
        for (int i = 0; i < plane.length; i++) {
            out[i] = Math.max(0, Math.min(255, plane[i] + random.nextInt(-amplitude, amplitude + 1)));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void compare_identicalPlanes_isExactlyOne(long seed) {
        int[] x = randomPlane(37 * 23, seed);
        assertEquals(1.0, Ssim.standard().compare(x, x.clone(), 37, 23), 1e-12);
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15})
    void compare_isSymmetricAndWithinMinusOneToOne(long seed) {
        int[] x = randomPlane(40 * 30, seed);
        int[] y = noisy(x, 80, seed + 100);
        double xy = Ssim.standard().compare(x, y, 40, 30);
        double yx = Ssim.standard().compare(y, x, 40, 30);
        assertEquals(xy, yx, 1e-12);
        assertTrue(xy >= -1 && xy < 1, "ssim " + xy);
    }

    @Test
    void compare_twoByTwoWindow_matchesHandComputedValue() {
        // x = 10 20 30 40, y = 10 20 30 60: μx = 25, μy = 30, σx² = 125, σy² = 350, σxy = 200;
        // C1 = 6.5025, C2 = 58.5225; SSIM = (1500 + C1)(400 + C2) / ((625 + 900 + C1)(475 + C2))
        //      = 1506.5025 · 458.5225 / (1531.5025 · 533.5225) = 0.845395747...
        int[] x = {10, 20, 30, 40};
        int[] y = {10, 20, 30, 60};
        assertEquals(0.8453957473, Ssim.of(2, 1).compare(x, y, 2, 2), 1e-9);
    }

    @Test
    void compare_constantPlanes_matchesClosedForm() {
        // With no variance the contrast-structure term is C2/C2 = 1, leaving
        // (2ab + C1) / (a² + b² + C1) = (30000 + 6.5025) / (32500 + 6.5025) = 0.923092310...
        int[] a = new int[16 * 16];
        int[] b = new int[16 * 16];
        java.util.Arrays.fill(a, 100);
        java.util.Arrays.fill(b, 150);
        assertEquals(0.9230923105, Ssim.standard().compare(a, b, 16, 16), 1e-9);
    }

    @Test
    void compare_invertedPlane_isNegative() {
        int[] x = randomPlane(32 * 32, 7);
        int[] inverted = new int[x.length];
        for (int i = 0; i < x.length; i++) {
            inverted[i] = 255 - x[i];
        }
        assertTrue(Ssim.standard().compare(x, inverted, 32, 32) < 0);
    }

    @Test
    void compare_moreNoise_scoresLower() {
        BufferedImage picture = TestImages.synthetic(96, 64, 3);
        int[] x = Ssim.luma(picture);
        double previous = 1.0;
        for (int amplitude : new int[] {4, 16, 48, 120}) {
            double s = Ssim.standard().compare(x, noisy(x, amplitude, amplitude), 96, 64);
            assertTrue(s < previous, "noise " + amplitude + " scored " + s + ", not below " + previous);
            previous = s;
        }
    }

    @Test
    void compare_imageSmallerThanWindow_usesWholeImage() {
        int[] x = {10, 20, 30, 40};
        int[] y = {10, 20, 30, 60};
        assertEquals(Ssim.of(2, 1).compare(x, y, 2, 2), Ssim.standard().compare(x, y, 2, 2), 1e-12);
    }

    @Test
    void compare_images_usesLumaAndIsOneForACopy() {
        BufferedImage a = TestImages.synthetic(64, 48, 9);
        BufferedImage b = TestImages.synthetic(64, 48, 10);
        assertEquals(1.0, Ssim.standard().compare(a, a), 1e-12);
        assertTrue(Ssim.standard().compare(a, b) < 0.9);
    }

    @Test
    void compare_rejectsBadInput() {
        int[] four = {1, 2, 3, 4};
        assertThrows(IllegalArgumentException.class, () -> Ssim.standard().compare(four, four, 3, 2));
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> Ssim.standard().compare(new int[] {1, 2, 3, 256}, four, 2, 2));
        assertTrue(range.getMessage().contains("[0, 255]"), range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Ssim.standard().compare(
                new BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB), new BufferedImage(4, 5, BufferedImage.TYPE_INT_RGB)));
        IllegalArgumentException window = assertThrows(IllegalArgumentException.class, () -> Ssim.of(0, 1));
        assertTrue(window.getMessage().contains("window"), window.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Ssim.of(8, 0));
    }
}
