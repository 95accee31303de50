package dev.khameleon.simulator.predict;

import dev.khameleon.simulator.GridSize;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Workload;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How well a pointer forecaster's Gaussians describe where a recorded pointer really went.
 * {@link #evaluate} replays one trace through a fresh forecaster and, at instants on a fixed grid,
 * compares each horizon's Gaussian with the true position, and the distribution over requests
 * that the server predictor ({@link GaussianGridPredictor}) makes of the forecast with the cell
 * that holds the true position; {@link #summaries} condenses the instants per horizon, trace kind
 * and pointer state.
 *
 * <p>Definitions (also in docs/simulator.md, "Forecast calibration"):
 * <ul>
 *   <li>sample times are cut to whole milliseconds as the simulator feeds them, and both the
 *       forecaster and the truth use those times;</li>
 *   <li>the grid runs every {@code everyMillis} from the first sample while {@code now + Δmax} is at
 *       or before the last sample; at {@code now} every sample at or before {@code now} has been fed;</li>
 *   <li>the true position at {@code now + Δ} is the last sample at or before it (the pointer stays
 *       where it last was);</li>
 *   <li>σ is the geometric mean of the 1σ ellipse's semi-axes, {@code det(Σ)^¼} (the radius of the
 *       circle of equal area);</li>
 *   <li>the truth is inside the kσ ellipse when its squared Mahalanobis distance is {@code <= k²};
 *       for a calibrated 2-D Gaussian that happens with probability {@code 1 − exp(−k²/2)};</li>
 *   <li>percentiles are nearest-rank;</li>
 *   <li>an instant is at rest when no sample came in the last {@code restMillis} (strictly more
 *       than {@code restMillis} since the last sample), moving otherwise;</li>
 *   <li>the requests are the simulator's mosaic over the trace's screen
 *       ({@link Workload#mosaic}, {@link GridScoring#layout}); the true cell is the request
 *       {@link GridLayout#requestAt} gives for the true position, as the simulator maps a
 *       pointer to the request it hovers;</li>
 *   <li>the mass on the true cell is {@link Distribution#probability} of the true cell at the
 *       horizon, from a {@link GaussianGridPredictor} at the library's defaults (its horizons the
 *       forecaster's, its sigma scale {@link GridScoring#sigmaScale}); it is 0 when the true
 *       position is off the mosaic, which no Balabit trace does (their screen is the largest
 *       coordinate plus one), and may be 0 when the forecast leaves no residual mass;</li>
 *   <li>the log-likelihood is {@code ln(max(mass, }{@value #MIN_MASS}{@code ))}: the floor keeps
 *       a mass of 0 finite;</li>
 *   <li>the true cell is explicit when it is one of the distribution's explicit cells at the
 *       horizon, not a share of the uniform residual;</li>
 *   <li>the uniform reference is {@code 1 / requestCount}, what the mosaic's uniform
 *       distribution puts on any cell.</li>
 * </ul>
 * Stateless and thread-safe; pure computation.
 */
final class ForecastCalibration {
    /** A trace whose median inter-sample interval is at most this is a 60 Hz trace. */
    static final double SIXTY_HZ_MAX_INTERVAL_MILLIS = 25;
    /** Probability that a 2-D Gaussian draw lies inside its 1σ ellipse. */
    static final double NOMINAL_1_SIGMA = 1 - Math.exp(-0.5);
    /** Probability that a 2-D Gaussian draw lies inside its 2σ ellipse. */
    static final double NOMINAL_2_SIGMA = 1 - Math.exp(-2);
    /** The least mass whose logarithm is taken: a mass of 0 scores {@code ln(1e-12) ≈ −27.6}. */
    static final double MIN_MASS = 1e-12;

    private ForecastCalibration() {
    }

    /** What the calibration needs of a pointer predictor's client half. */
    interface Forecaster {
        /** Feeds one sample; samples arrive in time order. */
        void onEvent(PointerEvent event);

        /** The Gaussians at {@code nowMillis + Δ} per horizon; empty before the first sample. */
        Optional<PointerForecast> forecast(long nowMillis);

        /** The horizons every forecast carries, in milliseconds, increasing. */
        long[] horizonsMillis();

        /** The library's Kalman predictor as a forecaster. */
        static Forecaster of(KalmanPredictor k) {
            return new Forecaster() {
                @Override
                public void onEvent(PointerEvent event) {
                    k.onEvent(event);
                }

                @Override
                public Optional<PointerForecast> forecast(long nowMillis) {
                    return k.forecast(nowMillis);
                }

                @Override
                public long[] horizonsMillis() {
                    return k.horizonsMillis();
                }
            };
        }
    }

    /**
     * How forecasts are turned into distributions over requests: the mosaic (rows × columns over
     * the trace's screen, as the simulator lays it) and the server predictor's scale of the
     * forecast's standard deviations; every other setting of the predictor is the library's.
     *
     * @param mosaic     the mosaic's rows and columns
     * @param sigmaScale {@link GaussianGridPredictor.Builder#sigmaScale}, in {@code (0, 4]}
     */
    record GridScoring(GridSize mosaic, double sigmaScale) {
        /** The simulator's mosaic ({@link SimConfig}'s default) and the library's sigma scale. */
        static final GridScoring DEFAULT = defaults(SimConfig.builder().build());

        private static GridScoring defaults(SimConfig sim) {
            return new GridScoring(new GridSize(sim.mosaicRows(), sim.mosaicCols()),
                    GaussianGridPredictor.DEFAULT_SIGMA_SCALE);
        }

        /** Validates the sigma scale with the predictor's own check. */
        GridScoring {
            Objects.requireNonNull(mosaic, "mosaic");
            GaussianGridPredictor.checkSigmaScale(sigmaScale);
        }

        /**
         * Parses the command line's values.
         *
         * @throws IllegalArgumentException naming {@code --mosaic} or {@code --sigma-scale} for a bad value
         */
        static GridScoring parse(String mosaic, String sigmaScale) {
            GridSize size = GridSize.parse(mosaic, "--mosaic");
            double scale;
            try {
                scale = Double.parseDouble(sigmaScale.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sigma-scale '" + sigmaScale + "' is not a number", e);
            }
            try {
                return new GridScoring(size, scale);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--sigma-scale " + sigmaScale + ": " + e.getMessage(), e);
            }
        }

        /** The mosaic over {@code trace}'s screen, as the simulator lays it. */
        GridLayout layout(PointerTrace trace) {
            return Workload.mosaic(mosaic.rows(), mosaic.cols(), trace.screenWidth(), trace.screenHeight());
        }

        /** The server predictor over {@code layout}: the library's defaults but these horizons and sigma scale. */
        GaussianGridPredictor predictor(GridLayout layout, long[] horizonsMillis) {
            return GaussianGridPredictor.builder(layout).horizons(horizonsMillis).sigmaScale(sigmaScale).build();
        }
    }

    /** A trace's sampling: {@code 60hz} or {@code coalesced} (remote-desktop batching). */
    enum Kind {
        SIXTY_HZ("60hz"),
        COALESCED("coalesced");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        /** {@link #SIXTY_HZ} up to {@link #SIXTY_HZ_MAX_INTERVAL_MILLIS}, else (or NaN) coalesced. */
        static Kind ofMedianInterval(double millis) {
            return millis <= SIXTY_HZ_MAX_INTERVAL_MILLIS ? SIXTY_HZ : COALESCED;
        }
    }

    /** Which instants a summary covers. */
    enum State {
        ALL("all"),
        MOVING("moving"),
        AT_REST("at rest");

        final String label;

        State(String label) {
            this.label = label;
        }

        boolean includes(Instant i) {
            return this == ALL || (this == MOVING) == i.moving();
        }
    }

    /**
     * One evaluation instant; the arrays hold one value per horizon.
     *
     * @param nowMillis    the instant
     * @param moving       whether a sample came within the rest threshold
     * @param errorPx      distance from the forecast mean to the true position
     * @param sigmaPx      the forecast's σ ({@code det(Σ)^¼})
     * @param mahalanobis2 squared Mahalanobis distance of the true position
     * @param massTrueCell the server predictor's probability of the true position's cell (0 off the mosaic)
     * @param trueCellExplicit whether that cell is among the distribution's explicit cells
     */
    record Instant(long nowMillis, boolean moving, double[] errorPx, double[] sigmaPx, double[] mahalanobis2,
                   double[] massTrueCell, boolean[] trueCellExplicit) {
    }

    /**
     * One trace's evaluation.
     *
     * @param name                 the trace's name
     * @param samples              its number of samples
     * @param medianIntervalMillis median time between consecutive samples (NaN for one sample)
     * @param kind                 from the median interval
     * @param horizonsMillis       the forecaster's horizons
     * @param requestCount         the requests (cells) of the mosaic
     * @param instants             the grid instants in time order
     */
    record TraceCalibration(String name, int samples, double medianIntervalMillis, Kind kind, long[] horizonsMillis,
                            int requestCount, List<Instant> instants) {
        long atRest() {
            return instants.stream().filter(i -> !i.moving()).count();
        }
    }

    /**
     * The condensed calibration of one horizon over some instants.
     *
     * @param scope          a trace name, or {@code all} for every trace of the kind
     * @param kind           the traces' kind
     * @param state          which instants
     * @param horizonMillis  the horizon
     * @param count          number of instants
     * @param medianErrorPx  median error of the mean (NaN when {@code count} is 0, as all below)
     * @param p90ErrorPx     90th percentile of the same
     * @param medianSigmaPx  median σ
     * @param coverage1Sigma fraction inside the 1σ ellipse
     * @param coverage2Sigma fraction inside the 2σ ellipse
     * @param meanMass       mean mass on the true cell
     * @param medianMass     median mass on the true cell
     * @param meanLogLikelihood mean of {@link #logLikelihood} of that mass
     * @param trueCellExplicit fraction of instants whose true cell is explicit
     * @param uniformMass    the uniform distribution's mass on a cell, {@code 1 / requestCount}
     *                       (averaged over the instants should traces differ in it)
     */
    record Summary(String scope, Kind kind, State state, long horizonMillis, int count, double medianErrorPx,
                   double p90ErrorPx, double medianSigmaPx, double coverage1Sigma, double coverage2Sigma,
                   double meanMass, double medianMass, double meanLogLikelihood, double trueCellExplicit,
                   double uniformMass) {
    }

    /** {@link #evaluate(PointerTrace, Forecaster, long, long, GridScoring)} with {@link GridScoring#DEFAULT}. */
    static TraceCalibration evaluate(PointerTrace trace, Forecaster forecaster, long everyMillis, long restMillis) {
        return evaluate(trace, forecaster, everyMillis, restMillis, GridScoring.DEFAULT);
    }

    /**
     * Replays {@code trace} through {@code forecaster} (fresh, fed nothing yet) and evaluates it on
     * the grid described in the class comment, scoring each forecast's distribution over
     * {@code scoring}'s mosaic. A trace shorter than the largest horizon has no instants.
     *
     * @throws IllegalArgumentException if {@code everyMillis <= 0} or {@code restMillis < 0}
     * @throws IllegalStateException    if a forecast is missing or carries other horizons than
     *                                  {@link Forecaster#horizonsMillis()}
     */
    static TraceCalibration evaluate(PointerTrace trace, Forecaster forecaster, long everyMillis, long restMillis,
                                     GridScoring scoring) {
        checkGrid(everyMillis, restMillis);
        long[] horizons = forecaster.horizonsMillis();
        GridLayout layout = scoring.layout(trace);
        GaussianGridPredictor server = scoring.predictor(layout, horizons);
        int n = trace.size();
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            // The simulator's clock: nanoseconds rounded, then whole milliseconds.
            t[i] = Math.round(trace.timeMillis(i) * 1e6) / 1_000_000;
        }
        long last = t[n - 1] - horizons[horizons.length - 1];
        List<Instant> instants = new ArrayList<>();
        int fed = 0;
        int[] truth = new int[horizons.length];
        for (long now = t[0]; now <= last; now += everyMillis) {
            while (fed < n && t[fed] <= now) {
                forecaster.onEvent(new PointerEvent(trace.x(fed), trace.y(fed), t[fed]));
                fed++;
            }
            PointerForecast f = forecaster.forecast(now).orElseThrow(
                    () -> new IllegalStateException("no forecast after the first sample"));
            checkHorizons(f, horizons);
            double[] error = new double[horizons.length];
            double[] sigma = new double[horizons.length];
            double[] m2 = new double[horizons.length];
            double[] mass = new double[horizons.length];
            boolean[] explicit = new boolean[horizons.length];
            Distribution d = server.distribution(f);
            for (int j = 0; j < horizons.length; j++) {
                long target = now + horizons[j];
                while (truth[j] + 1 < n && t[truth[j] + 1] <= target) {
                    truth[j]++;
                }
                GaussianAtHorizon g = f.horizons().get(j);
                double x = trace.x(truth[j]);
                double y = trace.y(truth[j]);
                error[j] = Math.hypot(x - g.meanX(), y - g.meanY());
                sigma[j] = sigma(g);
                m2[j] = mahalanobis2(g, x, y);
                int cell = layout.requestAt(x, y);
                mass[j] = cell < 0 ? 0 : d.probability(j, cell);
                explicit[j] = cell >= 0 && isExplicit(d, j, cell);
            }
            instants.add(new Instant(now, now - t[fed - 1] <= restMillis, error, sigma, m2, mass, explicit));
        }
        double median = medianInterval(trace);
        return new TraceCalibration(trace.name(), n, median, Kind.ofMedianInterval(median), horizons.clone(),
                layout.requestCount(), List.copyOf(instants));
    }

    /** Whether {@code id} is one of {@code d}'s explicit ids at horizon {@code j} (they ascend). */
    static boolean isExplicit(Distribution d, int j, int id) {
        int lo = 0;
        int hi = d.explicitCount(j) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int v = d.explicitId(j, mid);
            if (v == id) {
                return true;
            }
            if (v < id) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return false;
    }

    /** {@code ln(max(mass, MIN_MASS))}. */
    static double logLikelihood(double mass) {
        return Math.log(Math.max(mass, MIN_MASS));
    }

    /**
     * Per kind present (in {@link Kind} order), state and horizon, the summary over every trace
     * of that kind, scoped {@code all}; with {@code perTrace}, each trace's own summaries follow
     * its kind's.
     */
    static List<Summary> summaries(List<TraceCalibration> traces, boolean perTrace) {
        List<Summary> out = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            List<TraceCalibration> ofKind = traces.stream().filter(c -> c.kind() == kind).toList();
            if (ofKind.isEmpty()) {
                continue;
            }
            out.addAll(summaries("all", kind, ofKind));
            if (perTrace) {
                for (TraceCalibration c : ofKind) {
                    out.addAll(summaries(c.name(), kind, List.of(c)));
                }
            }
        }
        return out;
    }

    private static List<Summary> summaries(String scope, Kind kind, List<TraceCalibration> traces) {
        long[] horizons = traces.get(0).horizonsMillis();
        List<Summary> out = new ArrayList<>();
        for (State state : State.values()) {
            for (int j = 0; j < horizons.length; j++) {
                out.add(summary(scope, kind, state, horizons[j], j, traces));
            }
        }
        return out;
    }

    private static Summary summary(String scope, Kind kind, State state, long horizon, int j,
                                   List<TraceCalibration> traces) {
        List<Instant> in = new ArrayList<>();
        double uniformSum = 0;
        for (TraceCalibration c : traces) {
            for (Instant i : c.instants()) {
                if (state.includes(i)) {
                    in.add(i);
                    uniformSum += 1.0 / c.requestCount();
                }
            }
        }
        int count = in.size();
        double[] error = new double[count];
        double[] sigma = new double[count];
        double[] mass = new double[count];
        double massSum = 0;
        double logSum = 0;
        int explicit = 0;
        int inside1 = 0;
        int inside2 = 0;
        for (int k = 0; k < count; k++) {
            Instant i = in.get(k);
            error[k] = i.errorPx()[j];
            sigma[k] = i.sigmaPx()[j];
            inside1 += i.mahalanobis2()[j] <= 1 ? 1 : 0;
            inside2 += i.mahalanobis2()[j] <= 4 ? 1 : 0;
            mass[k] = i.massTrueCell()[j];
            massSum += mass[k];
            logSum += logLikelihood(mass[k]);
            explicit += i.trueCellExplicit()[j] ? 1 : 0;
        }
        Arrays.sort(error);
        Arrays.sort(sigma);
        Arrays.sort(mass);
        return new Summary(scope, kind, state, horizon, count, percentile(error, 0.5), percentile(error, 0.9),
                percentile(sigma, 0.5), fraction(inside1, count), fraction(inside2, count), mean(massSum, count),
                percentile(mass, 0.5), mean(logSum, count), fraction(explicit, count), mean(uniformSum, count));
    }

    private static double fraction(int part, int count) {
        return count == 0 ? Double.NaN : (double) part / count;
    }

    private static double mean(double sum, int count) {
        return count == 0 ? Double.NaN : sum / count;
    }

    /**
     * The squared Mahalanobis distance of {@code (x, y)} from {@code g}; for a degenerate
     * covariance, 0 at the mean and infinite elsewhere.
     */
    static double mahalanobis2(GaussianAtHorizon g, double x, double y) {
        double dx = x - g.meanX();
        double dy = y - g.meanY();
        double det = g.varX() * g.varY() - g.covXY() * g.covXY();
        if (!(det > 0)) {
            return dx == 0 && dy == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (g.varY() * dx * dx - 2 * g.covXY() * dx * dy + g.varX() * dy * dy) / det;
    }

    /** The geometric mean of the 1σ ellipse's semi-axes, {@code det(Σ)^¼}. */
    static double sigma(GaussianAtHorizon g) {
        double det = g.varX() * g.varY() - g.covXY() * g.covXY();
        return Math.sqrt(Math.sqrt(Math.max(0, det)));
    }

    /** Nearest-rank percentile of sorted values; NaN when empty. */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double medianInterval(PointerTrace trace) {
        double[] gaps = new double[trace.size() - 1];
        for (int i = 1; i < trace.size(); i++) {
            gaps[i - 1] = trace.timeMillis(i) - trace.timeMillis(i - 1);
        }
        Arrays.sort(gaps);
        return percentile(gaps, 0.5);
    }

    private static void checkHorizons(PointerForecast f, long[] horizons) {
        boolean same = f.horizons().size() == horizons.length;
        for (int j = 0; same && j < horizons.length; j++) {
            same = f.horizons().get(j).horizonMillis() == horizons[j];
        }
        if (!same) {
            throw new IllegalStateException("forecast horizons " + f.horizons().stream()
                    .map(GaussianAtHorizon::horizonMillis).toList() + " differ from " + Arrays.toString(horizons));
        }
    }

    static void checkGrid(long everyMillis, long restMillis) {
        if (everyMillis <= 0) {
            throw new IllegalArgumentException("--every-ms must be > 0, was " + everyMillis);
        }
        if (restMillis < 0) {
            throw new IllegalArgumentException("--rest-ms must be >= 0, was " + restMillis);
        }
    }
}
