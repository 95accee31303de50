package dev.khameleon.tiers;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.CompletableFuture;

/**
 * This node's memory tier, the first: a cache of responses bounded in bytes, whose misses load through
 * the tiers below once per content key at a time ({@link SingleFlight}): a lookup of a key already
 * loading joins that load. A loaded response is kept before any caller sees it. With a bound of 0 it
 * keeps nothing and only shares loads. Thread-safe; never blocks.
 */
final class MemoryTier implements Tier {
    /** Null when the bound is 0: nothing is kept, loads are still shared. */
    private final Cache<Long, StoredResponse> cache;
    private final SingleFlight<StoredResponse> loads = new SingleFlight<>();
    private final TierCounters counters;

    /** A tier holding at most {@code maxBytes} of responses ({@link StoredResponse#weight}); 0 turns the cache off. */
    MemoryTier(long maxBytes, TierCounters counters) {
        this.cache = maxBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((Long k, StoredResponse v) -> v.weight())
                .executor(Runnable::run)
                .build();
        this.counters = counters;
    }

    /**
     * The cached response if it has the lookup's block count (counted as a memory hit, per fetch),
     * otherwise the running or a new load of the key through the tiers below.
     */
    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        Lookup lookup = chain.lookup();
        long contentKey = lookup.contentKey();
        if (cache != null) {
            StoredResponse r = cache.getIfPresent(contentKey);
            if (r != null && r.count() == lookup.count()) {
                counters.memoryHits.increment();
                return CompletableFuture.completedFuture(r);
            }
        }
        // Kept while the load still runs, so a lookup of the key finds it here or joins the load.
        return loads.load(contentKey, () -> chain.proceed(lookup), r -> {
            if (cache != null) {
                cache.put(contentKey, r);
            }
        });
    }

    /** Whether the tier keeps responses (its bound is not 0). */
    boolean enabled() {
        return cache != null;
    }

    /** The bytes of responses held now. */
    long bytes() {
        return cache == null ? 0 : cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Loads started and not yet ended. */
    int loadsInFlight() {
        return loads.running();
    }

    /** Fails the loads still running; their work below is left to finish on its own. */
    @Override
    public void close() {
        loads.failAll(new IllegalStateException("tiered block source closed while loading"));
    }
}
