package dev.khameleon.simulator;

import dev.khameleon.simulator.net.Link;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.simulator.net.MahimahiTrace;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;
import java.util.Objects;

/**
 * The settings of one simulated run. {@link #builder()} is the simulator's <em>reference
 * configuration</em>: every default is set (and explained) there, and the paper's experiments
 * only change the settings they vary. Immutable; validated by the builder.
 *
 * @param mosaicRows               rows of thumbnails
 * @param mosaicCols               columns of thumbnails
 * @param imageBytes               bytes of one full image
 * @param blockBytes               bytes of one progressive block
 * @param utility                  quality vs fraction of blocks
 * @param bandwidthMBps            downlink capacity in MB/s (10^6 bytes), when no network trace
 * @param latencyMillis            request latency: round trip plus backend time, in ms
 * @param cacheMB                  client cache size in MB (10^6 bytes)
 * @param thinkTimeMillis          fixed time between requests, or 0 to replay the trace's own pace
 *                                 (per-sample: the whole trace is scaled so grid samples are this
 *                                 far apart; per-visit: cell entries are this far apart)
 * @param networkTrace             a Mahimahi downlink trace, or null for the fixed bandwidth
 * @param seed                     the seed of every random choice in the run
 * @param predictionIntervalMillis how often the client sends its predictor state
 * @param horizonsMillis           the prediction horizons
 * @param scheduler                the scheduler's tuning (chunk size, block-weight floors, horizon,
 *                                 fade, selection ...), as the library's server takes it
 * @param warmupMillis             time the session is open before the first pointer sample
 * @param drainMillis              time the run continues after the last sample, at most
 * @param alignHorizons            shift each distribution's time origin to when the first
 *                                 re-planned block lands on the client (not what the library's
 *                                 server does; off by default)
 * @param kalman                   the client predictor's settings, the library's where NaN
 * @param requestMode              what counts as a request: every grid sample of the trace
 *                                 (the paper's traces) or every cell entry
 * @param sampleMillis             the grid interval of {@link RequestMode#PER_SAMPLE}, in ms
 * @param tailWeight               the weight of the server predictor's heavy tail
 *                                 ({@code GaussianGridPredictor.Builder.tail}); 0 for none
 * @param tailWiden                the tail's widening factor, {@code >= 1}
 * @param tailMinSigma             the tail's least standard deviation in px, {@code >= 0}
 * @param tailRestFadeMillis       the time constant of the tail's fade while the pointer rests
 *                                 ({@code GaussianGridPredictor.Builder.tailRestFadeMillis})
 * @param sigmaScale               the scale of the forecast's standard deviations
 *                                 ({@code GaussianGridPredictor.Builder.sigmaScale})
 * @param linkQueueKB              the bytes (KB, 10^3) the path holds in front of the bottleneck
 *                                 before the server's channel buffers any: the bottleneck's queue
 *                                 and the sockets' buffers; NaN for one bandwidth-delay product, at
 *                                 least 64 KiB (what the live replay's link shaper queues)
 * @param schedulerTime            how much virtual time a push-engine scheduler job takes
 * @param profile                  the {@link Profile} the picture size, block size and utility
 *                                 are from, or null when they were set one by one
 */
public record SimConfig(int mosaicRows, int mosaicCols, long imageBytes, int blockBytes, UtilityFunction utility,
                        double bandwidthMBps, double latencyMillis, double cacheMB, double thinkTimeMillis,
                        MahimahiTrace networkTrace, long seed, long predictionIntervalMillis, long[] horizonsMillis,
                        SchedulerSettings scheduler, double warmupMillis, double drainMillis, boolean alignHorizons,
                        KalmanSettings kalman, RequestMode requestMode,
                        double sampleMillis, double tailWeight, double tailWiden,
                        double tailMinSigma, double tailRestFadeMillis, double sigmaScale,
                        double linkQueueKB, SchedulerTime schedulerTime, Profile profile) {

    /** Copies the horizons. */
    public SimConfig {
        horizonsMillis = horizonsMillis.clone();
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(kalman, "kalman");
        Objects.requireNonNull(requestMode, "requestMode");
        Objects.requireNonNull(schedulerTime, "schedulerTime");
    }

    /** The profile's name, or {@code custom} when the response was set one setting at a time. */
    public String profileLabel() {
        return profile == null ? "custom" : profile.label();
    }

    /** The path's buffer in front of the bottleneck in bytes: {@link #linkQueueKB()}, or its default rule. */
    public long linkQueueBytes() {
        if (!Double.isNaN(linkQueueKB)) {
            return Math.round(linkQueueKB * 1e3);
        }
        return Math.max(MIN_LINK_QUEUE_BYTES, Math.round(effectiveBandwidthMBps() * 1e6 * latencyMillis / 1e3));
    }

    /** The least default {@link #linkQueueBytes()}: 64 KiB. */
    public static final long MIN_LINK_QUEUE_BYTES = 64 * 1024;

    @Override
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    /** A fresh downlink for one run. */
    public Link newLink() {
        return networkTrace != null ? Link.mahimahi(networkTrace) : Link.fixed(bandwidthMBps * 1e6);
    }

    /** The mean downlink capacity in MB/s (a network trace's mean rate, or the fixed bandwidth). */
    public double effectiveBandwidthMBps() {
        return networkTrace != null ? networkTrace.meanBytesPerSecond() / 1e6 : bandwidthMBps;
    }

    /** One-way latency in ns: half the configured request latency (round trip). */
    public long oneWayNanos() {
        return Math.round(latencyMillis * 1e6 / 2);
    }

    /** The client cache size in bytes. */
    public long cacheBytes() {
        return Math.round(cacheMB * 1e6);
    }

    /**
     * The client half of the predictor as this configuration sets it: a {@link KalmanPredictor}
     * at {@link #horizonsMillis()} with {@link #kalman()}'s settings. A new instance on every call.
     */
    public KalmanPredictor kalmanPredictor() {
        return kalman.predictor(horizonsMillis);
    }

    /**
     * The server half of the predictor over {@code layout} as this configuration sets it: a
     * {@link GaussianGridPredictor} at {@link #horizonsMillis()} with the tail, its fade at rest
     * and the sigma scale given.
     */
    public GaussianGridPredictor gaussianPredictor(GridLayout layout) {
        return GaussianGridPredictor.builder(layout).horizons(horizonsMillis)
                .tail(tailWeight, tailWiden, tailMinSigma)
                .tailRestFadeMillis(tailRestFadeMillis).sigmaScale(sigmaScale).build();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mosaicRows = mosaicRows;
        b.mosaicCols = mosaicCols;
        b.imageBytes = imageBytes;
        b.blockBytes = blockBytes;
        b.utility = utility;
        b.bandwidthMBps = bandwidthMBps;
        b.latencyMillis = latencyMillis;
        b.cacheMB = cacheMB;
        b.thinkTimeMillis = thinkTimeMillis;
        b.networkTrace = networkTrace;
        b.seed = seed;
        b.predictionIntervalMillis = predictionIntervalMillis;
        b.horizonsMillis = horizonsMillis.clone();
        b.scheduler = scheduler.toBuilder();
        b.warmupMillis = warmupMillis;
        b.drainMillis = drainMillis;
        b.alignHorizons = alignHorizons;
        b.kalman = kalman;
        b.requestMode = requestMode;
        b.sampleMillis = sampleMillis;
        b.tailWeight = tailWeight;
        b.tailWiden = tailWiden;
        b.tailMinSigma = tailMinSigma;
        b.tailRestFadeMillis = tailRestFadeMillis;
        b.sigmaScale = sigmaScale;
        b.linkQueueKB = linkQueueKB;
        b.schedulerTime = schedulerTime;
        b.profile = profile;
        return b;
    }

    /** The reference configuration (the paper's defaults), to adjust setting by setting. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String toString() {
        return "SimConfig[" + profileLabel() + ": " + mosaicRows + "x" + mosaicCols + " images of " + imageBytes
                + " B in blocks of " + blockBytes + " B, " + (networkTrace != null ? networkTrace.name() : bandwidthMBps + " MB/s")
                + ", " + latencyMillis + " ms, cache " + cacheMB + " MB, think " + thinkTimeMillis + " ms, seed "
                + seed + ", horizons " + Arrays.toString(horizonsMillis) + ", " + requestMode.label()
                + (requestMode == RequestMode.PER_SAMPLE ? " every " + sampleMillis + " ms" : "") + "]";
    }

    /**
     * Builds a {@link SimConfig}; each setter validates its value at once and names the setting
     * in its error. Not thread-safe.
     */
    public static final class Builder {
        // The paper's mosaic: 10,000 thumbnails covering the screen the trace was recorded on.
        private int mosaicRows = 100;
        private int mosaicCols = 100;
        // The setting docs/results was produced at (Profile.PAPER_PROTOTYPE: the prototype gallery's
        // 1,024,862 B pictures in 50 blocks of 20 KiB, its utility vector); --profile library-default
        // and legacy-100k are the others.
        private Profile profile = Profile.PAPER_PROTOTYPE;
        private long imageBytes = profile.imageBytes();
        private int blockBytes = profile.blockBytes();
        private UtilityFunction utility = profile.utility();
        // The paper's default bandwidth (MB/s) and request latency (ms, round trip + backend).
        private double bandwidthMBps = 5.625;
        private double latencyMillis = 100;
        // The paper's default client cache.
        private double cacheMB = 50;
        // 0: replay the recorded pace; > 0: one request every thinkTimeMillis (paper Fig. 9).
        private double thinkTimeMillis = 0;
        // null: fixed bandwidth; otherwise the Mahimahi downlink trace (paper Fig. 13).
        private MahimahiTrace networkTrace = null;
        // Fixed seed: the same configuration gives byte-identical results.
        private long seed = 1;
        // The paper's client sends its predictor state every 150 ms ...
        private long predictionIntervalMillis = 150;
        // ... with distributions at these horizons.
        private long[] horizonsMillis = Horizons.defaults().toArray();
        // The library's scheduler tuning, among it the slots per scheduler call before it checks
        // for a new distribution (the paper's bs, 100).
        private SchedulerSettings.Builder scheduler = SchedulerSettings.builder();
        // 0: the first pointer sample comes as the session opens (no head start for push).
        private double warmupMillis = 0;
        // After the last sample, let queued responses land and the last request converge.
        private double drainMillis = 30_000;
        // false: like the library's server, a distribution's horizons count from the first
        // re-planned slot although the client made the prediction about one round trip before
        // that slot lands. true: shift them by that lag (an experiment, see docs/simulator.md).
        private boolean alignHorizons = false;
        private KalmanSettings kalman = KalmanSettings.LIBRARY;
        // The paper's traces log a request every ~20 ms sample, repeats of the same thumbnail
        // included, and its metrics are over those requests: per-sample on a 20 ms grid.
        // PER_VISIT (one request per cell entry) is the other view of the same replay.
        private RequestMode requestMode = RequestMode.PER_SAMPLE;
        private double sampleMillis = 20;
        // The library's defaults.
        private double tailWeight = GaussianGridPredictor.DEFAULT_TAIL_WEIGHT;
        private double tailWiden = GaussianGridPredictor.DEFAULT_TAIL_WIDEN;
        private double tailMinSigma = GaussianGridPredictor.DEFAULT_TAIL_MIN_SIGMA;
        private double tailRestFadeMillis = GaussianGridPredictor.DEFAULT_TAIL_REST_FADE_MILLIS;
        private double sigmaScale = GaussianGridPredictor.DEFAULT_SIGMA_SCALE;
        // One bandwidth-delay product in front of the bottleneck, as the live replay's shaper queues.
        private double linkQueueKB = Double.NaN;
        // A model of the scheduler's cost, so that a run is a pure function of its inputs.
        private SchedulerTime schedulerTime = SchedulerTime.MODEL;

        private Builder() {
        }

        /** Sets the mosaic size; both {@code >= 1}. */
        public Builder mosaic(int rows, int cols) {
            if (rows < 1 || cols < 1) {
                throw new IllegalArgumentException("mosaic must be >= 1x1, was " + rows + "x" + cols);
            }
            this.mosaicRows = rows;
            this.mosaicCols = cols;
            return this;
        }

        /** Takes the picture size, block size and utility of {@code p} (default {@link Profile#PAPER_PROTOTYPE}). */
        public Builder profile(Profile p) {
            this.profile = Objects.requireNonNull(p, "profile");
            this.imageBytes = p.imageBytes();
            this.blockBytes = p.blockBytes();
            this.utility = p.utility();
            return this;
        }

        /** Sets the bytes of a full image; {@code >= 1}. A value other than the profile's leaves no profile. */
        public Builder imageBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("--image-bytes must be >= 1, was " + bytes);
            }
            if (bytes != imageBytes) {
                profile = null;
            }
            this.imageBytes = bytes;
            return this;
        }

        /** Sets the block size in bytes; {@code >= 1}. A value other than the profile's leaves no profile. */
        public Builder blockBytes(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("--block-bytes must be >= 1, was " + bytes);
            }
            if (bytes != blockBytes) {
                profile = null;
            }
            this.blockBytes = bytes;
            return this;
        }

        /** Sets the utility function. Another function than the profile's leaves no profile. */
        public Builder utility(UtilityFunction utility) {
            if (utility != this.utility) {
                profile = null;
            }
            this.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /** Sets the fixed bandwidth in MB/s; finite and {@code > 0}. */
        public Builder bandwidthMBps(double mbps) {
            if (!(mbps > 0) || Double.isInfinite(mbps)) {
                throw new IllegalArgumentException("bandwidthMBps must be finite and > 0, was " + mbps);
            }
            this.bandwidthMBps = mbps;
            return this;
        }

        /** Sets the request latency (round trip + backend) in ms; finite and {@code >= 0}. */
        public Builder latencyMillis(double millis) {
            if (!(millis >= 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("latencyMillis must be finite and >= 0, was " + millis);
            }
            this.latencyMillis = millis;
            return this;
        }

        /** Sets the client cache in MB; finite and {@code >= 0}. */
        public Builder cacheMB(double mb) {
            if (!(mb >= 0) || Double.isInfinite(mb)) {
                throw new IllegalArgumentException("cacheMB must be finite and >= 0, was " + mb);
            }
            this.cacheMB = mb;
            return this;
        }

        /** Sets a fixed think time in ms, or 0 to replay the recorded pace. */
        public Builder thinkTimeMillis(double millis) {
            if (!(millis >= 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("thinkTimeMillis must be finite and >= 0, was " + millis);
            }
            this.thinkTimeMillis = millis;
            return this;
        }

        /** Uses a Mahimahi downlink trace instead of the fixed bandwidth (null to go back). */
        public Builder networkTrace(MahimahiTrace trace) {
            this.networkTrace = trace;
            return this;
        }

        /** Sets the seed. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Sets how often the client sends predictor state, in ms; {@code >= 1}. */
        public Builder predictionIntervalMillis(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("predictionIntervalMillis must be >= 1, was " + millis);
            }
            this.predictionIntervalMillis = millis;
            return this;
        }

        /** Sets the prediction horizons in ms; non-empty, non-negative, strictly increasing. */
        public Builder horizonsMillis(long... horizons) {
            this.horizonsMillis = Horizons.check("horizonsMillis", horizons);
            return this;
        }

        /** Sets the scheduler's whole tuning (default {@link SchedulerSettings#defaults()}), replacing what was set. */
        public Builder scheduler(SchedulerSettings settings) {
            this.scheduler = Objects.requireNonNull(settings, "scheduler").toBuilder();
            return this;
        }

        /** Sets the scheduler's chunk size; {@code >= 1} ({@link SchedulerSettings.Builder#chunkSize}). */
        public Builder chunkSize(int slots) {
            scheduler.chunkSize(slots);
            return this;
        }

        /** Sets the warm-up before the first sample in ms; finite and {@code >= 0}. */
        public Builder warmupMillis(double millis) {
            if (!(millis >= 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("warmupMillis must be finite and >= 0, was " + millis);
            }
            this.warmupMillis = millis;
            return this;
        }

        /** Sets the longest drain after the last sample in ms; finite and {@code >= 0}. */
        public Builder drainMillis(double millis) {
            if (!(millis >= 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("drainMillis must be finite and >= 0, was " + millis);
            }
            this.drainMillis = millis;
            return this;
        }

        /** Shifts each distribution's origin to when its first re-planned block lands (default false). */
        public Builder alignHorizons(boolean align) {
            this.alignHorizons = align;
            return this;
        }

        /** Sets the Kalman process noise {@code q} (px²/s³), finite and {@code > 0}; NaN for the library default. */
        public Builder kalmanProcessNoise(double q) {
            this.kalman = kalman.withProcessNoise(q);
            return this;
        }

        /** Sets the Kalman velocity decay (ms), finite and {@code >= 0}; NaN for the library default. */
        public Builder kalmanVelocityDecayMillis(double millis) {
            this.kalman = kalman.withVelocityDecayMillis(millis);
            return this;
        }

        /** Sets the forecast's spread along the predicted displacement, finite and {@code >= 0}; NaN for the library default. */
        public Builder kalmanAlongTrackSpread(double k) {
            this.kalman = kalman.withAlongTrackSpread(k);
            return this;
        }

        /** Sets what counts as a request (default {@link RequestMode#PER_SAMPLE}). */
        public Builder requestMode(RequestMode mode) {
            this.requestMode = Objects.requireNonNull(mode, "requestMode");
            return this;
        }

        /** Sets the per-sample grid interval in ms (default 20); finite and {@code > 0}. */
        public Builder sampleMillis(double millis) {
            if (!(millis > 0) || Double.isInfinite(millis)) {
                throw new IllegalArgumentException("sampleMillis must be finite and > 0, was " + millis);
            }
            this.sampleMillis = millis;
            return this;
        }

        /** Sets the scheduler's least block gain ({@link SchedulerSettings.Builder#minBlockGain}). */
        public Builder minBlockGain(double gain) {
            scheduler.minBlockGain(gain);
            return this;
        }

        /** Sets the scheduler's least block weight relative to an even share ({@link SchedulerSettings.Builder#blockGainShare}). */
        public Builder blockGainShare(double share) {
            scheduler.blockGainShare(share);
            return this;
        }

        /**
         * Sets the time constant of the tail's fade while the pointer rests, ms (default the
         * library's, {@code GaussianGridPredictor.DEFAULT_TAIL_REST_FADE_MILLIS}); {@code >= 0}.
         *
         * @throws IllegalArgumentException with the predictor's own message for a bad setting
         */
        public Builder tailRestFadeMillis(double millis) {
            this.tailRestFadeMillis = GaussianGridPredictor.checkTailRestFadeMillis(millis);
            return this;
        }

        /**
         * Sets the scale of the forecast's standard deviations ({@code GaussianGridPredictor.Builder.sigmaScale});
         * default the library's, 1; in {@code (0, 4]}.
         *
         * @throws IllegalArgumentException with the predictor's own message for a bad setting
         */
        public Builder sigmaScale(double scale) {
            this.sigmaScale = GaussianGridPredictor.checkSigmaScale(scale);
            return this;
        }

        /**
         * Sets the server predictor's heavy tail ({@code GaussianGridPredictor.Builder.tail});
         * default the library's, {@code (0.2, 2, 20)}; weight 0 for none.
         *
         * @throws IllegalArgumentException with the predictor's own message for a bad setting
         */
        public Builder tail(double weight, double widen, double minSigma) {
            GaussianGridPredictor.checkTail(weight, widen, minSigma);
            this.tailWeight = weight;
            this.tailWiden = widen;
            this.tailMinSigma = minSigma;
            return this;
        }

        /**
         * Sets the bytes (KB, 10^3) the path holds in front of the bottleneck, {@code >= 0} and
         * finite; NaN for the default, one bandwidth-delay product and at least 64 KiB.
         */
        public Builder linkQueueKB(double kb) {
            if (!Double.isNaN(kb) && !(kb >= 0 && kb < 1e9)) {
                throw new IllegalArgumentException("--link-queue-KB must be in [0, 1e9), was " + kb);
            }
            this.linkQueueKB = kb;
            return this;
        }

        /** Sets how much virtual time a push-engine scheduler job takes (default {@link SchedulerTime#MODEL}). */
        public Builder schedulerTime(SchedulerTime time) {
            this.schedulerTime = Objects.requireNonNull(time, "schedulerTime");
            return this;
        }

        /** Builds the configuration. */
        public SimConfig build() {
            return new SimConfig(mosaicRows, mosaicCols, imageBytes, blockBytes, utility, bandwidthMBps,
                    latencyMillis, cacheMB, thinkTimeMillis, networkTrace, seed, predictionIntervalMillis,
                    horizonsMillis, scheduler.build(), warmupMillis, drainMillis, alignHorizons, kalman,
                    requestMode, sampleMillis, tailWeight, tailWiden, tailMinSigma,
                    tailRestFadeMillis, sigmaScale, linkQueueKB, schedulerTime, profile);
        }
    }
}
