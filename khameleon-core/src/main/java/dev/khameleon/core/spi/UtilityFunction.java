package dev.khameleon.core.spi;


/**
 * The expected quality {@code U(f)} of a response of which a fraction {@code f} of the blocks
 * (a prefix) is present: monotone non-decreasing on {@code [0, 1]} with {@code U(0) = 0} and
 * {@code U(1) = 1}.
 *
 * <p>The scheduler only uses the marginal gains {@link #marginalGains(int)}, which validate
 * what an implementation returns: a user implementation that returns NaN, values outside
 * {@code [0, 1]} or a decreasing curve is rejected with a clear message before any
 * scheduling happens.
 */
@FunctionalInterface
public interface UtilityFunction {

    /** The utility of having the fraction {@code fraction} (in {@code [0, 1]}) of the blocks. */
    double utility(double fraction);

    /**
     * The marginal gain array {@code g} for a response of {@code blockCount} blocks:
     * {@code g[b] = U((b+1)/N) − U(b/N)} for {@code b < N}; the array has {@code N + 1}
     * entries and {@code g[N] = 0}, so the scheduler can index it with a request's current
     * block count without a bounds check.
     *
     * @throws IllegalArgumentException if {@code blockCount < 1} or the function is not a
     *     valid utility (non-finite, outside {@code [0, 1]}, decreasing, or not 0 at 0 and 1 at 1)
     */
    default double[] marginalGains(int blockCount) {
        if (blockCount < 1) {
            throw new IllegalArgumentException("blockCount must be >= 1, was " + blockCount);
        }
        double[] u = new double[blockCount + 1];
        for (int b = 0; b <= blockCount; b++) {
            double f = (double) b / blockCount;
            double v = utility(f);
            if (!Double.isFinite(v) || v < 0 || v > 1) {
                throw new IllegalArgumentException("utility(" + f + ") = " + v + " is not in [0, 1]");
            }
            if (b > 0 && v < u[b - 1]) {
                throw new IllegalArgumentException("utility must be non-decreasing, but utility(" + f + ") = " + v
                        + " < utility(" + ((double) (b - 1) / blockCount) + ") = " + u[b - 1]);
            }
            u[b] = v;
        }
        if (u[0] != 0.0) {
            throw new IllegalArgumentException("utility(0) must be 0, was " + u[0]);
        }
        if (Math.abs(u[blockCount] - 1.0) > 1e-9) {
            throw new IllegalArgumentException("utility(1) must be 1, was " + u[blockCount]);
        }
        double[] g = new double[blockCount + 1];
        for (int b = 0; b < blockCount; b++) {
            g[b] = u[b + 1] - u[b];
        }
        return g;
    }

    /** {@code U(f) = f}: every block is worth the same. The default, e.g. for visualisations. */
    static UtilityFunction linear() {
        return Utilities.LINEAR;
    }

    /**
     * A piecewise-linear, strictly increasing, concave utility from measured points
     * {@code (fractions[i], utilities[i])}, e.g. the mean SSIM of prefixes of progressive
     * images. {@code (0, 0)} and {@code (1, 1)} are added when absent.
     *
     * <p>The points are repaired so that every block adds utility: the curve is their upper
     * concave hull (a flat or convex stretch is replaced by the straight line to the next point
     * that improves on it, so its blocks share that gain instead of being worth nothing), and
     * if a segment of the hull still rises by less than 0.01 per unit of fraction (only a
     * stretch that is already at 1 can), the curve becomes {@code 0.99·hull(f) + 0.01·f}.
     * A concave curve whose segments all rise faster than that is used as given. For example
     * {@code tabulated({0.3, 0.5, 1}, {0.75, 0.75, 1})} becomes the line from {@code (0, 0)}
     * to {@code (0.3, 0.75)} and then to {@code (1, 1)}: the flat stretch from 0.3 to 0.5 no
     * longer stops the scheduler at 3 blocks of 8.
     *
     * @throws IllegalArgumentException if the arrays differ in length, a fraction is outside
     *     {@code [0, 1]} or not strictly increasing, a utility is outside {@code [0, 1]} or
     *     decreasing, or a point at 0 or 1 contradicts {@code U(0)=0, U(1)=1}
     */
    static UtilityFunction tabulated(double[] fractions, double[] utilities) {
        return Utilities.tabulated(fractions, utilities);
    }
}
