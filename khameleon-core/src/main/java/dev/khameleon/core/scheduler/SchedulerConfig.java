package dev.khameleon.core.scheduler;

import dev.khameleon.core.spi.UtilityFunction;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The settings of a greedy scheduler for one session: cache size {@code C}, request count
 * {@code n} and block count of each request, utility function, the source of randomness, an
 * optional backend-concurrency limit {@code Cb}, and the session-independent tuning, one
 * {@link SchedulerSettings} (chunk size {@code bs}, discount {@code γ}, the floors on a block's
 * weight, the planning horizon, the forecast's fade and the {@link Selection} rule).
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
     * The default {@link SchedulerSettings.Builder#planningHorizonMillis planning horizon}: each slot is planned
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
     * The default {@link SchedulerSettings.Builder#forecastFadeMillis fade} past a distribution's last horizon:
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
     * The default {@link SchedulerSettings.Builder#blockGainShare share}: no block of an {@code N}-block response
     * weighs less than a fifth of its even share {@code 1/N} of the response's utility.
     */
    public static final double DEFAULT_BLOCK_GAIN_SHARE = 0.2;

    private final int cacheBlocks;
    private final BlockClasses classes;
    private final UtilityFunction utility;
    private final SchedulerSettings settings;
    private final long seed;
    private final RandomGenerator random;
    private final int backendConcurrency;
    private final BackendLoad backendLoad;

    private SchedulerConfig(Builder b, BlockClasses classes, SchedulerSettings settings) {
        this.cacheBlocks = b.cacheBlocks;
        this.classes = classes;
        this.utility = b.utility;
        this.settings = settings;
        this.seed = b.seed;
        this.random = b.random;
        this.backendConcurrency = b.backendConcurrency;
        this.backendLoad = b.backendLoad;
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

    /** The session-independent tuning this config was built with. */
    public SchedulerSettings settings() {
        return settings;
    }

    /** {@code bs}: the number of blocks planned per chunk by callers of {@link dev.khameleon.core.spi.Scheduler#next(int)}. */
    public int chunkSize() {
        return settings.chunkSize();
    }

    /** {@code γ} in {@code (0, 1]}: the per-slot discount on future probability. */
    public double discount() {
        return settings.discount();
    }

    /**
     * How many milliseconds ahead of a slot its probability {@code P_{i,t}} fully counts
     * (probability further ahead counts {@link #BEYOND_HORIZON_WEIGHT} as much); infinite when
     * the whole rest of the batch counts, as in the paper.
     */
    public double planningHorizonMillis() {
        return settings.planningHorizonMillis();
    }

    /**
     * The number of slot steps of {@code slotMillis} within the planning horizon:
     * {@code ⌈planningHorizonMillis / slotMillis⌉}, at least 1, {@link Integer#MAX_VALUE} when
     * the horizon is infinite or longer than that many slots.
     */
    int horizonSlots(double slotMillis) {
        double slots = Math.ceil(settings.planningHorizonMillis() / slotMillis);
        return slots >= Integer.MAX_VALUE ? Integer.MAX_VALUE : Math.max(1, (int) slots);
    }

    /**
     * How many milliseconds past a distribution's last horizon {@code Δ_m} the forecast takes
     * to fade linearly into the uniform distribution; infinite when it is held for ever.
     */
    public double forecastFadeMillis() {
        return settings.forecastFadeMillis();
    }

    /**
     * The weight of the uniform distribution in the probability the scheduler uses at
     * {@code millis} after the prediction, for a distribution whose last horizon is
     * {@code lastHorizonMillis}: 0 up to that horizon, rising linearly to 1 over
     * {@link #forecastFadeMillis()}, then 1.
     */
    double uniformShare(double millis, double lastHorizonMillis) {
        double past = millis - lastHorizonMillis;
        double forecastFadeMillis = settings.forecastFadeMillis();
        if (!(past > 0) || forecastFadeMillis == Double.POSITIVE_INFINITY) {
            return 0.0;
        }
        return past >= forecastFadeMillis ? 1.0 : past / forecastFadeMillis;
    }

    /** Whether {@link #uniformShare} can be positive: the fade is finite. */
    boolean fades() {
        return settings.forecastFadeMillis() != Double.POSITIVE_INFINITY;
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
        return settings.selection();
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
        return blockCount == 0 ? new double[1] : BlockClasses.schedulingGains(utility, blockCount,
                settings.minBlockGain(), settings.blockGainShare());
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
                + ", utility=" + utility + ", bs=" + chunkSize() + ", γ=" + discount()
                + ", horizon=" + planningHorizonMillis() + "ms, fade=" + forecastFadeMillis() + "ms"
                + (backendConcurrency > 0 ? ", Cb=" + backendConcurrency : "") + ", selection=" + selection() + "]";
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
        private SchedulerSettings.Builder settings = SchedulerSettings.builder();
        private long seed = DEFAULT_SEED;
        private RandomGenerator random;
        private int backendConcurrency;
        private BackendLoad backendLoad = BackendLoad.idle();

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

        /**
         * Takes every tuning setting from {@code settings}, replacing any set before; the setters
         * below change one setting at a time.
         */
        public Builder settings(SchedulerSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings").toBuilder();
            return this;
        }

        /** {@code bs}, {@code >= 1}: as {@link SchedulerSettings.Builder#chunkSize}. */
        public Builder chunkSize(int chunkSize) {
            settings.chunkSize(chunkSize);
            return this;
        }

        /** {@code γ} in {@code (0, 1]}: as {@link SchedulerSettings.Builder#discount}. */
        public Builder discount(double discount) {
            settings.discount(discount);
            return this;
        }

        /** The least block gain, in {@code [MIN_BLOCK_GAIN, 1]}: as {@link SchedulerSettings.Builder#minBlockGain}. */
        public Builder minBlockGain(double gain) {
            settings.minBlockGain(gain);
            return this;
        }

        /** The least block weight relative to an even share, in {@code [0, 1]}: as {@link SchedulerSettings.Builder#blockGainShare}. */
        public Builder blockGainShare(double share) {
            settings.blockGainShare(share);
            return this;
        }

        /** The planning horizon, {@code > 0}: as {@link SchedulerSettings.Builder#planningHorizonMillis}. */
        public Builder planningHorizonMillis(double millis) {
            settings.planningHorizonMillis(millis);
            return this;
        }

        /** The forecast's fade, {@code >= 0}: as {@link SchedulerSettings.Builder#forecastFadeMillis}. */
        public Builder forecastFadeMillis(double millis) {
            settings.forecastFadeMillis(millis);
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
         * How each slot's request is picked: as {@link SchedulerSettings.Builder#selection}.
         *
         * @throws NullPointerException if {@code selection} is null
         */
        public Builder selection(Selection selection) {
            settings.selection(selection);
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
            SchedulerSettings tuning = settings.build();
            double minBlockGain = tuning.minBlockGain();
            double blockGainShare = tuning.blockGainShare();
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
            return new SchedulerConfig(this, classes, tuning);
        }
    }
}
