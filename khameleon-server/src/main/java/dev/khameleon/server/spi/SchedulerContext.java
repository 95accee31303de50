package dev.khameleon.server.spi;

import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * Everything a {@link SchedulerFactory} needs to build one session's scheduler.
 *
 * @param cacheBlocks        {@code C}, the client's ring size in blocks (from its hello), {@code >= 1}
 * @param requestCount       {@code n}, {@code >= 1}
 * @param blockCounts        the block count of each request, each {@code >= 1} (an upper bound where
 *                           {@code blockCountIsBound} holds); cheap, thread-safe
 * @param utility            the application's utility function
 * @param chunkSize          the number of slots the server asks for at a time, {@code >= 1}
 * @param discount           the per-slot discount {@code γ}, in {@code (0, 1]}
 * @param seed               a seed for the scheduler's random source, distinct per session
 * @param backendConcurrency {@code Cb}, the limit on distinct requests being fetched at once; 0 for none
 * @param backendInFlight    the number of distinct requests being fetched now (across all sessions
 *                           of the application); thread-safe and non-blocking
 * @param backendIsFetching  whether a request is being fetched now; thread-safe and non-blocking
 * @param minBlockGain       the least weight of a block when blocks are compared, in
 *                           {@code [SchedulerConfig.MIN_BLOCK_GAIN, 1]} (see
 *                           {@link SchedulerConfig.Builder#minBlockGain})
 * @param blockGainShare     the least weight of a block relative to its response's even share, in
 *                           {@code [0, 1]} (see {@link SchedulerConfig.Builder#blockGainShare})
 * @param blockCountIsBound  whether a request's count is only an upper bound, its exact count
 *                           told later with {@link dev.khameleon.core.spi.Scheduler#blockCountKnown}
 *                           (see {@link dev.khameleon.core.spi.BlockSource#isBlockCountBound});
 *                           cheap, thread-safe
 */
public record SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts,
                               UtilityFunction utility, int chunkSize, double discount, long seed,
                               int backendConcurrency, IntSupplier backendInFlight,
                               IntPredicate backendIsFetching, double minBlockGain, double blockGainShare,
                               IntPredicate blockCountIsBound) {
    /** Every block count exact: the predicate of a context built without {@code blockCountIsBound}. */
    private static final IntPredicate EXACT = requestId -> false;

    /** Validates the fields. */
    public SchedulerContext {
        // The same rules, and messages, as the scheduler's own configuration.
        SchedulerConfig.checkCacheBlocks(cacheBlocks);
        SchedulerConfig.checkRequestCount(requestCount);
        SchedulerConfig.checkChunkSize(chunkSize);
        SchedulerConfig.checkDiscount(discount);
        SchedulerConfig.checkMinBlockGain(minBlockGain);
        SchedulerConfig.checkBlockGainShare(blockGainShare);
        if (backendConcurrency < 0) {
            throw new IllegalArgumentException("backendConcurrency must be >= 0, was " + backendConcurrency);
        }
        Objects.requireNonNull(blockCounts, "blockCounts");
        Objects.requireNonNull(utility, "utility");
        Objects.requireNonNull(backendInFlight, "backendInFlight");
        Objects.requireNonNull(backendIsFetching, "backendIsFetching");
        Objects.requireNonNull(blockCountIsBound, "blockCountIsBound");
    }

    /** A context with the default block gain share, {@link SchedulerConfig#DEFAULT_BLOCK_GAIN_SHARE}. */
    public SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts, UtilityFunction utility,
                            int chunkSize, double discount, long seed, int backendConcurrency,
                            IntSupplier backendInFlight, IntPredicate backendIsFetching, double minBlockGain,
                            IntPredicate blockCountIsBound) {
        this(cacheBlocks, requestCount, blockCounts, utility, chunkSize, discount, seed, backendConcurrency,
                backendInFlight, backendIsFetching, minBlockGain, SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE,
                blockCountIsBound);
    }

    /** A context in which every block count is exact. */
    public SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts, UtilityFunction utility,
                            int chunkSize, double discount, long seed, int backendConcurrency,
                            IntSupplier backendInFlight, IntPredicate backendIsFetching, double minBlockGain,
                            double blockGainShare) {
        this(cacheBlocks, requestCount, blockCounts, utility, chunkSize, discount, seed, backendConcurrency,
                backendInFlight, backendIsFetching, minBlockGain, blockGainShare, EXACT);
    }

    /**
     * A context with the default block gain share, {@link SchedulerConfig#DEFAULT_BLOCK_GAIN_SHARE},
     * in which every block count is exact.
     */
    public SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts, UtilityFunction utility,
                            int chunkSize, double discount, long seed, int backendConcurrency,
                            IntSupplier backendInFlight, IntPredicate backendIsFetching, double minBlockGain) {
        this(cacheBlocks, requestCount, blockCounts, utility, chunkSize, discount, seed, backendConcurrency,
                backendInFlight, backendIsFetching, minBlockGain, SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE, EXACT);
    }

    /**
     * A context with the default least block gain, {@link SchedulerConfig#MIN_BLOCK_GAIN}, the
     * default block gain share, and every block count exact.
     */
    public SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts, UtilityFunction utility,
                            int chunkSize, double discount, long seed, int backendConcurrency,
                            IntSupplier backendInFlight, IntPredicate backendIsFetching) {
        this(cacheBlocks, requestCount, blockCounts, utility, chunkSize, discount, seed, backendConcurrency,
                backendInFlight, backendIsFetching, SchedulerConfig.MIN_BLOCK_GAIN, SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE,
                EXACT);
    }
}
