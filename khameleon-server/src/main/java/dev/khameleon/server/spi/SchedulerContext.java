package dev.khameleon.server.spi;

import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * Everything a {@link SchedulerFactory} needs to build one session's scheduler: the session's
 * facts (cache size, requests and their block counts, seed, backend load) and the application's
 * tuning, one {@link SchedulerSettings}. The default factory passes the settings to
 * {@link SchedulerConfig.Builder#settings} unchanged.
 *
 * @param cacheBlocks        {@code C}, the client's ring size in blocks (from its hello), {@code >= 1}
 * @param requestCount       {@code n}, {@code >= 1}
 * @param blockCounts        the block count of each request, each {@code >= 1} (an upper bound where
 *                           {@code blockCountIsBound} holds); cheap, thread-safe
 * @param utility            the application's utility function
 * @param settings           the application's scheduler tuning ({@code Application.schedulerSettings()}):
 *                           chunk size, discount, block-weight floors, planning horizon, fade, selection
 * @param seed               a seed for the scheduler's random source, distinct per session
 * @param backendConcurrency {@code Cb}, the limit on distinct requests being fetched at once; 0 for none
 * @param backendInFlight    the number of distinct requests being fetched now (across all sessions
 *                           of the application); thread-safe and non-blocking
 * @param backendIsFetching  whether a request is being fetched now; thread-safe and non-blocking
 * @param blockCountIsBound  whether a request's count is only an upper bound, its exact count
 *                           told later with {@link dev.khameleon.core.spi.Scheduler#blockCountKnown}
 *                           (see {@link dev.khameleon.core.spi.BlockSource#isBlockCountBound});
 *                           cheap, thread-safe; {@code r -> false} when every count is exact
 */
public record SchedulerContext(int cacheBlocks, int requestCount, IntUnaryOperator blockCounts,
                               UtilityFunction utility, SchedulerSettings settings, long seed,
                               int backendConcurrency, IntSupplier backendInFlight,
                               IntPredicate backendIsFetching, IntPredicate blockCountIsBound) {

    /** Validates the fields, with the same rules and messages as the scheduler's own configuration. */
    public SchedulerContext {
        SchedulerConfig.checkCacheBlocks(cacheBlocks);
        SchedulerConfig.checkRequestCount(requestCount);
        if (backendConcurrency < 0) {
            throw new IllegalArgumentException("backendConcurrency must be >= 0, was " + backendConcurrency);
        }
        Objects.requireNonNull(blockCounts, "blockCounts");
        Objects.requireNonNull(utility, "utility");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(backendInFlight, "backendInFlight");
        Objects.requireNonNull(backendIsFetching, "backendIsFetching");
        Objects.requireNonNull(blockCountIsBound, "blockCountIsBound");
    }

    /** The number of slots the server asks for at a time, {@code >= 1}: {@code settings().chunkSize()}. */
    public int chunkSize() {
        return settings.chunkSize();
    }

    /** The per-slot discount {@code γ}, in {@code (0, 1]}: {@code settings().discount()}. */
    public double discount() {
        return settings.discount();
    }

    /** The least weight of a block when blocks are compared: {@code settings().minBlockGain()}. */
    public double minBlockGain() {
        return settings.minBlockGain();
    }

    /** The least weight of a block relative to its response's even share: {@code settings().blockGainShare()}. */
    public double blockGainShare() {
        return settings.blockGainShare();
    }
}
