package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.core.spi.ClientPredictor;
import org.ejml.data.DMatrixRMaj;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The client half of the Kalman pointer predictor: a linear Kalman filter over the pointer
 * position that forecasts, at each horizon, the mean and full 2×2 covariance of where the
 * pointer will be. Its {@link #state} is a {@link PointerForecast} in JSON, which the server half
 * {@link GaussianGridPredictor} integrates over the application's grid.
 *
 * <p><b>Model.</b> State {@code [x, y, vx, vy]} (constant velocity, by default with the velocity
 * decaying towards 0 with a 150 ms time constant, since pointer movements are short strokes that
 * stop) or {@code [x, y, vx, vy, ax, ay]} (constant acceleration), in pixels and seconds, the two
 * axes independent. Process noise is continuous white noise on the highest derivative with spectral
 * density {@code q} (px²/s³ for velocity, px²/s⁵ for acceleration), discretised exactly for each
 * time step; measurement noise is {@code r·I} (px²) on the observed position. The update uses
 * the Joseph form, so the covariance stays symmetric positive semi-definite.
 *
 * <p><b>Deterministic.</b> No randomness: the first event sets the position, velocity (and
 * acceleration) start at 0, and the initial covariance is
 * {@code diag(r, r, σv², σv²[, σa², σa²])}. A gap of more than {@code resetAfterMillis} between
 * events starts the filter afresh the same way. Events whose time goes backwards are treated as
 * simultaneous with the previous one.
 *
 * <p><b>Anchored on the last sample.</b> Each horizon's mean is the filter's predicted
 * displacement added to the last observed position (which is also the state's {@code x, y}),
 * not to the filtered mean: the filter trails a pointer that stops dead by a few pixels, enough
 * to forecast the neighbouring thumbnail.
 *
 * <p><b>Rest.</b> When the pointer has not moved for two typical intervals between events
 * (smoothed over the events of the moving pointer; at least 30 ms, at most {@code idleMillis}),
 * the forecast keeps the pointer where it is with the current position covariance: a 60 Hz mouse
 * is taken to rest about 32 ms after it stops, a remote desktop that batches events every ~110 ms
 * after about 220 ms. Rest counts from the last event that changed the position, so an
 * application that polls the pointer (and reports the same position every few milliseconds) or
 * re-reports it on clicks is seen at rest as soon as one that reports movements only.
 *
 * <p><b>Calibrated for cache hits.</b> The defaults (q = {@value #DEFAULT_PROCESS_NOISE} px²/s³,
 * decay {@value #DEFAULT_VELOCITY_DECAY_MILLIS} ms) were chosen by simulating the whole push
 * pipeline on real pointer traces, not by position error; the forecast they give is narrow (a
 * standard deviation of a few to a few tens of pixels). {@code docs/client.md} gives the numbers
 * and how to re-calibrate; {@code processNoise(1e7).velocityDecayMillis(50)} is the earlier,
 * wider setting tuned for position error.
 *
 * <p>Pure computation, no threads, not thread-safe: one thread (or the {@link PredictorManager}'s
 * lock) calls {@link #onEvent} and {@link #state}, as {@link ClientPredictor} requires.
 */
public final class KalmanPredictor implements ClientPredictor<PointerEvent> {
    /**
     * The default process noise of the constant-velocity model, px²/s³: with the default velocity
     * decay it keeps the forecast within a few thumbnails of its mean, which is what puts blocks
     * in the cache before a request (see {@code docs/client.md}, calibration).
     */
    public static final double DEFAULT_PROCESS_NOISE = 3e4;
    /** The default velocity decay time constant, ms. */
    public static final double DEFAULT_VELOCITY_DECAY_MILLIS = 150;
    /**
     * The default {@link Builder#alongTrackSpread spread along the predicted displacement}, as a
     * share of its length (see {@code docs/client.md}, calibration).
     */
    public static final double DEFAULT_ALONG_TRACK_SPREAD = 0.5;
    /** Weight of the newest interval in the smoothed interval between events. */
    private static final double GAP_SMOOTHING = 0.1;
    /**
     * The longest rest a state reports, in ms: enough for the server half to fade its tail
     * (ten of its default time constants), short enough that a pointer resting longer costs no
     * traffic (its state no longer changes, and unchanged states are not resent).
     */
    public static final long MAX_REPORTED_REST_MILLIS = 5000;

    /** Typical intervals without an event after which the pointer counts as at rest. */
    private static final double REST_GAPS = 2;
    /** The least time without an event that counts as rest, in ms. */
    private static final long MIN_REST_MILLIS = 30;

    /** The motion model. */
    public enum Model {
        /** {@code [x, y, vx, vy]}, white-noise acceleration. */
        CONSTANT_VELOCITY(4),
        /** {@code [x, y, vx, vy, ax, ay]}, white-noise jerk. */
        CONSTANT_ACCELERATION(6);

        final int dimension;

        Model(int dimension) {
            this.dimension = dimension;
        }
    }

    private final Model model;
    private final int d;
    private final double q;
    private final double r;
    private final long[] horizonsMillis;
    private final long resetAfterMillis;
    private final long idleMillis;
    /** Standard deviation along the predicted displacement, as a share of its length. */
    private final double alongTrackSpread;

    private final PointerFilter filter;
    /** The filter's state: {@code [x, y, vx, vy(, ax, ay)]} and its covariance. */
    private final DMatrixRMaj x;
    private final DMatrixRMaj p;
    private boolean started;
    private long lastMillis;
    /** The last observed position: where the pointer is, which the filtered mean may lag. */
    private double lastX;
    private double lastY;
    /** Time of the last event that moved the pointer (a repeat of the same position does not). */
    private long lastMoveMillis;
    /** Smoothed interval between events while the pointer moves, in ms; NaN until measured. */
    private double gapMillis = Double.NaN;

    private KalmanPredictor(Builder b) {
        this.model = b.model;
        this.d = model.dimension;
        this.q = Double.isNaN(b.processNoise)
                ? (model == Model.CONSTANT_VELOCITY ? DEFAULT_PROCESS_NOISE : 1e9) : b.processNoise;
        this.r = b.measurementNoise;
        this.horizonsMillis = b.horizonsMillis.clone();
        this.resetAfterMillis = b.resetAfterMillis;
        this.idleMillis = b.idleMillis;
        this.alongTrackSpread = b.alongTrackSpread;
        this.filter = new PointerFilter(d, q, r, b.velocitySigma, b.accelerationSigma, b.velocityDecayMillis / 1000.0);
        this.x = filter.x;
        this.p = filter.p;
    }

    /** Starts a builder with the documented defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A constant-velocity predictor with every default (see {@link Builder}). */
    public static KalmanPredictor create() {
        return builder().build();
    }

    /** Feeds one pointer sample: a predict step to its time, then a measurement update. */
    @Override
    public void onEvent(PointerEvent event) {
        long t = event.timeMillis();
        boolean moved = !started || event.x() != lastX || event.y() != lastY;
        lastX = event.x();
        lastY = event.y();
        if (moved) {
            lastMoveMillis = t;
        }
        if (!started || t - lastMillis > resetAfterMillis) {
            filter.start(event.x(), event.y());
            lastMillis = t;
            started = true;
            return;
        }
        if (t > lastMillis) {
            double gap = t - lastMillis;
            if (gap <= idleMillis) {
                // Only intervals of a moving pointer: a pause is not the event rate.
                gapMillis = Double.isNaN(gapMillis) ? gap : gapMillis + GAP_SMOOTHING * (gap - gapMillis);
            }
            filter.step((t - lastMillis) / 1000.0);
            lastMillis = t;
        } else {
            // Same instant as the previous sample (batched or backwards timestamps): the later
            // sample supersedes it, so redo the update from the same prior instead of counting
            // both as independent measurements of one position.
            filter.restorePrior();
        }
        filter.update(event.x(), event.y());
    }

    /**
     * The forecast as JSON ({@link PointerForecast#toJson()}); {@code {}} before the first event.
     */
    @Override
    public JsonNode state(long nowMillis) {
        return forecast(nowMillis).<JsonNode>map(PointerForecast::toJson)
                .orElseGet(JsonNodeFactory.instance::objectNode);
    }

    /**
     * The mean and covariance of the pointer position at {@code nowMillis + Δ} for each horizon
     * {@code Δ}, or empty before the first event.
     */
    public Optional<PointerForecast> forecast(long nowMillis) {
        if (!started) {
            return Optional.empty();
        }
        // Rest is measured from the last movement, not the last event: a pointer that is polled
        // (or re-reported on clicks) keeps sending events at one position.
        boolean resting = nowMillis - lastMoveMillis > restAfterMillis();
        double elapsed = Math.max(0, nowMillis - lastMillis) / 1000.0;
        // The filter's mean trails a pointer that just stopped by a few pixels, enough to sit in
        // the neighbouring cell; the forecast is the filter's predicted displacement added to
        // the last observed position, so a still pointer is forecast exactly where it is.
        double offsetX = lastX - x.get(0);
        double offsetY = lastY - x.get(1);
        DMatrixRMaj mean = new DMatrixRMaj(d, 1);
        DMatrixRMaj cov = new DMatrixRMaj(d, d);
        List<GaussianAtHorizon> out = new ArrayList<>(horizonsMillis.length);
        for (long h : horizonsMillis) {
            mean.setTo(x);
            cov.setTo(p);
            if (!resting) {
                filter.predict(mean, cov, elapsed + h / 1000.0);
            }
            // Where a stroke stops is far less certain than which way it goes: spread the forecast
            // along its predicted displacement D by alongTrackSpread·|D| (Σ += k²·D·Dᵀ), so the
            // cells on the way to the mean, and just past it, carry mass too.
            double dx = mean.get(0) - x.get(0);
            double dy = mean.get(1) - x.get(1);
            double k2 = alongTrackSpread * alongTrackSpread;
            double cxy = (cov.get(0, 1) + cov.get(1, 0)) / 2 + k2 * dx * dy;
            out.add(new GaussianAtHorizon(h, mean.get(0) + offsetX, mean.get(1) + offsetY,
                    cov.get(0, 0) + k2 * dx * dx, cxy, cov.get(1, 1) + k2 * dy * dy));
        }
        // Capped, so that a pointer resting longer sends an unchanged state, which is not resent.
        long rest = resting ? Math.min(MAX_REPORTED_REST_MILLIS, nowMillis - lastMoveMillis) : 0;
        return Optional.of(new PointerForecast(lastX, lastY, out, rest));
    }

    /**
     * How long without a movement means the pointer is at rest: two typical (smoothed) intervals
     * between the events of a moving pointer — a 60 Hz pointer rests after about 32 ms, a remote
     * desktop that batches events every ~110 ms after about 220 ms — at least 30 ms and at most
     * {@code idleMillis}; {@code idleMillis} until an interval has been seen.
     */
    long restAfterMillis() {
        if (Double.isNaN(gapMillis)) {
            return idleMillis;
        }
        return Math.min(idleMillis, Math.max(MIN_REST_MILLIS, Math.round(REST_GAPS * gapMillis)));
    }

    /** Forgets everything: the next event starts the filter afresh. */
    public void reset() {
        started = false;
    }

    /** The configured horizons in milliseconds. */
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    @Override
    public String toString() {
        return "KalmanPredictor[" + model + ", q=" + q + ", r=" + r + ", alongTrackSpread=" + alongTrackSpread
                + ", horizons=" + Arrays.toString(horizonsMillis) + " ms]";
    }

    /**
     * Configures a {@link KalmanPredictor}. Every setter validates at once and names the setting
     * in its error message. Not thread-safe.
     */
    public static final class Builder {
        private Model model = Model.CONSTANT_VELOCITY;
        private double processNoise = Double.NaN;
        private double measurementNoise = 4;
        private double velocitySigma = 1000;
        private double accelerationSigma = 10_000;
        private long[] horizonsMillis = Horizons.defaults().toArray();
        private long resetAfterMillis = 1000;
        private long idleMillis = 250;
        private double velocityDecayMillis = DEFAULT_VELOCITY_DECAY_MILLIS;
        private double alongTrackSpread = DEFAULT_ALONG_TRACK_SPREAD;

        private Builder() {
        }

        /** The motion model. Default {@link Model#CONSTANT_VELOCITY}. */
        public Builder model(Model model) {
            this.model = java.util.Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * The process noise spectral density {@code q}: px²/s³ for constant velocity (default
         * {@value KalmanPredictor#DEFAULT_PROCESS_NOISE}), px²/s⁵ for constant acceleration
         * (default 1e9).
         *
         * @throws IllegalArgumentException if not finite and {@code > 0}
         */
        public Builder processNoise(double q) {
            if (!(q > 0) || Double.isInfinite(q)) {
                throw new IllegalArgumentException("processNoise must be finite and > 0, was " + q);
            }
            this.processNoise = q;
            return this;
        }

        /**
         * The measurement noise variance {@code r} of each coordinate, px² (default 4, i.e. a
         * 2-pixel standard deviation).
         *
         * @throws IllegalArgumentException if not finite and {@code > 0}
         */
        public Builder measurementNoise(double r) {
            if (!(r > 0) || Double.isInfinite(r)) {
                throw new IllegalArgumentException("measurementNoise must be finite and > 0, was " + r);
            }
            this.measurementNoise = r;
            return this;
        }

        /**
         * The standard deviation of the initial velocity (mean 0), px/s. Default 1000.
         *
         * @throws IllegalArgumentException if not finite and {@code > 0}
         */
        public Builder initialVelocitySigma(double sigma) {
            if (!(sigma > 0) || Double.isInfinite(sigma)) {
                throw new IllegalArgumentException("initialVelocitySigma must be finite and > 0, was " + sigma);
            }
            this.velocitySigma = sigma;
            return this;
        }

        /**
         * The standard deviation of the initial acceleration (mean 0), px/s², for the
         * constant-acceleration model. Default 10000.
         *
         * @throws IllegalArgumentException if not finite and {@code > 0}
         */
        public Builder initialAccelerationSigma(double sigma) {
            if (!(sigma > 0) || Double.isInfinite(sigma)) {
                throw new IllegalArgumentException("initialAccelerationSigma must be finite and > 0, was " + sigma);
            }
            this.accelerationSigma = sigma;
            return this;
        }

        /**
         * The forecast horizons in milliseconds, strictly increasing; must equal the server
         * half's. Default 50, 150, 250, 500.
         *
         * @throws IllegalArgumentException if empty, longer than {@link PointerForecast#MAX_HORIZONS},
         *     negative or not strictly increasing
         */
        public Builder horizons(long... horizonsMillis) {
            this.horizonsMillis = PointerForecast.checkHorizons("horizons", horizonsMillis);
            return this;
        }

        /**
         * A gap between events longer than this restarts the filter at the new position.
         * Default 1000 ms.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder resetAfterMillis(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("resetAfterMillis must be >= 0, was " + millis);
            }
            this.resetAfterMillis = millis;
            return this;
        }

        /**
         * The longest time without a movement before the pointer is taken to be at rest; it rests
         * sooner when its events come often (see the class comment). Default 250 ms.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder idleMillis(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("idleMillis must be >= 0, was " + millis);
            }
            this.idleMillis = millis;
            return this;
        }

        /**
         * For the constant-velocity model, the time constant with which the velocity decays
         * towards 0 (an integrated Ornstein–Uhlenbeck process): pointer movements are short
         * strokes that stop, so an undamped extrapolation overshoots. 0 turns damping off (a
         * pure constant-velocity model). Default {@value KalmanPredictor#DEFAULT_VELOCITY_DECAY_MILLIS} ms. Ignored by the
         * constant-acceleration model.
         *
         * @throws IllegalArgumentException if negative or not finite
         */
        public Builder velocityDecayMillis(double millis) {
            if (!(millis >= 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("velocityDecayMillis must be finite and >= 0, was " + millis);
            }
            this.velocityDecayMillis = millis;
            return this;
        }

        /**
         * How far the forecast spreads along the pointer's predicted displacement {@code D} at each
         * horizon: a standard deviation of {@code k·|D|} in its direction is added to the filter's
         * covariance ({@code Σ + k²·D·Dᵀ}), none across it. A moving pointer's forecast becomes an
         * ellipse along its stroke, since where a stroke stops is far less certain than which way
         * it goes; a pointer at rest is unchanged. 0 gives the filter's own, round covariance.
         * Default {@value KalmanPredictor#DEFAULT_ALONG_TRACK_SPREAD}.
         *
         * @throws IllegalArgumentException if negative or not finite
         */
        public Builder alongTrackSpread(double k) {
            if (!(k >= 0) || Double.isInfinite(k)) {
                throw new IllegalArgumentException("alongTrackSpread must be finite and >= 0, was " + k);
            }
            this.alongTrackSpread = k;
            return this;
        }

        /** Builds the predictor. */
        public KalmanPredictor build() {
            return new KalmanPredictor(this);
        }
    }
}
