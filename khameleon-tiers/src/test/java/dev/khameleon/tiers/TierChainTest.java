package dev.khameleon.tiers;

import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The walk down a chain of tiers: order, the lookup each tier passes on, hints, closing, the end. */
class TierChainTest {
    private final CountingOrigin origin = new CountingOrigin(4, 2, 16, 0);
    private final List<String> events = new ArrayList<>();

    /** A tier that notes what reaches it and passes every lookup on, made with the lock. */
    private final class Passing implements Tier {
        private final String name;

        Passing(String name) {
            this.name = name;
        }

        @Override
        public CompletableFuture<StoredResponse> load(Chain chain) {
            events.add(name + " load " + chain.lookup().contentKey());
            return chain.proceed(chain.lookup().withLock());
        }

        @Override
        public void prefetch(ScheduleChunk chunk) {
            events.add(name + " prefetch");
        }

        @Override
        public void close() {
            events.add(name + " close");
        }
    }

    @Test
    void lookup_walksTheTiersInOrder_withWhatEachPassesOn() throws Exception {
        RecordingTier last = new RecordingTier(origin);
        TierChain chain = new TierChain(List.of(new Passing("a"), new Passing("b"), last));
        StoredResponse r = chain.load(new Tier.Lookup(2, 3, 2, false)).get(10, TimeUnit.SECONDS);
        assertEquals(origin.expected(2, 3, 1), r.block(2, 1));
        assertEquals(List.of("a load 3", "b load 3"), events);
        assertEquals(List.of(new Tier.Lookup(2, 3, 2, true)), last.lookups);
    }

    @Test
    void hintsAndClosing_reachEveryTier_topDown() {
        TierChain chain = new TierChain(List.of(new Passing("a"), new Passing("b")));
        chain.prefetch(null);
        chain.close();
        assertEquals(List.of("a prefetch", "b prefetch", "a close", "b close"), events);
    }

    @Test
    void lastTierPassingALookupOn_failsTheLoad() {
        TierChain chain = new TierChain(List.of(new Passing("a")));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> chain.load(new Tier.Lookup(0, 9, 2, false)).get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("no tier below"), e.getCause().getMessage());
    }
}
