package dev.khameleon.core.predict;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.spi.ServerPredictor;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import static dev.khameleon.core.predict.ConditionalGaussian.GL_NODES;
import static dev.khameleon.core.predict.ConditionalGaussian.GL_WEIGHTS;
import static dev.khameleon.core.predict.ConditionalGaussian.SUPPORT_SIGMAS;
import static dev.khameleon.core.predict.ConditionalGaussian.subintervals;

/**
 * The server half of a Gaussian pointer predictor (such as the client's Kalman filter): decodes a
 * {@link PointerForecast} state and integrates each horizon's bivariate Gaussian over the cells of
 * a {@link GridLayout}, giving a {@link Distribution} whose explicit part holds the cells of
 * probability at least {@code threshold} and whose uniform residual holds the rest of the mass
 * that falls on the grid. Mass that falls off the grid belongs to no request and is dropped, so
 * every horizon's total is at most 1.
 *
 * <p><b>Integration.</b> Correlation is handled exactly up to quadrature: the probability of
 * cell {@code [a,b] × [c,d]} is written as
 * {@code ∫_a^b φ_x(x) (Φ((d − m(x))/s) − Φ((c − m(x))/s)) dx}, where {@code m(x)} and {@code s}
 * are the mean and standard deviation of y given x, and the outer integral uses 5-point
 * Gauss–Legendre on sub-intervals no wider than the conditional standard deviation of x given
 * y (at most {@value #MAX_SUBINTERVALS} per cell column). The test
 * {@code GaussianGridPredictorTest} measures the error against a fine two-dimensional numerical
 * integration (see {@code docs/client.md} for the bound). Correlations are clamped to
 * {@code |ρ| ≤ 0.999999}.
 *
 * <p><b>Cost.</b> Independent of the number of cells: only cells that can reach the threshold are
 * integrated. A cell's probability is at most its area times the density's maximum over it, so
 * only cells meeting the ellipse of Mahalanobis radius {@code sqrt(2 ln(peak/threshold))} are
 * candidates ({@code peak} = cell area × peak density), which bounds their number by roughly
 * {@code 1/(e·threshold)}; the grid's total mass is one further one-dimensional integral.
 *
 * <p><b>Heavy tail.</b> Each horizon's Gaussian is mixed with a wider one of the same mean, since
 * real pointer strokes are heavier-tailed than a Gaussian; the tail fades while the pointer rests
 * (the state's {@code rest}). See {@link Builder#tail} and {@link Builder#tailRestFadeMillis}.
 *
 * <p>Optionally a point mass {@code w} sits on the cell under the current pointer position: the
 * Gaussian parts are scaled by {@code 1 − w}.
 *
 * <p>Immutable and thread-safe. States are untrusted: malformed ones, non-finite numbers,
 * negative variances, covariances that are not positive semi-definite and horizons other than
 * the configured ones are rejected with {@link IllegalArgumentException}.
 */
public final class GaussianGridPredictor implements ServerPredictor {
    /** The default {@link Builder#tail tail} weight. */
    public static final double DEFAULT_TAIL_WEIGHT = 0.2;
    /** The default {@link Builder#tail tail} widening of the standard deviations. */
    public static final double DEFAULT_TAIL_WIDEN = 2;
    /** The default {@link Builder#tail tail} least standard deviation, in pixels. */
    public static final double DEFAULT_TAIL_MIN_SIGMA = 20;
    /** The default {@link Builder#tailRestFadeMillis time constant} of the tail's fade at rest, in ms. */
    public static final double DEFAULT_TAIL_REST_FADE_MILLIS = 500;

    /** The default {@link Builder#sigmaScale scale} of the forecast's standard deviations: as the client reports them. */
    public static final double DEFAULT_SIGMA_SCALE = 1;

    /**
     * The largest variance integrated, in square pixels (σ = 10^75 px); a state's larger
     * variances are lowered to it, keeping the correlation, so that no arithmetic on them
     * overflows.
     */
    public static final double MAX_VARIANCE = 1e150;

    /** Most Gauss–Legendre sub-intervals per cell column (and 4× that for the grid's total mass). */
    public static final int MAX_SUBINTERVALS = 64;

    private final GridLayout grid;
    private final long[] horizonsMillis;
    private final double threshold;
    private final double pointMass;
    private final double tailWeight;
    private final double tailWiden;
    private final double tailMinSigma;
    private final double tailRestFadeMillis;
    private final double sigmaScale;
    private final Distribution uniform;

    private GaussianGridPredictor(Builder b) {
        this.grid = b.grid;
        this.horizonsMillis = b.horizonsMillis.clone();
        this.threshold = b.threshold;
        this.pointMass = b.pointMass;
        this.tailWeight = b.tailWeight;
        this.tailWiden = b.tailWiden;
        this.tailMinSigma = b.tailMinSigma;
        this.tailRestFadeMillis = b.tailRestFadeMillis;
        this.sigmaScale = b.sigmaScale;
        this.uniform = Distribution.uniform(grid.requestCount(), horizonsMillis);
    }

    /** Starts a builder over {@code grid}. */
    public static Builder builder(GridLayout grid) {
        return new Builder(grid);
    }

    /**
     * Decodes a {@link PointerForecast} state; the empty state {@code {}} (no position yet)
     * decodes to the uniform distribution.
     *
     * @throws IllegalArgumentException if the state is malformed (see the class comment)
     */
    @Override
    public Distribution decode(JsonNode state) {
        if (PointerForecast.isEmptyState(state)) {
            return uniform;
        }
        return distribution(PointerForecast.fromJson(state));
    }

    /**
     * The distribution for an already-decoded forecast.
     *
     * @throws IllegalArgumentException if its horizons differ from the configured ones
     */
    public Distribution distribution(PointerForecast forecast) {
        int m = horizonsMillis.length;
        if (forecast.horizons().size() != m) {
            throw new IllegalArgumentException("forecast has " + forecast.horizons().size() + " horizons, expected "
                    + Arrays.toString(horizonsMillis) + " ms");
        }
        int current = grid.requestAt(forecast.x(), forecast.y());
        Distribution.Builder b = Distribution.builder(grid.requestCount(), horizonsMillis);
        CellSink sink = new CellSink();
        for (int j = 0; j < m; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            if (g.horizonMillis() != horizonsMillis[j]) {
                throw new IllegalArgumentException("forecast horizon " + j + " is " + g.horizonMillis() + " ms, expected "
                        + horizonsMillis[j] + " ms");
            }
            g = scaled(bounded(g));
            sink.clear();
            double w = tailWeightAt(forecast.restMillis());
            double gridMass = w > 0 ? integrateWithTail(g, w, sink) : integrate(g, threshold, sink);
            double scale = current >= 0 ? 1 - pointMass : 1;
            double explicitSum = 0;
            boolean currentListed = false;
            for (int k = 0; k < sink.size; k++) {
                double p = sink.probs[k] * scale;
                if (sink.ids[k] == current) {
                    p += pointMass;
                    currentListed = true;
                }
                explicitSum += p;
                b.explicit(j, sink.ids[k], p);
            }
            if (current >= 0 && !currentListed && pointMass > 0) {
                b.explicit(j, current, pointMass);
                explicitSum += pointMass;
            }
            double residual = Math.max(0, gridMass * scale + (current >= 0 ? pointMass : 0) - explicitSum);
            int listed = sink.size + (current >= 0 && !currentListed && pointMass > 0 ? 1 : 0);
            if (listed >= grid.requestCount()) {
                // Every cell is listed: what is left is the parts of the tail's mixture that fell
                // below the threshold on their own, and there is no cell left to hold it.
                residual = 0;
            }
            // Rounding must never push the total over 1 (Distribution would refuse it).
            b.residual(j, Math.min(residual, Math.max(0, 1 - explicitSum)));
        }
        return b.build();
    }

    /**
     * {@code g} with each variance lowered to at most {@link #MAX_VARIANCE}, keeping its
     * correlation: a state may carry any finite variance, and the tail's widening, the sigma
     * scale and products of variances must stay finite. At σ = 10^75 px the mass on any grid is
     * nil either way.
     */
    static GaussianAtHorizon bounded(GaussianAtHorizon g) {
        if (g.varX() <= MAX_VARIANCE && g.varY() <= MAX_VARIANCE) {
            return g;
        }
        double varX = Math.min(g.varX(), MAX_VARIANCE);
        double varY = Math.min(g.varY(), MAX_VARIANCE);
        return new GaussianAtHorizon(g.horizonMillis(), g.meanX(), g.meanY(), varX,
                g.correlation() * Math.sqrt(varX) * Math.sqrt(varY), varY);
    }

    /**
     * Integrates the mixture {@code (1 − w)·g + w·tail(g)} over the grid, where the tail has
     * {@code g}'s mean and its covariance widened {@code tailWiden²} times (each standard deviation
     * at least {@code tailMinSigma}); cells reaching the threshold go to {@code sink}. Returns
     * the mixture's mass on the grid.
     */
    /** {@code g} with its standard deviations times the configured scale (its covariance times the square). */
    private GaussianAtHorizon scaled(GaussianAtHorizon g) {
        if (sigmaScale == 1) {
            return g;
        }
        double k = sigmaScale * sigmaScale;
        return new GaussianAtHorizon(g.horizonMillis(), g.meanX(), g.meanY(), k * g.varX(), k * g.covXY(), k * g.varY());
    }

    /**
     * The tail's weight for a pointer that has rested {@code restMillis}: the configured weight
     * while it moves, decaying as {@code exp(−rest / fade)} while it rests, so a picture the
     * pointer stays on gets the link to itself.
     */
    double tailWeightAt(long restMillis) {
        // A time constant of 0 gives exp(−∞) = 0, an infinite one exp(−0) = 1.
        return restMillis == 0 ? tailWeight : tailWeight * Math.exp(-restMillis / tailRestFadeMillis);
    }

    private double integrateWithTail(GaussianAtHorizon g, double tailWeight, CellSink sink) {
        double widen = tailWiden * tailWiden;
        double floor = tailMinSigma * tailMinSigma;
        double varX = Math.max(g.varX() * widen, floor);
        double varY = Math.max(g.varY() * widen, floor);
        // Keep the correlation. From ρ, not from the growth of varX·varY: that product overflows
        // (to ∞/∞ = NaN) for variances a client may send, and underflows for tiny ones.
        double covXY = g.correlation() * Math.sqrt(varX) * Math.sqrt(varY);
        GaussianAtHorizon tail = new GaussianAtHorizon(g.horizonMillis(), g.meanX(), g.meanY(), varX, covXY, varY);
        CellSink core = new CellSink();
        CellSink wide = new CellSink();
        double coreMass = integrate(g, threshold, core);
        double wideMass = integrate(tail, threshold, wide);
        java.util.Map<Integer, Double> merged = new java.util.HashMap<>(2 * (core.size + wide.size));
        for (int k = 0; k < core.size; k++) {
            merged.merge(core.ids[k], (1 - tailWeight) * core.probs[k], Double::sum);
        }
        for (int k = 0; k < wide.size; k++) {
            merged.merge(wide.ids[k], tailWeight * wide.probs[k], Double::sum);
        }
        for (Map.Entry<Integer, Double> e : merged.entrySet()) {
            if (e.getValue() >= threshold) {
                sink.add(e.getKey(), e.getValue());
            }
        }
        return (1 - tailWeight) * coreMass + tailWeight * wideMass;
    }

    /**
     * Integrates {@code g} over the grid: every cell whose probability is at least
     * {@code threshold} goes to {@code sink}; returns the total mass on the grid.
     */
    double integrate(GaussianAtHorizon g, double threshold, CellSink sink) {
        ConditionalGaussian c = new ConditionalGaussian(g);
        double cellArea = grid.cellWidth() * grid.cellHeight();
        double peak = cellArea / (2 * Math.PI * c.sx * c.s);
        double explicitMass = 0;
        if (peak >= threshold) {
            double radius = Math.min(SUPPORT_SIGMAS, Math.sqrt(2 * Math.log(peak / threshold)));
            explicitMass = integrateCells(c, radius, threshold, sink);
        }
        return Math.max(explicitMass, gridMass(c));
    }

    private double integrateCells(ConditionalGaussian c, double radius, double threshold, CellSink sink) {
        double left = c.mx - radius * c.sx;
        double right = c.mx + radius * c.sx;
        int c0 = clamp(Math.floor((left - grid.originX()) / grid.cellWidth()), grid.cols());
        int c1 = clamp(Math.floor((right - grid.originX()) / grid.cellWidth()), grid.cols());
        if (right < grid.originX() || left >= grid.originX() + grid.cols() * grid.cellWidth()) {
            return 0;
        }
        double total = 0;
        double[] rowMass = new double[0];
        double[] phi = new double[0];
        for (int col = c0; col <= c1; col++) {
            double a = grid.originX() + col * grid.cellWidth();
            double b = a + grid.cellWidth();
            // Rows that meet the candidate ellipse within this column.
            double ea = Math.max(a, left);
            double eb = Math.min(b, right);
            double yLo = Math.min(c.condMean(ea), c.condMean(eb)) - radius * c.s;
            double yHi = Math.max(c.condMean(ea), c.condMean(eb)) + radius * c.s;
            if (yHi < grid.originY() || yLo >= grid.originY() + grid.rows() * grid.cellHeight()) {
                continue;
            }
            int r0 = clamp(Math.floor((yLo - grid.originY()) / grid.cellHeight()), grid.rows());
            int r1 = clamp(Math.floor((yHi - grid.originY()) / grid.cellHeight()), grid.rows());
            int rows = r1 - r0 + 1;
            if (rowMass.length < rows) {
                rowMass = new double[rows];
                phi = new double[rows + 1];
            }
            Arrays.fill(rowMass, 0, rows, 0);
            // Integrate the whole column over the Gaussian's support, not just the ellipse.
            double ia = Math.max(a, c.mx - SUPPORT_SIGMAS * c.sx);
            double ib = Math.min(b, c.mx + SUPPORT_SIGMAS * c.sx);
            if (ib <= ia) {
                continue;
            }
            int pieces = subintervals(ia, ib, c.h, MAX_SUBINTERVALS);
            double width = (ib - ia) / pieces;
            for (int p = 0; p < pieces; p++) {
                double mid = ia + (p + 0.5) * width;
                for (int k = 0; k < GL_NODES.length; k++) {
                    double x = mid + GL_NODES[k] * width / 2;
                    double fx = GL_WEIGHTS[k] * width / 2 * Normal.pdf((x - c.mx) / c.sx) / c.sx;
                    double m = c.condMean(x);
                    for (int r = 0; r <= rows; r++) {
                        phi[r] = Normal.cdf((grid.originY() + (r0 + r) * grid.cellHeight() - m) / c.s);
                    }
                    for (int r = 0; r < rows; r++) {
                        rowMass[r] += fx * (phi[r + 1] - phi[r]);
                    }
                }
            }
            for (int r = 0; r < rows; r++) {
                double p = rowMass[r];
                total += p;
                if (p >= threshold) {
                    sink.add((r0 + r) * grid.cols() + col, p);
                }
            }
        }
        return total;
    }

    /** The Gaussian's mass on the whole grid rectangle. */
    private double gridMass(ConditionalGaussian c) {
        double top = grid.originY();
        return Math.min(1, c.rectangleMass(grid.originX(), grid.originX() + grid.cols() * grid.cellWidth(), top,
                top + grid.rows() * grid.cellHeight(), 4 * MAX_SUBINTERVALS));
    }

    private static int clamp(double index, int size) {
        return (int) Math.max(0, Math.min(size - 1, index));
    }

    /** Collects the explicit cells of one horizon. */
    static final class CellSink {
        int[] ids = new int[16];
        double[] probs = new double[16];
        int size;

        void add(int id, double p) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
                probs = Arrays.copyOf(probs, size * 2);
            }
            ids[size] = id;
            probs[size++] = p;
        }

        void clear() {
            size = 0;
        }
    }

    /**
     * Checks a {@link Builder#tail tail} setting: weight in {@code [0, 1)}, widen finite and
     * {@code >= 1}, minSigma finite and {@code >= 0}.
     *
     * @throws IllegalArgumentException naming the part and the value otherwise
     */
    public static void checkTail(double weight, double widen, double minSigma) {
        if (!(weight >= 0 && weight < 1)) {
            throw new IllegalArgumentException("tail weight must be in [0, 1), was " + weight);
        }
        if (!(widen >= 1) || Double.isInfinite(widen)) {
            throw new IllegalArgumentException("tail widen must be finite and >= 1, was " + widen);
        }
        if (!(minSigma >= 0) || Double.isInfinite(minSigma)) {
            throw new IllegalArgumentException("tail minSigma must be finite and >= 0, was " + minSigma);
        }
    }

    /**
     * Checks a {@link Builder#tailRestFadeMillis fade time constant}: {@code >= 0} (infinity allowed).
     *
     * @return {@code millis}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static double checkTailRestFadeMillis(double millis) {
        if (!(millis >= 0)) {
            throw new IllegalArgumentException("tailRestFadeMillis must be >= 0, was " + millis);
        }
        return millis;
    }

    /**
     * Checks a {@link Builder#sigmaScale scale of the standard deviations}: in {@code (0, 4]}.
     *
     * @return {@code scale}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static double checkSigmaScale(double scale) {
        if (!(scale > 0 && scale <= 4)) {
            throw new IllegalArgumentException("sigmaScale must be in (0, 4], was " + scale);
        }
        return scale;
    }

    /** The configured grid. */
    public GridLayout grid() {
        return grid;
    }

    /** A copy of the configured horizons in milliseconds. */
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    @Override
    public String toString() {
        return "GaussianGridPredictor[" + grid + ", horizons=" + Arrays.toString(horizonsMillis) + " ms, threshold="
                + threshold + ", pointMass=" + pointMass + ", tail=" + tailWeight + "/" + tailWiden + "/" + tailMinSigma
                + ", tailRestFade=" + tailRestFadeMillis + " ms, sigmaScale=" + sigmaScale + "]";
    }

    /**
     * Configures a {@link GaussianGridPredictor}; each setter validates at once and names the
     * setting in its error. Not thread-safe.
     */
    public static final class Builder {
        private final GridLayout grid;
        private long[] horizonsMillis = Horizons.defaults().toArray();
        private double threshold = 1e-4;
        private double pointMass;
        private double tailWeight = DEFAULT_TAIL_WEIGHT;
        private double tailWiden = DEFAULT_TAIL_WIDEN;
        private double tailMinSigma = DEFAULT_TAIL_MIN_SIGMA;
        private double tailRestFadeMillis = DEFAULT_TAIL_REST_FADE_MILLIS;
        private double sigmaScale = DEFAULT_SIGMA_SCALE;

        private Builder(GridLayout grid) {
            this.grid = Objects.requireNonNull(grid, "grid");
        }

        /**
         * The horizons in milliseconds, strictly increasing; states must carry exactly these.
         * Default 50, 150, 250, 500.
         *
         * @throws IllegalArgumentException if empty, negative or not strictly increasing
         */
        public Builder horizons(long... horizonsMillis) {
            this.horizonsMillis = PointerForecast.checkHorizons("horizons", horizonsMillis);
            return this;
        }

        /**
         * The smallest cell probability listed explicitly (default 1e-4); lower ones go to the
         * uniform residual. Also bounds the work per state to about {@code 1/(e·threshold)} cells.
         *
         * @throws IllegalArgumentException if not in {@code (0, 1]}
         */
        public Builder threshold(double threshold) {
            if (!(threshold > 0 && threshold <= 1)) {
                throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold);
            }
            this.threshold = threshold;
            return this;
        }

        /**
         * The probability put on the cell under the current pointer position at every horizon
         * (default 0); the Gaussian is scaled by {@code 1 − pointMass}.
         *
         * @throws IllegalArgumentException if not in {@code [0, 1]}
         */
        public Builder pointMass(double pointMass) {
            if (!(pointMass >= 0 && pointMass <= 1)) {
                throw new IllegalArgumentException("pointMass must be in [0, 1], was " + pointMass);
            }
            this.pointMass = pointMass;
            return this;
        }

        /**
         * A heavy tail for the forecast: each horizon's Gaussian {@code g} becomes the mixture
         * {@code (1 − weight)·g + weight·t}, where {@code t} has {@code g}'s mean and standard
         * deviations {@code widen} times {@code g}'s, each at least {@code minSigma} pixels. Real
         * pointer strokes are heavier-tailed than a Gaussian, so a narrow forecast (which puts
         * blocks on the few cells the pointer reaches) misses the strokes that go further, and a
         * pointer that stops is about to move to a neighbour: the tail spreads a share of the
         * blocks around both. While the pointer rests its weight fades
         * ({@link #tailRestFadeMillis}), so a picture the pointer stays on still completes.
         * Default {@code tail(0.2, 2, 20)}; {@code tail(0, 1, 0)} turns it off (the paper's plain
         * Gaussian). {@code docs/client.md} has the measured figures.
         *
         * @throws IllegalArgumentException if weight is not in {@code [0, 1)}, widen is not finite
         *     and {@code >= 1}, or minSigma is not finite and {@code >= 0}
         */
        public Builder tail(double weight, double widen, double minSigma) {
            checkTail(weight, widen, minSigma);
            this.tailWeight = weight;
            this.tailWiden = widen;
            this.tailMinSigma = minSigma;
            return this;
        }

        /**
         * The time constant of the tail's fade while the pointer rests, in ms (default
         * {@link #DEFAULT_TAIL_REST_FADE_MILLIS}): a state reporting {@code rest} milliseconds
         * without movement gets the tail weight {@code weight·exp(−rest / millis)}. 0 drops the
         * tail as soon as the pointer rests; {@code Double.POSITIVE_INFINITY} keeps it (a client
         * that does not report {@code rest} is treated as moving either way). A tail that stays
         * while the pointer rests spreads the blocks a resting pointer's picture needs: after a
         * pause full quality then took several times longer.
         *
         * @throws IllegalArgumentException if negative or NaN
         */
        public Builder tailRestFadeMillis(double millis) {
            this.tailRestFadeMillis = checkTailRestFadeMillis(millis);
            return this;
        }

        /**
         * Scales the standard deviations of every forecast's Gaussian before it is integrated
         * (default {@link #DEFAULT_SIGMA_SCALE}, the client's own); the tail widens the scaled
         * Gaussian and keeps its least width. Below 1 the push concentrates on the forecast's
         * centre, above 1 it hedges; see {@code docs/benchmarks.md} for what it does on real traces.
         *
         * @throws IllegalArgumentException if not in {@code (0, 4]}
         */
        public Builder sigmaScale(double scale) {
            this.sigmaScale = checkSigmaScale(scale);
            return this;
        }

        /** Builds the predictor. */
        public GaussianGridPredictor build() {
            return new GaussianGridPredictor(this);
        }
    }
}
