package dev.khameleon.tiers;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The tier contract for the memory tier alone, and its single flight. */
class MemoryTierContractTest extends TierContract {
    private MemoryTier memory;

    @Override
    Tier tier(StoredResponse held) throws Exception {
        memory = new MemoryTier(1 << 20, counters);
        // The memory tier holds what a load through it yielded.
        RecordingTier source = new RecordingTier(origin);
        source.answer = l -> CompletableFuture.completedFuture(held);
        new TierChain(List.of(memory, source)).load(new Tier.Lookup(0, HELD, origin.blocks, false))
                .get(10, TimeUnit.SECONDS);
        return memory;
    }

    @Override
    boolean keepsWhatComesBack() {
        return true;
    }

    @Test
    void concurrentLookupsOfOneKey_shareOneLoad_andHitsAreCounted() throws Exception {
        RecordingTier source = new RecordingTier(origin);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        source.answer = l -> gate.thenApply(x -> RecordingTier.response(origin, l.contentKey()));
        TierChain chain = new TierChain(List.of(memory, source));
        Tier.Lookup lookup = new Tier.Lookup(1, MISSING, origin.blocks, false);
        CompletableFuture<StoredResponse> first = chain.load(lookup);
        CompletableFuture<StoredResponse> second = chain.load(lookup);
        assertEquals(1, memory.loadsInFlight(), "the second lookup joined the running load");
        gate.complete(null);
        assertEquals(origin.expected(1, MISSING, 2), first.get(10, TimeUnit.SECONDS).block(1, 2));
        assertEquals(origin.expected(1, MISSING, 2), second.get(10, TimeUnit.SECONDS).block(1, 2));
        assertEquals(0, memory.loadsInFlight());
        assertEquals(1, source.lookups.size(), "one load went down for both lookups");
        long hitsBefore = counters.memoryHits.sum();
        chain.load(lookup).get(10, TimeUnit.SECONDS);
        assertEquals(hitsBefore + 1, counters.memoryHits.sum());
        assertEquals(1, source.lookups.size());
    }
}
