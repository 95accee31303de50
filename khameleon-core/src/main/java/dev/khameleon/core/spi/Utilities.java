package dev.khameleon.core.spi;

import java.util.Arrays;

/** Built-in utility functions. */
final class Utilities {
    static final UtilityFunction LINEAR = new UtilityFunction() {
        @Override
        public double utility(double fraction) {
            return Math.max(0.0, Math.min(1.0, fraction));
        }

        @Override
        public String toString() {
            return "UtilityFunction.linear()";
        }
    };

    /**
     * The least slope, relative to the linear curve's 1, that every segment of a tabulated
     * curve keeps: below it the curve is mixed with the linear one (see {@link #repaired}).
     */
    static final double MIN_SLOPE = 0.01;

    private Utilities() {
    }

    /**
     * The curve {@link UtilityFunction#tabulated} actually uses for the points
     * {@code (xs[k], ys[k])}, {@code k < size} (x strictly increasing from 0 to 1, y
     * non-decreasing from 0 to 1): their upper concave hull, so a flat or convex stretch gets
     * the average gain up to the next point that improves on it, and, where a hull segment
     * would still rise slower than {@link #MIN_SLOPE} (a stretch already at the top, at 1),
     * {@code (1 − MIN_SLOPE)·hull + MIN_SLOPE·f}. Every block then adds utility, so a
     * scheduler never stalls on a response half sent. Returns the corner points {x, y}.
     */
    static double[][] repaired(double[] xs, double[] ys, int size) {
        double[] hx = new double[size];
        double[] hy = new double[size];
        int h = 0;
        for (int k = 0; k < size; k++) {
            // Drop the last corner while it lies on or below the chord to the new point.
            while (h >= 2 && (hx[h - 1] - hx[h - 2]) * (ys[k] - hy[h - 2])
                    - (hy[h - 1] - hy[h - 2]) * (xs[k] - hx[h - 2]) >= 0) {
                h--;
            }
            hx[h] = xs[k];
            hy[h++] = ys[k];
        }
        double leastSlope = Double.POSITIVE_INFINITY;
        for (int k = 1; k < h; k++) {
            leastSlope = Math.min(leastSlope, (hy[k] - hy[k - 1]) / (hx[k] - hx[k - 1]));
        }
        if (leastSlope < MIN_SLOPE) {
            for (int k = 0; k < h; k++) {
                hy[k] = (1 - MIN_SLOPE) * hy[k] + MIN_SLOPE * hx[k];
            }
            hy[h - 1] = 1.0;
        }
        return new double[][] {Arrays.copyOf(hx, h), Arrays.copyOf(hy, h)};
    }

    static UtilityFunction tabulated(double[] fractions, double[] utilities) {
        if (fractions.length != utilities.length) {
            throw new IllegalArgumentException("fractions and utilities differ in length: "
                    + fractions.length + " vs " + utilities.length);
        }
        int n = fractions.length;
        double[] xs = new double[n + 2];
        double[] ys = new double[n + 2];
        int size = 0;
        for (int i = 0; i < n; i++) {
            double x = fractions[i];
            double y = utilities[i];
            if (!Double.isFinite(x) || x < 0 || x > 1) {
                throw new IllegalArgumentException("fraction[" + i + "] = " + x + " is not in [0, 1]");
            }
            if (!Double.isFinite(y) || y < 0 || y > 1) {
                throw new IllegalArgumentException("utility[" + i + "] = " + y + " is not in [0, 1]");
            }
            if (i > 0 && x <= fractions[i - 1]) {
                throw new IllegalArgumentException("fractions must be strictly increasing, but fraction[" + i + "] = "
                        + x + " <= fraction[" + (i - 1) + "] = " + fractions[i - 1]);
            }
            if (i > 0 && y < utilities[i - 1]) {
                throw new IllegalArgumentException("utilities must be non-decreasing, but utility[" + i + "] = "
                        + y + " < utility[" + (i - 1) + "] = " + utilities[i - 1]);
            }
            if (x == 0 && y != 0) {
                throw new IllegalArgumentException("utility at fraction 0 must be 0, was " + y);
            }
            if (x == 1 && y != 1) {
                throw new IllegalArgumentException("utility at fraction 1 must be 1, was " + y);
            }
        }
        if (n == 0 || fractions[0] > 0) {
            xs[size] = 0;
            ys[size++] = 0;
        }
        for (int i = 0; i < n; i++) {
            xs[size] = fractions[i];
            ys[size++] = utilities[i];
        }
        if (xs[size - 1] < 1) {
            xs[size] = 1;
            ys[size++] = 1;
        }
        double[][] curve = repaired(xs, ys, size);
        double[] px = curve[0];
        double[] py = curve[1];
        return new UtilityFunction() {
            @Override
            public double utility(double f) {
                if (f <= 0) {
                    return 0;
                }
                if (f >= 1) {
                    return 1;
                }
                int k = Arrays.binarySearch(px, f);
                if (k >= 0) {
                    return py[k];
                }
                int hi = -k - 1;
                int lo = hi - 1;
                double w = (f - px[lo]) / (px[hi] - px[lo]);
                return py[lo] + w * (py[hi] - py[lo]);
            }

            @Override
            public String toString() {
                return "UtilityFunction.tabulated(" + Arrays.toString(px) + " -> " + Arrays.toString(py) + ")";
            }
        };
    }
}
