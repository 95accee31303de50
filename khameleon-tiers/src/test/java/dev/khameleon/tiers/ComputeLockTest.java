package dev.khameleon.tiers;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a node waits for another node's lock ({@link ComputeLock}), through a Redis tier alone on a real
 * redis-server, with the lock held by a node that does not exist. The wait's clock is injected: frozen,
 * a wait ends only when Redis changes; advancing 10 s a reading, every wait runs out at its first look.
 */
@Timeout(60)
class ComputeLockTest {
    private static final long KEY = 7;
    private final CountingOrigin origin = new CountingOrigin(10, 2, 64, 0);
    private final TierCounters counters = new TierCounters();
    private final RecordingTier below = new RecordingTier(origin);
    private RedisTierRig rig;
    private RedisTier tier;

    private void start(LongSupplier clock) throws Exception {
        rig = RedisTierRig.start("lock", clock, counters);
        tier = rig.tier(origin.blockSize, Duration.ofSeconds(5));
        assertEquals("+OK", rig.redis.command("SET", "lock:lock:" + KEY, "other-node:1", "PX", "600000"));
    }

    @AfterEach
    void stop() throws Exception {
        if (tier != null) {
            tier.close();
        }
        if (rig != null) {
            rig.close();
        }
    }

    private CompletableFuture<StoredResponse> lookup() {
        return new TierChain(List.of(tier, below)).load(new Tier.Lookup(1, KEY, origin.blocks, false));
    }

    private void assertResponse(StoredResponse r) {
        for (int i = 0; i < origin.blocks; i++) {
            assertEquals(origin.expected(1, KEY, i), r.block(1, i));
        }
    }

    @Test
    void valueStoredByTheHolder_isReadInsteadOfLoaded() throws Exception {
        start(() -> 0);
        CompletableFuture<StoredResponse> f = lookup();
        // Stored only once the node found the lock taken: stored sooner, it would be a plain Redis hit.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (counters.lockBusy.sum() == 0) {
            assertTrue(System.nanoTime() < deadline, "the node tried the lock within 20 s");
            Thread.sleep(1);
        }
        assertFalse(f.isDone(), "the lock is held and the value absent: the node waits");
        assertEquals("+OK", rig.redis.command("SET", "lock:r:" + KEY, RecordingTier.response(origin, KEY).encode()));
        assertResponse(f.get(20, TimeUnit.SECONDS));
        assertEquals(List.of(), below.lookups, "nothing loaded below");
        assertEquals(1, counters.waitedForOtherNode.sum());
        assertEquals(0, counters.waitTimeouts.sum());
    }

    @Test
    void lockFreedWithoutAValue_isTaken_andTheResponseLoadedHoldingIt() throws Exception {
        start(() -> 0);
        CompletableFuture<StoredResponse> f = lookup();
        assertFalse(f.isDone(), "the lock is held and the value absent: the node waits");
        assertEquals(":1", rig.redis.command("DEL", "lock:lock:" + KEY));
        assertResponse(f.get(20, TimeUnit.SECONDS));
        assertEquals(1, below.lookups.size());
        assertTrue(below.lookups.get(0).lockHeld(), "loaded holding the lock it took: " + below.lookups);
        assertEquals(0, counters.waitTimeouts.sum());
    }

    @Test
    void waitThatRunsOut_loadsWithoutTheLock_andPublishes() throws Exception {
        AtomicLong now = new AtomicLong();
        start(() -> now.getAndAdd(TimeUnit.SECONDS.toNanos(10)));
        assertResponse(lookup().get(20, TimeUnit.SECONDS));
        assertEquals(1, counters.waitTimeouts.sum());
        assertEquals(1, below.lookups.size());
        assertFalse(below.lookups.get(0).lockHeld(), "the other node still holds the lock");
        assertEquals(":1", rig.redis.command("EXISTS", "lock:lock:" + KEY), "and keeps it");
        // One connection runs its commands in order: the next lookup's read follows the published write.
        assertResponse(lookup().get(20, TimeUnit.SECONDS));
        assertEquals(1, below.lookups.size(), "the second lookup read the published value");
        assertEquals(1, counters.redisHits.sum());
    }
}
