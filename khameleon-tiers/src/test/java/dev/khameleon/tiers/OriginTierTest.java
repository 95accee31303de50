package dev.khameleon.tiers;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The origin tier alone, without a fleet bound: it computes every block and counts what it computed. */
class OriginTierTest {
    private final CountingOrigin origin = new CountingOrigin(6, 3, 32, 0);
    private final TierCounters counters = new TierCounters();
    private final TierChain chain = new TierChain(List.of(new OriginTier(origin,
            new OriginPermits(null, new KeySpace(null, "node"), 0, Duration.ofSeconds(30), Duration.ofSeconds(10),
                    null, counters), counters)));

    @Test
    void computation_fetchesEveryBlockForTheRequestUnderTheContentKey() throws Exception {
        StoredResponse r = chain.load(new Tier.Lookup(4, 1000, 3, false)).get(10, TimeUnit.SECONDS);
        assertEquals(3, r.count());
        for (int i = 0; i < 3; i++) {
            assertEquals(origin.expected(4, 1000, i), r.block(4, i));
        }
        assertEquals(1, origin.perKey.get(1000L).get());
    }

    @Test
    void computationWithoutTheKeysLock_isCountedAsUncoordinated() throws Exception {
        chain.load(new Tier.Lookup(1, 1, 3, false)).get(10, TimeUnit.SECONDS);
        chain.load(new Tier.Lookup(2, 2, 3, true)).get(10, TimeUnit.SECONDS);
        assertEquals(2, counters.originComputations.sum());
        assertEquals(1, counters.uncoordinatedComputations.sum(), "only the one made without the lock");
    }

    @Test
    void originFailure_failsTheLoadWithTheOriginsError() {
        origin.failing = true;
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> chain.load(new Tier.Lookup(1, 1, 3, false)).get(10, TimeUnit.SECONDS));
        assertEquals("origin down", e.getCause().getMessage());
    }
}
