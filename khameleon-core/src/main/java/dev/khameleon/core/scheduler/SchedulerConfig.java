package dev.khameleon.core.scheduler;

import dev.khameleon.core.spi.UtilityFunction;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The settings of a greedy scheduler: cache size {@code C}, request count {@code n} and block
 * count of each request, utility function, chunk size {@code bs}, discount {@code γ}, the
 * planning horizon, how the forecast fades to uniform past its last horizon, the source of
 * randomness, an optional
 * backend-concurrency limit {@code Cb}, and the {@link Selection} rule.
 *
 * <p>Immutable and thread-safe once built; one config may build the schedulers of many
 * sessions ({@link Schedulers#greedy}). Building does the {@code O(n)} preparation once: each
 * request's block count is read once and the utility's marginal gains are computed once per
 * distinct block count. Every builder setter validates its argument at once and throws an
 * {@link IllegalArgumentException} naming the setting and the bad value.
 */
public final class SchedulerConfig {
    /** The default number of blocks planned per chunk, {@code bs} (the paper's default). */
    public static final int DEFAULT_CHUNK_SIZE = 100;
    /** The default discount {@code γ}: no discount. */
    public static final double DEFAULT_DISCOUNT = 1.0;
    /** The default seed of the scheduler's random generator, so runs are reproducible. */
    public static final long DEFAULT_SEED = 0x4B68616D656C656FL;
    /**
     * The default {@link Builder#planningHorizonMillis planning horizon}: each slot is planned
     * on the probability of the next half second, the reach of the default forecast horizons.
     */
    public static final double DEFAULT_PLANNING_HORIZON_MILLIS = 500;
    /**
     * How much probability beyond the planning horizon still counts, relative to probability
     * within it: a little, so that a slot whose horizon holds no unsent block still plans for
     * later in the batch rather than stalling.
     */
    public static final double BEYOND_HORIZON_WEIGHT = 1e-6;
    /**
     * The default {@link Builder#forecastFadeMillis fade} past a distribution's last horizon:
     * one second, after which the plan treats every request as equally likely.
     */
    public static final double DEFAULT_FORECAST_FADE_MILLIS = 1000;
    /**
     * The least weight the scheduler gives a block that is not yet planned: a block whose
     * marginal gain {@code g_i(b)} is below this (a flat stretch of the utility curve) is
     * weighed as if its gain were this, so it is still sent, after the blocks that do add
     * utility in all but a tiny fraction of draws, instead of stalling the push.
     */
    public static final double MIN_BLOCK_GAIN = 1e-9;
    /**
     * The default {@link Builder#blockGainShare share}: no block of an {@code N}-block response
     * weighs less than a fifth of its even share {@code 1/N} of the response's utility.
     */
    public static final double DEFAULT_BLOCK_GAIN_SHARE = 0.2;

    private final int cacheBlocks;
    private final BlockClasses classes;
    private final UtilityFunction utility;
    private final int chunkSize;
    private final double discount;
    private final double minBlockGain;
    private final double blockGainShare;
    private final double planningHorizonMillis;
    private final double forecastFadeMillis;
    private final long seed;
    private final RandomGenerator random;
    private final int backendConcurrency;
    private final BackendLoad backendLoad;
    private final Selection selection;

    private SchedulerConfig(Builder b, BlockClasses classes) {
        this.cacheBlocks = b.cacheBlocks;
        this.classes = classes;
        this.utility = b.utility;
        this.chunkSize = b.chunkSize;
        this.discount = b.discount;
        this.minBlockGain = b.minBlockGain;
        this.blockGainShare = b.blockGainShare;
        this.planningHorizonMillis = b.planningHorizonMillis;
        this.forecastFadeMillis = b.forecastFadeMillis;
        this.seed = b.seed;
        this.random = b.random;
        this.backendConcurrency = b.backendConcurrency;
        this.backendLoad = b.backendLoad;
        this.selection = b.selection;
    }

    /** Starts a builder; {@link Builder#cacheBlocks} and the request count are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Checks {@code C}, the client cache size in blocks: {@code >= 1}. Every component that takes
     * the setting checks it here, so the rule and its message exist once.
     *
     * @return {@code cacheBlocks}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static int checkCacheBlocks(int cacheBlocks) {
        if (cacheBlocks < 1) {
            throw new IllegalArgumentException("cacheBlocks must be >= 1, was " + cacheBlocks);
        }
        return cacheBlocks;
    }

    /**
     * Checks {@code n}, the number of requests: {@code >= 1}.
     *
     * @return {@code requestCount}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static int checkRequestCount(int requestCount) {
        if (requestCount < 1) {
            throw new IllegalArgumentException("requestCount must be >= 1, was " + requestCount);
        }
        return requestCount;
    }

    /**
     * Checks {@code bs}, the slots planned per chunk: {@code >= 1}.
     *
     * @return {@code chunkSize}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static int checkChunkSize(int chunkSize) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be >= 1, was " + chunkSize);
        }
        return chunkSize;
    }

    /**
     * Checks {@code γ}, the per-slot discount: in {@code (0, 1]}.
     *
     * @return {@code discount}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static double checkDiscount(double discount) {
        if (!(discount > 0 && discount <= 1)) {
            throw new IllegalArgumentException("discount must be in (0, 1], was " + discount);
        }
        return discount;
    }

    /**
     * Checks a block gain share: in {@code [0, 1]}.
     *
     * @return {@code share}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static double checkBlockGainShare(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("blockGainShare must be in [0, 1], was " + share);
        }
        return share;
    }

    /**
     * Checks the least block gain: in {@code [MIN_BLOCK_GAIN, 1]}.
     *
     * @return {@code gain}
     * @throws IllegalArgumentException naming the setting and the value otherwise
     */
    public static double checkMinBlockGain(double gain) {
        if (!(gain >= MIN_BLOCK_GAIN && gain <= 1)) {
            throw new IllegalArgumentException("minBlockGain must be in [" + MIN_BLOCK_GAIN + ", 1], was " + gain);
        }
        return gain;
    }

    /** {@code C}: the client cache size in blocks, the length of a batch. */
    public int cacheBlocks() {
        return cacheBlocks;
    }

    /** {@code n}: the number of requests; distributions given to the scheduler must match it. */
    public int requestCount() {
        return classes.requestCount;
    }

    /**
     * {@code N_i}: the number of blocks of request {@code requestId}, or an upper bound on it when
     * {@link #isBlockCountBound(int)} is true.
     */
    public int blockCount(int requestId) {
        checkRequestId(requestId);
        return classes.blockCount(requestId);
    }

    /**
     * Whether the count of {@code requestId} is only an upper bound, the exact count to be told
     * with {@link dev.khameleon.core.spi.Scheduler#blockCountKnown} (see
     * {@link Builder#lazyBlockCounts}).
     */
    public boolean isBlockCountBound(int requestId) {
        checkRequestId(requestId);
        return classes.isLazy(requestId);
    }

    /** The number of requests whose count is an upper bound; 0 when every count is exact. */
    public int lazyBlockCounts() {
        return classes.lazyIds.length;
    }

    private void checkRequestId(int requestId) {
        if (requestId < 0 || requestId >= classes.requestCount) {
            throw new IllegalArgumentException("request id " + requestId + " out of range [0, " + classes.requestCount + ")");
        }
    }

    /** The number of distinct block counts among the requests. */
    public int distinctBlockCounts() {
        return classes.classCount();
    }

    /** The utility function whose marginal gains weigh each block. */
    public UtilityFunction utility() {
        return utility;
    }

    /** {@code bs}: the number of blocks planned per chunk by callers of {@link dev.khameleon.core.spi.Scheduler#next(int)}. */
    public int chunkSize() {
        return chunkSize;
    }

    /** {@code γ} in {@code (0, 1]}: the per-slot discount on future probability. */
    public double discount() {
        return discount;
    }

    /**
     * How many milliseconds ahead of a slot its probability {@code P_{i,t}} fully counts
     * (probability further ahead counts {@link #BEYOND_HORIZON_WEIGHT} as much); infinite when
     * the whole rest of the batch counts, as in the paper.
     */
    public double planningHorizonMillis() {
        return planningHorizonMillis;
    }

    /**
     * The number of slot steps of {@code slotMillis} within the planning horizon:
     * {@code ⌈planningHorizonMillis / slotMillis⌉}, at least 1, {@link Integer#MAX_VALUE} when
     * the horizon is infinite or longer than that many slots.
     */
    int horizonSlots(double slotMillis) {
        double slots = Math.ceil(planningHorizonMillis / slotMillis);
        return slots >= Integer.MAX_VALUE ? Integer.MAX_VALUE : Math.max(1, (int) slots);
    }

    /**
     * How many milliseconds past a distribution's last horizon {@code Δ_m} the forecast takes
     * to fade linearly into the uniform distribution; infinite when it is held for ever.
     */
    public double forecastFadeMillis() {
        return forecastFadeMillis;
    }

    /**
     * The weight of the uniform distribution in the probability the scheduler uses at
     * {@code millis} after the prediction, for a distribution whose last horizon is
     * {@code lastHorizonMillis}: 0 up to that horizon, rising linearly to 1 over
     * {@link #forecastFadeMillis()}, then 1.
     */
    double uniformShare(double millis, double lastHorizonMillis) {
        double past = millis - lastHorizonMillis;
        if (!(past > 0) || forecastFadeMillis == Double.POSITIVE_INFINITY) {
            return 0.0;
        }
        return past >= forecastFadeMillis ? 1.0 : past / forecastFadeMillis;
    }

    /** Whether {@link #uniformShare} can be positive: the fade is finite. */
    boolean fades() {
        return forecastFadeMillis != Double.POSITIVE_INFINITY;
    }

    /** {@code Cb}, the backend-concurrency limit, or 0 when there is none. */
    public int backendConcurrency() {
        return backendConcurrency;
    }

    /** The backend whose load is checked against {@link #backendConcurrency()}; idle when there is no limit. */
    public BackendLoad backendLoad() {
        return backendLoad;
    }

    /** How each slot's request is picked from the gains: {@link Selection#SAMPLE} unless set. */
    public Selection selection() {
        return selection;
    }

    BlockClasses classes() {
        return classes;
    }

    /**
     * The scheduling gains of a response of exactly {@code blockCount} blocks, as
     * {@link BlockClasses#schedulingGains}; for a lazily counted request once its count is known.
     * {@code blockCount} 0 (a request no longer pushed) gives {@code {0}}.
     */
    double[] gainsFor(int blockCount) {
        return blockCount == 0 ? new double[1] : BlockClasses.schedulingGains(utility, blockCount, minBlockGain,
                blockGainShare);
    }

    /**
     * The random generator for one new scheduler: a fresh {@link SplittableRandom} from the
     * seed, or the generator given to {@link Builder#random}, shared as given.
     */
    RandomGenerator newRandom() {
        return random != null ? random : new SplittableRandom(seed);
    }

    @Override
    public String toString() {
        return "SchedulerConfig[C=" + cacheBlocks + ", n=" + requestCount() + ", distinctBlockCounts="
                + distinctBlockCounts() + (lazyBlockCounts() > 0 ? ", lazyBlockCounts=" + lazyBlockCounts() : "")
                + ", utility=" + utility + ", bs=" + chunkSize + ", γ=" + discount
                + ", horizon=" + planningHorizonMillis + "ms, fade=" + forecastFadeMillis + "ms"
                + (backendConcurrency > 0 ? ", Cb=" + backendConcurrency : "") + ", selection=" + selection + "]";
    }

    /**
     * Collects and validates settings. Not thread-safe; {@link #build()} may be called more
     * than once.
     */
    public static final class Builder {
        private int cacheBlocks = -1;
        private int requestCount = -1;
        private int uniformBlocks = 1;
        private int[] blockCountArray;
        private IntUnaryOperator blockCountFunction;
        private IntPredicate lazyBlockCounts;
        private UtilityFunction utility = UtilityFunction.linear();
        private int chunkSize = DEFAULT_CHUNK_SIZE;
        private double discount = DEFAULT_DISCOUNT;
        private double minBlockGain = MIN_BLOCK_GAIN;
        private double blockGainShare = DEFAULT_BLOCK_GAIN_SHARE;
        private double planningHorizonMillis = DEFAULT_PLANNING_HORIZON_MILLIS;
        private double forecastFadeMillis = DEFAULT_FORECAST_FADE_MILLIS;
        private long seed = DEFAULT_SEED;
        private RandomGenerator random;
        private int backendConcurrency;
        private BackendLoad backendLoad = BackendLoad.idle();
        private Selection selection = Selection.SAMPLE;

        private Builder() {
        }

        /** Required: {@code C}, the client cache size in blocks, {@code >= 1}. */
        public Builder cacheBlocks(int cacheBlocks) {
            this.cacheBlocks = checkCacheBlocks(cacheBlocks);
            return this;
        }

        /**
         * {@code n}, the number of requests, {@code >= 1}. Required unless
         * {@link #blockCounts(int[])} gives it.
         */
        public Builder requestCount(int requestCount) {
            this.requestCount = checkRequestCount(requestCount);
            return this;
        }

        /** Every request has {@code blocks} blocks ({@code >= 1}; default 1). */
        public Builder blocksPerRequest(int blocks) {
            if (blocks < 1) {
                throw new IllegalArgumentException("blocksPerRequest must be >= 1, was " + blocks);
            }
            this.uniformBlocks = blocks;
            this.blockCountArray = null;
            this.blockCountFunction = null;
            return this;
        }

        /**
         * Request {@code i} has {@code counts[i]} blocks (each {@code >= 1}); also sets the
         * request count to {@code counts.length}. The array is copied.
         */
        public Builder blockCounts(int[] counts) {
            Objects.requireNonNull(counts, "blockCounts");
            if (counts.length < 1) {
                throw new IllegalArgumentException("blockCounts must have at least one entry");
            }
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] < 1) {
                    throw new IllegalArgumentException("blockCounts: request " + i + " has " + counts[i]
                            + " blocks, must be >= 1");
                }
            }
            this.blockCountArray = counts.clone();
            this.blockCountFunction = null;
            return this;
        }

        /**
         * Request {@code i} has {@code counts.applyAsInt(i)} blocks; the function is called once
         * per request at {@link #build()} (each result must be {@code >= 1}). Needs
         * {@link #requestCount(int)}.
         */
        public Builder blockCounts(IntUnaryOperator counts) {
            this.blockCountFunction = Objects.requireNonNull(counts, "blockCounts");
            this.blockCountArray = null;
            return this;
        }

        /**
         * The requests for which {@code isBound} holds have a block count that is only an upper
         * bound (a response whose size is known once it is encoded): the scheduler plans them on
         * the bound until told the exact count with
         * {@link dev.khameleon.core.spi.Scheduler#blockCountKnown}, and from then on never plans
         * a block index at or past it. Called once per request at {@link #build()}. By default
         * every count is exact, and a config without lazily counted requests plans exactly as
         * before.
         */
        public Builder lazyBlockCounts(IntPredicate isBound) {
            this.lazyBlockCounts = Objects.requireNonNull(isBound, "lazyBlockCounts");
            return this;
        }

        /** The utility function (default {@link UtilityFunction#linear()}); validated at {@link #build()}. */
        public Builder utility(UtilityFunction utility) {
            this.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /** {@code bs}, the default number of blocks per chunk, {@code >= 1} (default 100). */
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
         * {@code [MIN_BLOCK_GAIN, 1]} (default {@link #MIN_BLOCK_GAIN}): each block's marginal
         * utility gain is raised to at least this. On a concave curve the last blocks of a
         * picture add almost nothing, so a spread forecast (a predictor's heavy tail) outbids
         * them with first blocks of unlikely requests and a likely picture stays unfinished; a
         * floor such as 0.03 keeps them worth sending. Utility as reported (upcalls, metrics) is
         * unchanged. See {@code docs/scheduler.md} for measured figures.
         */
        public Builder minBlockGain(double gain) {
            this.minBlockGain = checkMinBlockGain(gain);
            return this;
        }

        /**
         * The least weight of a block relative to its response's size, in {@code [0, 1]} (default
         * {@link #DEFAULT_BLOCK_GAIN_SHARE}): when blocks are compared, each block of an
         * {@code N}-block response weighs at least {@code share / N} (and at least
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
         * The planning horizon: slot {@code t} is planned on the probability of the next
         * {@code millis} (rounded up to whole slots; to the end of the batch if that is sooner),
         * {@code P_{i,t} = Σ_{k=t}^{t+L−1} γ^{k−t}·seg_i(k) + BEYOND_HORIZON_WEIGHT · Σ_{k≥t+L} γ^{k−t}·seg_i(k)}
         * with {@code L = ⌈millis / slotMillis⌉} trapezoid steps {@code seg}, instead of the
         * paper's whole rest of the batch, which at the usual cache sizes is seconds of link
         * time. {@link Double#POSITIVE_INFINITY} restores the paper's rule. Default
         * {@link #DEFAULT_PLANNING_HORIZON_MILLIS}; works with any {@link #discount}.
         */
        public Builder planningHorizonMillis(double millis) {
            if (!(millis > 0)) {
                throw new IllegalArgumentException("planningHorizonMillis must be > 0 (or infinite), was " + millis);
            }
            this.planningHorizonMillis = millis;
            return this;
        }

        /**
         * How the forecast fades: past a distribution's last horizon {@code Δ_m}, the probability
         * the scheduler uses blends linearly from the {@code Δ_m} forecast into the uniform
         * distribution ({@code 1/n} per request) over {@code millis}, and is uniform from
         * {@code Δ_m + millis} on, so the tail of a long batch is not planned on a short
         * forecast held for seconds. {@code 0} switches to uniform right after {@code Δ_m};
         * {@link Double#POSITIVE_INFINITY} holds the {@code Δ_m} forecast for ever (the paper's
         * rule). Default {@link #DEFAULT_FORECAST_FADE_MILLIS}. Works with any
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
         * Each scheduler built from this config draws from a fresh {@link SplittableRandom}
         * seeded with {@code seed} (the default, with {@link #DEFAULT_SEED}).
         */
        public Builder seed(long seed) {
            this.seed = seed;
            this.random = null;
            return this;
        }

        /**
         * Every scheduler built from this config draws from {@code random} itself. Since
         * schedulers are driven by one thread each, build only one scheduler from such a
         * config unless the generator is thread-safe; prefer {@link #seed(long)} otherwise.
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * Limits backend concurrency (the paper's heuristic): a chunk references blocks of at
         * most {@code Cb − load.inFlight()} distinct requests that {@code load} is not already
         * fetching. When no allowed request has positive weight the chunk ends early (possibly
         * empty), and the caller asks again later. Under {@link Selection#MAX_GAIN} the chunk
         * also ends early as soon as the best request is not allowed.
         *
         * @param limit {@code Cb >= 1}
         * @param load  tells the scheduler what is in flight
         */
        public Builder backendConcurrency(int limit, BackendLoad load) {
            if (limit < 1) {
                throw new IllegalArgumentException("backendConcurrency must be >= 1, was " + limit);
            }
            this.backendConcurrency = limit;
            this.backendLoad = Objects.requireNonNull(load, "backendLoad");
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

        /**
         * Validates the combination and builds the config in {@code O(n)}.
         *
         * @throws IllegalArgumentException if {@code cacheBlocks} or the request count is missing,
         *     the request count contradicts {@code blockCounts(int[])}, a block count is below 1,
         *     or the utility is invalid
         */
        public SchedulerConfig build() {
            if (cacheBlocks < 0) {
                throw new IllegalArgumentException("cacheBlocks must be set");
            }
            BlockClasses classes;
            if (blockCountArray != null) {
                if (requestCount >= 0 && requestCount != blockCountArray.length) {
                    throw new IllegalArgumentException("requestCount " + requestCount
                            + " contradicts blockCounts of length " + blockCountArray.length);
                }
                int[] counts = blockCountArray;
                classes = BlockClasses.perRequest(counts.length, i -> counts[i], utility, minBlockGain, blockGainShare);
            } else if (requestCount < 0) {
                throw new IllegalArgumentException("requestCount must be set (or blockCounts(int[]) given)");
            } else if (blockCountFunction != null) {
                classes = BlockClasses.perRequest(requestCount, blockCountFunction, utility, minBlockGain, blockGainShare);
            } else {
                classes = BlockClasses.uniform(requestCount, uniformBlocks, utility, minBlockGain, blockGainShare);
            }
            if (lazyBlockCounts != null) {
                classes = classes.withLazyCounts(lazyBlockCounts);
            }
            return new SchedulerConfig(this, classes);
        }
    }
}
