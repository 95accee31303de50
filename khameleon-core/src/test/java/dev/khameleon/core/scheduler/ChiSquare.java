package dev.khameleon.core.scheduler;

/** Chi-square statistics and critical values for the scheduler's distribution tests. */
final class ChiSquare {
    /** The significance level of every per-slot test in this package: 10^-4. */
    static final double ALPHA = 1e-4;
    /** The standard normal quantile at {@code 1 − ALPHA}. */
    private static final double Z = 3.719016;

    private ChiSquare() {
    }

    /**
     * The upper {@link #ALPHA} critical value of a chi-square with {@code df} degrees of freedom
     * (Wilson–Hilferty: slightly conservative, about 7 % high at {@code df = 1}, within 1 % from {@code df = 5}).
     */
    static double critical(int df) {
        double h = 2.0 / (9.0 * df);
        double c = 1 - h + Z * Math.sqrt(h);
        return df * c * c * c;
    }

    /** Goodness of fit of {@code observed} counts to {@code expected} probabilities; returns {statistic, df}. */
    static double[] goodnessOfFit(long[] observed, double[] expected, long draws) {
        double stat = 0;
        int categories = 0;
        double pooledExpected = 0;
        long pooledObserved = 0;
        for (int i = 0; i < observed.length; i++) {
            double e = expected[i] * draws;
            if (e >= 5) {
                stat += (observed[i] - e) * (observed[i] - e) / e;
                categories++;
            } else if (e > 0) {
                pooledExpected += e;
                pooledObserved += observed[i];
            } else if (observed[i] > 0) {
                // Drawn although impossible: no sampling noise explains that.
                return new double[] {Double.POSITIVE_INFINITY, 1};
            }
        }
        if (pooledExpected > 0) {
            stat += (pooledObserved - pooledExpected) * (pooledObserved - pooledExpected) / pooledExpected;
            categories++;
        }
        return new double[] {stat, Math.max(1, categories - 1)};
    }

    /** Homogeneity of two count vectors from equally many draws; returns {statistic, df}. */
    static double[] homogeneity(long[] a, long[] b) {
        double stat = 0;
        int categories = 0;
        long pooledA = 0;
        long pooledB = 0;
        for (int i = 0; i < a.length; i++) {
            long s = a[i] + b[i];
            if (s >= 10) {
                stat += (double) (a[i] - b[i]) * (a[i] - b[i]) / s;
                categories++;
            } else {
                pooledA += a[i];
                pooledB += b[i];
            }
        }
        if (pooledA + pooledB > 0) {
            stat += (double) (pooledA - pooledB) * (pooledA - pooledB) / (pooledA + pooledB);
            categories++;
        }
        return new double[] {stat, Math.max(1, categories - 1)};
    }
}
