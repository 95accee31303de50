package dev.khameleon.core.predict;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.Rect;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * The server half of a pointer predictor for any {@link Layout} of rectangles — charts on a
 * page, toolbar buttons, map regions — where {@link GaussianGridPredictor} needs a regular grid.
 * It decodes the same {@link PointerForecast} state the client's Kalman filter sends: the
 * probability of request {@code i} at each horizon is the forecast Gaussian's mass over
 * {@code bounds(i)} (correlation included, integrated numerically), and the mass that falls on
 * no region goes to the uniform residual over the requests not listed (or nowhere, when every
 * request has some mass). Regions should not overlap; where they do, the
 * overlap is counted for each and the explicit part scaled back to a total of 1.
 *
 * <p><b>A prior over the next request</b> ({@link Builder#prior}): applications whose requests
 * follow habits — the chart a crossfilter user brushes after this one, the next step of a
 * workflow — can mix a prior given the request under the pointer into every horizon:
 * {@code (1 − w)·forecast + w·prior(current)}. {@link TransitionPrior} learns one from recorded
 * sessions.
 *
 * <p>Work per state: at most {@code horizons × regions × 320} density evaluations; meant for tens to a
 * few thousand regions (use {@link GaussianGridPredictor} for large grids). Immutable and
 * thread-safe if the prior function is. States are untrusted: malformed ones are rejected with
 * {@link IllegalArgumentException}, as by {@link PointerForecast#fromJson}.
 */
public final class GaussianLayoutPredictor implements ServerPredictor {
    /** Most Gauss–Legendre sub-intervals per region. */
    private static final int MAX_SUBINTERVALS = GaussianGridPredictor.MAX_SUBINTERVALS;

    private final Layout layout;
    private final long[] horizonsMillis;
    private final Rect[] regions;
    private final IntFunction<double[]> prior;
    private final double priorWeight;
    private final Distribution uniform;

    private GaussianLayoutPredictor(Builder b) {
        this.layout = b.layout;
        this.horizonsMillis = b.horizonsMillis.clone();
        this.prior = b.prior;
        this.priorWeight = b.priorWeight;
        int n = layout.requestCount();
        this.regions = new Rect[n];
        for (int i = 0; i < n; i++) {
            regions[i] = Objects.requireNonNull(layout.bounds(i), "layout.bounds(" + i + ")");
        }
        this.uniform = Distribution.uniform(n, horizonsMillis);
    }

    /** Starts a builder over {@code layout} (its regions are read once, at build time). */
    public static Builder builder(Layout layout) {
        return new Builder(layout);
    }

    /**
     * Decodes a {@link PointerForecast} state; the empty state {@code {}} (no position yet)
     * decodes to the prior for "no request" when one is configured, else to the uniform
     * distribution.
     *
     * @throws IllegalArgumentException if the state is malformed, its horizons differ from the
     *     configured ones, or the prior returns an invalid vector
     */
    @Override
    public Distribution decode(JsonNode state) {
        if (PointerForecast.isEmptyState(state)) {
            if (prior == null) {
                return uniform;
            }
            return build(new double[horizonsMillis.length][], priorOf(-1), 1.0);
        }
        return distribution(PointerForecast.fromJson(state));
    }

    /**
     * The distribution for an already-decoded forecast.
     *
     * @throws IllegalArgumentException if its horizons differ from the configured ones, or the
     *     prior returns an invalid vector
     */
    public Distribution distribution(PointerForecast forecast) {
        int m = horizonsMillis.length;
        if (forecast.horizons().size() != m) {
            throw new IllegalArgumentException("forecast has " + forecast.horizons().size() + " horizons, expected "
                    + Arrays.toString(horizonsMillis) + " ms");
        }
        double[][] mass = new double[m][];
        for (int j = 0; j < m; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            if (g.horizonMillis() != horizonsMillis[j]) {
                throw new IllegalArgumentException("forecast horizon " + j + " is " + g.horizonMillis()
                        + " ms, expected " + horizonsMillis[j] + " ms");
            }
            mass[j] = regionMasses(g);
        }
        double[] p = prior == null ? null : priorOf(layout.requestAt(forecast.x(), forecast.y()));
        return build(mass, p, prior == null ? 0 : priorWeight);
    }

    /** {@code (1 − w)·mass[j] + w·prior} per horizon; a null {@code mass[j]} counts as all residual. */
    private Distribution build(double[][] mass, double[] priorMass, double w) {
        int n = regions.length;
        Distribution.Builder b = Distribution.builder(n, horizonsMillis);
        for (int j = 0; j < horizonsMillis.length; j++) {
            double explicitSum = 0;
            int listed = 0;
            for (int i = 0; i < n; i++) {
                double p = (mass[j] == null ? 0 : (1 - w) * mass[j][i]) + (priorMass == null ? 0 : w * priorMass[i]);
                if (p > 0) {
                    b.explicit(j, i, p);
                    explicitSum += p;
                    listed++;
                }
            }
            // The mass on no region goes to the requests not listed; when every request is listed
            // there is none left to hold it, and it stays off (the pointer is between regions).
            b.residual(j, listed == n ? 0 : Math.max(0, 1 - explicitSum));
        }
        return b.build();
    }

    private double[] priorOf(int current) {
        double[] p = prior.apply(current);
        if (p == null || p.length != regions.length) {
            throw new IllegalArgumentException("prior for request " + current + " must have " + regions.length
                    + " entries, had " + (p == null ? "none" : p.length));
        }
        double sum = 0;
        for (double v : p) {
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("prior for request " + current + " has a negative or non-finite entry");
            }
            sum += v;
        }
        if (sum > 1 + Distribution.MASS_TOLERANCE) {
            throw new IllegalArgumentException("prior for request " + current + " sums to " + sum + " > 1");
        }
        return p;
    }

    /** The Gaussian's mass over each region, scaled back to at most 1 in total. */
    private double[] regionMasses(GaussianAtHorizon g) {
        ConditionalGaussian c = new ConditionalGaussian(g);
        double[] out = new double[regions.length];
        double total = 0;
        for (int i = 0; i < regions.length; i++) {
            Rect r = regions[i];
            out[i] = Math.max(0, Math.min(1, c.rectangleMass(r.x(), r.x() + r.width(), r.y(), r.y() + r.height(),
                    MAX_SUBINTERVALS)));
            total += out[i];
        }
        if (total > 1) {
            for (int i = 0; i < out.length; i++) {
                out[i] /= total;
            }
        }
        return out;
    }

    /** The layout this predictor maps forecasts onto. */
    public Layout layout() {
        return layout;
    }

    /** The configured horizons in milliseconds (a copy). */
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    @Override
    public String toString() {
        return "GaussianLayoutPredictor[" + regions.length + " regions, horizons " + Arrays.toString(horizonsMillis)
                + (prior == null ? "" : ", prior weight " + priorWeight) + "]";
    }

    /**
     * Configures a {@link GaussianLayoutPredictor}; each setter validates at once and names the
     * setting in its error. Not thread-safe.
     */
    public static final class Builder {
        private final Layout layout;
        private long[] horizonsMillis = Horizons.defaults().toArray();
        private IntFunction<double[]> prior;
        private double priorWeight;

        private Builder(Layout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
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
         * Mixes a prior into every horizon with weight {@code weight}: {@code prior.apply(current)}
         * gives, for the request under the pointer ({@code -1} for none), a probability per request
         * (length {@code requestCount()}, entries {@code >= 0}, sum {@code <= 1}; what is missing
         * goes to the residual). Called once per state on the scheduler's threads.
         *
         * @throws IllegalArgumentException if weight is not in {@code [0, 1]}
         */
        public Builder prior(IntFunction<double[]> prior, double weight) {
            if (!(weight >= 0 && weight <= 1)) {
                throw new IllegalArgumentException("prior weight must be in [0, 1], was " + weight);
            }
            this.prior = Objects.requireNonNull(prior, "prior");
            this.priorWeight = weight;
            return this;
        }

        /** Builds the predictor. */
        public GaussianLayoutPredictor build() {
            return new GaussianLayoutPredictor(this);
        }
    }
}
