package dev.khameleon.core.scheduler;

import java.util.Objects;

/**
 * How a greedy scheduler is tuned, independent of any one session: chunk size {@code bs},
 * discount {@code γ}, the floors on a block's weight ({@code minBlockGain}, {@code blockGainShare}),
 * the planning horizon, the forecast's fade past its last horizon, and the {@link Selection} rule.
 *
 * <p>The one place these settings are declared and validated: {@link SchedulerConfig}, the
 * server's {@code Application} and {@code SchedulerContext} and the simulator all hold one of
 * these. Immutable and thread-safe; equal when every setting is equal. Build one with
 * {@link #builder()} or start from {@link #defaults()}; every builder setter validates its
 * argument at once and throws an {@link IllegalArgumentException} naming the setting and the bad
 * value.
 */
public final class SchedulerSettings {
    private static final SchedulerSettings DEFAULTS = new Builder().build();

    private final int chunkSize;
    private final double discount;
    private final double minBlockGain;
    private final double blockGainShare;
    private final double planningHorizonMillis;
    private final double forecastFadeMillis;
    private final Selection selection;

    private SchedulerSettings(Builder b) {
        this.chunkSize = b.chunkSize;
        this.discount = b.discount;
        this.minBlockGain = b.minBlockGain;
        this.blockGainShare = b.blockGainShare;
        this.planningHorizonMillis = b.planningHorizonMillis;
        this.forecastFadeMillis = b.forecastFadeMillis;
        this.selection = b.selection;
    }

    /** The library's defaults, the settings of a fresh {@link #builder()}. */
    public static SchedulerSettings defaults() {
        return DEFAULTS;
    }

    /** Starts a builder holding the {@linkplain #defaults() defaults}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.chunkSize = chunkSize;
        b.discount = discount;
        b.minBlockGain = minBlockGain;
        b.blockGainShare = blockGainShare;
        b.planningHorizonMillis = planningHorizonMillis;
        b.forecastFadeMillis = forecastFadeMillis;
        b.selection = selection;
        return b;
    }

    /** {@code bs}: the number of blocks planned per chunk, {@code >= 1} (see {@link Builder#chunkSize}). */
    public int chunkSize() {
        return chunkSize;
    }

    /** {@code γ} in {@code (0, 1]}: the per-slot discount on future probability. */
    public double discount() {
        return discount;
    }

    /** The least weight of a block when blocks are compared (see {@link Builder#minBlockGain}). */
    public double minBlockGain() {
        return minBlockGain;
    }

    /** The least weight of a block relative to its response's even share (see {@link Builder#blockGainShare}). */
    public double blockGainShare() {
        return blockGainShare;
    }

    /** How many milliseconds ahead of a slot its probability fully counts (see {@link Builder#planningHorizonMillis}). */
    public double planningHorizonMillis() {
        return planningHorizonMillis;
    }

    /** Over how many milliseconds past the last horizon the forecast fades to uniform (see {@link Builder#forecastFadeMillis}). */
    public double forecastFadeMillis() {
        return forecastFadeMillis;
    }

    /** How each slot's request is picked from the gains (see {@link Builder#selection}). */
    public Selection selection() {
        return selection;
    }

    /** Equal when every setting is equal (doubles compared as {@link Double#compare} does). */
    @Override
    public boolean equals(Object o) {
        return o instanceof SchedulerSettings s && chunkSize == s.chunkSize
                && Double.compare(discount, s.discount) == 0
                && Double.compare(minBlockGain, s.minBlockGain) == 0
                && Double.compare(blockGainShare, s.blockGainShare) == 0
                && Double.compare(planningHorizonMillis, s.planningHorizonMillis) == 0
                && Double.compare(forecastFadeMillis, s.forecastFadeMillis) == 0
                && selection == s.selection;
    }

    /** Consistent with {@link #equals}. */
    @Override
    public int hashCode() {
        return Objects.hash(chunkSize, discount, minBlockGain, blockGainShare, planningHorizonMillis,
                forecastFadeMillis, selection);
    }

    /** Every setting, by its builder name. */
    @Override
    public String toString() {
        return "SchedulerSettings[chunkSize=" + chunkSize + ", discount=" + discount + ", minBlockGain="
                + minBlockGain + ", blockGainShare=" + blockGainShare + ", planningHorizonMillis="
                + planningHorizonMillis + ", forecastFadeMillis=" + forecastFadeMillis + ", selection=" + selection + "]";
    }

    private static int checkChunkSize(int chunkSize) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be >= 1, was " + chunkSize);
        }
        return chunkSize;
    }

    private static double checkDiscount(double discount) {
        if (!(discount > 0 && discount <= 1)) {
            throw new IllegalArgumentException("discount must be in (0, 1], was " + discount);
        }
        return discount;
    }

    private static double checkMinBlockGain(double gain) {
        if (!(gain >= SchedulerConfig.MIN_BLOCK_GAIN && gain <= 1)) {
            throw new IllegalArgumentException("minBlockGain must be in [" + SchedulerConfig.MIN_BLOCK_GAIN
                    + ", 1], was " + gain);
        }
        return gain;
    }

    private static double checkBlockGainShare(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("blockGainShare must be in [0, 1], was " + share);
        }
        return share;
    }

    /**
     * Collects and validates the settings, starting from the {@linkplain #defaults() defaults}.
     * Not thread-safe; {@link #build()} may be called more than once.
     */
    public static final class Builder {
        private int chunkSize = SchedulerConfig.DEFAULT_CHUNK_SIZE;
        private double discount = SchedulerConfig.DEFAULT_DISCOUNT;
        private double minBlockGain = SchedulerConfig.MIN_BLOCK_GAIN;
        private double blockGainShare = SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE;
        private double planningHorizonMillis = SchedulerConfig.DEFAULT_PLANNING_HORIZON_MILLIS;
        private double forecastFadeMillis = SchedulerConfig.DEFAULT_FORECAST_FADE_MILLIS;
        private Selection selection = Selection.SAMPLE;

        private Builder() {
        }

        /**
         * {@code bs}, the number of blocks planned per chunk by callers of
         * {@link dev.khameleon.core.spi.Scheduler#next(int)}, {@code >= 1} (default
         * {@link SchedulerConfig#DEFAULT_CHUNK_SIZE}, 100).
         */
        public Builder chunkSize(int chunkSize) {
            this.chunkSize = checkChunkSize(chunkSize);
            return this;
        }

        /**
         * {@code γ}, the per-slot discount on future probability, in {@code (0, 1]} (default 1:
         * no discount).
         */
        public Builder discount(double discount) {
            this.discount = checkDiscount(discount);
            return this;
        }

        /**
         * The least weight a block of a response gets when the scheduler compares blocks, in
         * {@code [MIN_BLOCK_GAIN, 1]} (default {@link SchedulerConfig#MIN_BLOCK_GAIN}): each
         * block's marginal utility gain is raised to at least this. On a concave curve the last
         * blocks of a picture add almost nothing, so a spread forecast (a predictor's heavy tail)
         * outbids them with first blocks of unlikely requests and a likely picture stays
         * unfinished; a floor such as 0.03 keeps them worth sending. Utility as reported
         * (upcalls, metrics) is unchanged. See {@code docs/scheduler.md} for measured figures.
         */
        public Builder minBlockGain(double gain) {
            this.minBlockGain = checkMinBlockGain(gain);
            return this;
        }

        /**
         * The least weight of a block relative to its response's size, in {@code [0, 1]} (default
         * {@link SchedulerConfig#DEFAULT_BLOCK_GAIN_SHARE}): when blocks are compared, each block
         * of an {@code N}-block response weighs at least {@code share / N} (and at least
         * {@link #minBlockGain}). On a concave utility curve the last blocks of a picture add
         * almost nothing, so without a floor the uniform residual of a forecast outbids them and
         * a hovered picture completes seconds later than its link allows; with the default a
         * resting pointer's picture completes about twice as fast ({@code docs/scheduler.md}).
         * 0 gives the paper's plain marginal gains. Utility as reported (upcalls, metrics) is
         * unchanged.
         */
        public Builder blockGainShare(double share) {
            this.blockGainShare = checkBlockGainShare(share);
            return this;
        }

        /**
         * The planning horizon, {@code > 0}: slot {@code t} is planned on the probability of the
         * next {@code millis} (rounded up to whole slots; to the end of the batch if that is
         * sooner),
         * {@code P_{i,t} = Σ_{k=t}^{t+L−1} γ^{k−t}·seg_i(k) + BEYOND_HORIZON_WEIGHT · Σ_{k≥t+L} γ^{k−t}·seg_i(k)}
         * with {@code L = ⌈millis / slotMillis⌉} trapezoid steps {@code seg}, instead of the
         * paper's whole rest of the batch, which at the usual cache sizes is seconds of link
         * time. {@link Double#POSITIVE_INFINITY} restores the paper's rule. Default
         * {@link SchedulerConfig#DEFAULT_PLANNING_HORIZON_MILLIS}; works with any {@link #discount}.
         */
        public Builder planningHorizonMillis(double millis) {
            if (!(millis > 0)) {
                throw new IllegalArgumentException("planningHorizonMillis must be > 0 (or infinite), was " + millis);
            }
            this.planningHorizonMillis = millis;
            return this;
        }

        /**
         * How the forecast fades, {@code >= 0}: past a distribution's last horizon {@code Δ_m},
         * the probability the scheduler uses blends linearly from the {@code Δ_m} forecast into
         * the uniform distribution ({@code 1/n} per request) over {@code millis}, and is uniform
         * from {@code Δ_m + millis} on, so the tail of a long batch is not planned on a short
         * forecast held for seconds. {@code 0} switches to uniform right after {@code Δ_m};
         * {@link Double#POSITIVE_INFINITY} holds the {@code Δ_m} forecast for ever (the paper's
         * rule). Default {@link SchedulerConfig#DEFAULT_FORECAST_FADE_MILLIS}. Works with any
         * {@link #discount}.
         */
        public Builder forecastFadeMillis(double millis) {
            if (!(millis >= 0)) {
                throw new IllegalArgumentException("forecastFadeMillis must be >= 0 (or infinite), was " + millis);
            }
            this.forecastFadeMillis = millis;
            return this;
        }

        /**
         * How each slot's request is picked from the gains (default {@link Selection#SAMPLE},
         * the paper's rule). {@link Selection#MAX_GAIN} takes the largest gain instead: closer
         * to the optimum, deterministic, and {@code O(m·K + C)} per block in the fast scheduler.
         *
         * @throws NullPointerException if {@code selection} is null
         */
        public Builder selection(Selection selection) {
            this.selection = Objects.requireNonNull(selection, "selection must not be null");
            return this;
        }

        /** The settings as set so far; every value was validated when it was set. */
        public SchedulerSettings build() {
            return new SchedulerSettings(this);
        }
    }
}
