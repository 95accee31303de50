package dev.khameleon.tiers;

import dev.khameleon.core.Block;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A tier to put below the tier under test: it records every lookup passed down to it and answers
 * with {@link #answer} (by default at once, with the {@link CountingOrigin} response of the lookup's
 * content key), so a test sees exactly what the tier above asked for.
 */
final class RecordingTier implements Tier {
    final CountingOrigin origin;
    final List<Lookup> lookups = new CopyOnWriteArrayList<>();
    /** How the next lookups are answered; a test may swap it for a failure or a gate. */
    volatile Function<Lookup, CompletableFuture<StoredResponse>> answer;

    RecordingTier(CountingOrigin origin) {
        this.origin = origin;
        this.answer = l -> CompletableFuture.completedFuture(response(origin, l.contentKey()));
    }

    /** The response {@code origin} computes for {@code contentKey}, as the tiers store it. */
    static StoredResponse response(CountingOrigin origin, long contentKey) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < origin.blocks; i++) {
            blocks.add(origin.expected(0, contentKey, i));
        }
        return StoredResponse.of(contentKey, origin.blockSize, blocks);
    }

    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        lookups.add(chain.lookup());
        return answer.apply(chain.lookup());
    }

    @Override
    public String toString() {
        return "RecordingTier";
    }
}
