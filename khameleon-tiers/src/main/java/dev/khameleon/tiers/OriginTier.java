package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The last tier: computes the whole response from the origin (an encoder, a database query, ...),
 * holding an origin permit when the fleet bounds its computations. Never passes a lookup on, keeps
 * nothing, and fails a load with the origin's error. Counts each computation, and one made without the
 * key's shared lock as uncoordinated. Thread-safe; blocks only if the origin does.
 */
final class OriginTier implements Tier {
    private final BlockSource origin;
    private final int blockSize;
    private final OriginPermits permits;
    private final TierCounters counters;

    /** The tier in front of {@code origin}, which stays the caller's to close. */
    OriginTier(BlockSource origin, OriginPermits permits, TierCounters counters) {
        this.origin = origin;
        this.blockSize = origin.blockSize();
        this.permits = permits;
        this.counters = counters;
    }

    /** Every block of the response, fetched from the origin under the lookup's content key. */
    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        Lookup lookup = chain.lookup();
        return permits.withPermit(() -> compute(lookup));
    }

    private CompletableFuture<StoredResponse> compute(Lookup lookup) {
        counters.originComputations.increment();
        if (!lookup.lockHeld()) {
            counters.uncoordinatedComputations.increment();
        }
        List<CompletableFuture<Block>> blocks = new ArrayList<>(lookup.count());
        for (int i = 0; i < lookup.count(); i++) {
            try {
                blocks.add(origin.fetch(lookup.requestId(), lookup.contentKey(), i).toCompletableFuture());
            } catch (RuntimeException e) {
                blocks.add(CompletableFuture.failedFuture(e));
            }
        }
        return StoredResponse.gather(lookup.contentKey(), blockSize, blocks);
    }
}
