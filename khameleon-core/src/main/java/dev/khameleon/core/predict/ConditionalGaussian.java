package dev.khameleon.core.predict;

/**
 * A forecast's bivariate Gaussian written as x's marginal times y given x, the form both server
 * predictors integrate: {@code P(x0 <= X < x1, y0 <= Y < y1) = ∫ φ_x(x) [Φ((y1 − m(x))/s) −
 * Φ((y0 − m(x))/s)] dx}, with 5-point Gauss–Legendre on sub-intervals no wider than the standard
 * deviation of x given y. Variances are floored and correlations clamped so a point-like or
 * degenerate forecast still integrates.
 */
final class ConditionalGaussian {
    /** Integration support in standard deviations: the mass beyond is below 1e-15. */
    static final double SUPPORT_SIGMAS = 8;
    static final double MAX_CORRELATION = 0.999999;
    /** Variance floor in square pixels. */
    static final double MIN_VARIANCE = 1e-6;
    static final double[] GL_NODES = {
        -0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
    static final double[] GL_WEIGHTS = {
        0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891};

    final double mx;
    final double my;
    final double sx;
    /** Standard deviation of y given x. */
    final double s;
    /** Slope of E[y | x]. */
    final double beta;
    /** Sub-interval width: the standard deviation of x given y. */
    final double h;

    ConditionalGaussian(GaussianAtHorizon g) {
        double vx = Math.max(g.varX(), MIN_VARIANCE);
        double vy = Math.max(g.varY(), MIN_VARIANCE);
        double rho = Math.max(-MAX_CORRELATION, Math.min(MAX_CORRELATION, g.covXY() / Math.sqrt(vx * vy)));
        double root = Math.sqrt(1 - rho * rho);
        this.mx = g.meanX();
        this.my = g.meanY();
        this.sx = Math.sqrt(vx);
        double sy = Math.sqrt(vy);
        this.s = sy * root;
        this.beta = rho * sy / sx;
        this.h = sx * root;
    }

    /** E[y | x]. */
    double condMean(double x) {
        return my + beta * (x - mx);
    }

    /** Sub-intervals of {@code [a, b]} no wider than {@code h}, between 1 and {@code max}. */
    static int subintervals(double a, double b, double h, int max) {
        double n = Math.ceil((b - a) / h);
        return (int) Math.max(1, Math.min(max, n));
    }

    /**
     * The mass over {@code [x0, x1) × [y0, y1)}, x clipped to the support, with at most
     * {@code maxSubintervals} sub-intervals.
     */
    double rectangleMass(double x0, double x1, double y0, double y1, int maxSubintervals) {
        double a = Math.max(x0, mx - SUPPORT_SIGMAS * sx);
        double b = Math.min(x1, mx + SUPPORT_SIGMAS * sx);
        if (b <= a || y1 <= y0) {
            return 0;
        }
        int pieces = subintervals(a, b, h, maxSubintervals);
        double width = (b - a) / pieces;
        double sum = 0;
        for (int p = 0; p < pieces; p++) {
            double mid = a + (p + 0.5) * width;
            for (int k = 0; k < GL_NODES.length; k++) {
                double x = mid + GL_NODES[k] * width / 2;
                double m = condMean(x);
                sum += GL_WEIGHTS[k] * width / 2 * Normal.pdf((x - mx) / sx) / sx
                        * (Normal.cdf((y1 - m) / s) - Normal.cdf((y0 - m) / s));
            }
        }
        return sum;
    }
}
