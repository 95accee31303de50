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

    private Utilities() {
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
        double[] px = Arrays.copyOf(xs, size);
        double[] py = Arrays.copyOf(ys, size);
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
