package dev.khameleon.core.image;

import java.awt.image.BufferedImage;

/**
 * The structural similarity index (SSIM, Wang, Bovik, Sheikh and Simoncelli, IEEE TIP 2004) of
 * two equally sized images, computed on 8-bit luma: the mean over square windows of
 * <pre>
 *   SSIM(x, y) = (2 μx μy + C1)(2 σxy + C2) / ((μx² + μy² + C1)(σx² + σy² + C2)),
 *   C1 = (0.01 · 255)², C2 = (0.03 · 255)²
 * </pre>
 * with unweighted window statistics and population (1/n) variances. Windows are
 * {@code window × window} pixels placed every {@code stride} pixels (clamped to the image
 * when it is smaller than a window). 1 means identical; the value is symmetric in its two
 * arguments and lies in {@code [-1, 1]}.
 *
 * <p>Window sums come from integral images in exact integer arithmetic, so a comparison costs
 * O(pixels) whatever the window size. Instances are immutable and thread-safe.
 */
public final class Ssim {
    private static final double C1 = (0.01 * 255) * (0.01 * 255);
    private static final double C2 = (0.03 * 255) * (0.03 * 255);
    private static final Ssim STANDARD = new Ssim(8, 4);

    private final int window;
    private final int stride;

    private Ssim(int window, int stride) {
        this.window = window;
        this.stride = stride;
    }

    /** SSIM over 8×8 windows every 4 pixels. */
    public static Ssim standard() {
        return STANDARD;
    }

    /**
     * SSIM over {@code window × window} windows placed every {@code stride} pixels.
     *
     * @throws IllegalArgumentException if {@code window < 1} or {@code stride < 1}
     */
    public static Ssim of(int window, int stride) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        }
        if (stride < 1) {
            throw new IllegalArgumentException("stride must be >= 1, was " + stride);
        }
        return new Ssim(window, stride);
    }

    /**
     * The mean SSIM of the lumas of two images.
     *
     * @throws IllegalArgumentException if their sizes differ
     */
    public double compare(BufferedImage a, BufferedImage b) {
        if (a.getWidth() != b.getWidth() || a.getHeight() != b.getHeight()) {
            throw new IllegalArgumentException("images differ in size: " + a.getWidth() + "x" + a.getHeight()
                    + " vs " + b.getWidth() + "x" + b.getHeight());
        }
        return compare(luma(a), luma(b), a.getWidth(), a.getHeight());
    }

    /**
     * The mean SSIM of two row-major planes of {@code width × height} samples in {@code [0, 255]}.
     *
     * @throws IllegalArgumentException if a plane's length is not {@code width · height}, the
     *     size is empty, or a sample is outside {@code [0, 255]}
     */
    public double compare(int[] x, int[] y, int width, int height) {
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("image must be at least 1x1, was " + width + "x" + height);
        }
        if (x.length != (long) width * height || y.length != (long) width * height) {
            throw new IllegalArgumentException("planes of " + x.length + " and " + y.length
                    + " samples do not match " + width + "x" + height);
        }
        long[][] sums = integralImages(x, y, width, height);
        int w = Math.min(window, width);
        int h = Math.min(window, height);
        double n = (double) w * h;
        double total = 0;
        long windows = 0;
        for (int top = 0; top + h <= height; top += stride) {
            for (int left = 0; left + w <= width; left += stride) {
                double sx = boxSum(sums[0], width, left, top, w, h);
                double sy = boxSum(sums[1], width, left, top, w, h);
                double sxx = boxSum(sums[2], width, left, top, w, h);
                double syy = boxSum(sums[3], width, left, top, w, h);
                double sxy = boxSum(sums[4], width, left, top, w, h);
                double mx = sx / n;
                double my = sy / n;
                // n·Σx² − (Σx)² is exact in the integer sums: no cancellation in the variance.
                double vx = (n * sxx - sx * sx) / (n * n);
                double vy = (n * syy - sy * sy) / (n * n);
                double cxy = (n * sxy - sx * sy) / (n * n);
                total += ((2 * mx * my + C1) * (2 * cxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
                windows++;
            }
        }
        return total / windows;
    }

    /** The 8-bit luma (ITU-R BT.601 weights, rounded) of every pixel, row-major. */
    static int[] luma(BufferedImage image) {
        int width = image.getWidth();
        int height = image.getHeight();
        int[] rgb = image.getRGB(0, 0, width, height, null, 0, width);
        for (int i = 0; i < rgb.length; i++) {
            int p = rgb[i];
            rgb[i] = (77 * ((p >> 16) & 0xFF) + 150 * ((p >> 8) & 0xFF) + 29 * (p & 0xFF) + 128) >> 8;
        }
        return rgb;
    }

    /** Integral images (one row and column of zeros first) of x, y, x², y² and xy. */
    private static long[][] integralImages(int[] x, int[] y, int width, int height) {
        int stride = width + 1;
        long[][] s = new long[5][stride * (height + 1)];
        for (int r = 0; r < height; r++) {
            long[] row = new long[5];
            for (int c = 0; c < width; c++) {
                int i = r * width + c;
                int a = x[i];
                int b = y[i];
                if (a < 0 || a > 255 || b < 0 || b > 255) {
                    throw new IllegalArgumentException("sample at (" + c + ", " + r + ") is outside [0, 255]: "
                            + a + ", " + b);
                }
                row[0] += a;
                row[1] += b;
                row[2] += (long) a * a;
                row[3] += (long) b * b;
                row[4] += (long) a * b;
                int at = (r + 1) * stride + c + 1;
                for (int k = 0; k < 5; k++) {
                    s[k][at] = s[k][at - stride] + row[k];
                }
            }
        }
        return s;
    }

    private static double boxSum(long[] integral, int width, int left, int top, int w, int h) {
        int stride = width + 1;
        int a = top * stride + left;
        int b = top * stride + left + w;
        int c = (top + h) * stride + left;
        int d = (top + h) * stride + left + w;
        return integral[d] - integral[b] - integral[c] + integral[a];
    }

    @Override
    public String toString() {
        return "Ssim[window=" + window + ", stride=" + stride + "]";
    }
}
