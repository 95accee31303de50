package dev.khameleon.tiers;

import dev.khameleon.core.ScheduleChunk;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The tiers of one stack in lookup order, walked as OkHttp's {@code RealInterceptorChain} walks
 * interceptors: each tier is handed a {@link Tier.Chain} whose {@code proceed} calls the tier after it.
 * Immutable and thread-safe; walking it never blocks beyond what the tiers do (nothing).
 */
final class TierChain {
    private final List<Tier> tiers;

    /** A chain of {@code tiers}, first asked first; the last must answer without passing a lookup on. */
    TierChain(List<Tier> tiers) {
        if (tiers.isEmpty()) {
            throw new IllegalArgumentException("a tier chain needs at least one tier");
        }
        this.tiers = List.copyOf(tiers);
    }

    /** The response to {@code lookup}, from the first tier and, as each passes it on, the ones below. */
    CompletableFuture<StoredResponse> load(Tier.Lookup lookup) {
        return tiers.get(0).load(new Link(0, lookup));
    }

    /** Hands the hint to every tier, first to last. */
    void prefetch(ScheduleChunk chunk) {
        tiers.forEach(t -> t.prefetch(chunk));
    }

    /** Closes every tier, first to last, so the loads of the upper tiers fail before the lower tiers go. */
    void close() {
        tiers.forEach(Tier::close);
    }

    /** The chain as the tier at {@code index} sees it. */
    private final class Link implements Tier.Chain {
        private final int index;
        private final Tier.Lookup lookup;

        Link(int index, Tier.Lookup lookup) {
            this.index = index;
            this.lookup = lookup;
        }

        @Override
        public Tier.Lookup lookup() {
            return lookup;
        }

        @Override
        public CompletableFuture<StoredResponse> proceed(Tier.Lookup next) {
            int below = index + 1;
            if (below == tiers.size()) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "no tier below " + tiers.get(index) + " to pass content " + next.contentKey() + " to"));
            }
            return tiers.get(below).load(new Link(below, next));
        }
    }
}
