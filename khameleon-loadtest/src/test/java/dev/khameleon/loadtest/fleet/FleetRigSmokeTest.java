package dev.khameleon.loadtest.fleet;

import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short run of the loopback rig (two nodes, two sessions each): the proxy spreads the sessions,
 * every session receives blocks, each node's reads split into tiers consistently, and the shared
 * Redis tier makes the fleet compute each response once; and a run with the object store below a
 * Redis too small to hold the content, where the store serves some loads. Counts only, never times.
 */
@Timeout(300)
class FleetRigSmokeTest {
    private static final Path HAPROXY = Path.of("/usr/sbin/haproxy");
    private static final Path REDIS = Path.of("/usr/bin/redis-server");

    /** Skips the test, naming what is missing, without haproxy, redis-server or the traces; returns the traces. */
    private static Path requireRig() {
        Assumptions.assumeTrue(Files.isExecutable(HAPROXY), "haproxy not found at " + HAPROXY
                + " (Debian package haproxy); test skipped");
        Assumptions.assumeTrue(Files.isExecutable(REDIS), "redis-server not found at " + REDIS
                + " (Debian package redis-server); test skipped");
        return SharedData.require("pointer/balabit");
    }

    @Test
    void twoNodes_everySessionGetsBlocks_andTheFleetComputesEachResponseOnce() throws Exception {
        Path balabit = requireRig();
        FleetRig.Result r = FleetRig.run(new FleetRig.Settings(2, 2, 2, 4, 50_000, 1L << 20, 1, balabit, HAPROXY,
                REDIS, Path.of("..", "docs", "scale-out.md")));

        assertEquals(2, r.nodeRates().size());
        for (FleetModel.FleetRates n : r.nodeRates()) {
            assertEquals(2, n.sessions(), "leastconn gives each node two of the four sessions");
            assertTrue(n.blockReads() > 0, "the node read blocks: " + n);
            assertTrue(n.memoryReads() <= n.blockReads(), "memory reads are some of the reads: " + n);
            assertTrue(n.egressBytes() > 0 && n.cores() > 0, "the node pushed and used CPU: " + n);
            // Whatever memory did not answer was loaded from Redis or the origin, a response (4 blocks) at a time.
            assertTrue(n.redisResponses() + n.originComputations() > 0 || n.memoryReads() == n.blockReads(), "" + n);
        }
        for (long blocks : r.clientBlocks()) {
            assertTrue(blocks > 0, "every session received blocks");
        }
        // With a shared Redis, a computed response is stored once; only a computation without the key's
        // lock (Redis down or failing, a wait that ran out) may repeat what another node did, and only one
        // whose value did not reach Redis (a write that failed or timed out) may be repeated with the lock.
        assertTrue(r.originTotal() >= r.redisKeys(), r.originTotal() + " computations, " + r.redisKeys() + " keys");
        assertTrue(r.originTotal() <= r.redisKeys() + r.slack(), r.originTotal() + " computations, " + r.redisKeys()
                + " keys, " + r.slack() + " computations without the lock or not stored");
    }

    @Test
    void objectStoreBelowASmallRedis_servesResponsesRedisEvicted() throws Exception {
        Path balabit = requireRig();
        // A 64 KiB memory tier (8 responses) and a 2 MB Redis: most content falls through to the store.
        FleetRig.Result r = FleetRig.run(new FleetRig.Settings(2, 2, 3, 6, 50_000, 64L << 10, 1, balabit, HAPROXY,
                REDIS, Path.of("..", "docs", "scale-out.md"), "2mb", true));

        for (long blocks : r.clientBlocks()) {
            assertTrue(blocks > 0, "every session received blocks");
        }
        for (FleetModel.FleetRates n : r.nodeRates()) {
            assertTrue(n.blockReads() > 0, "the node read blocks: " + n);
        }
        assertTrue(r.fleet().objectStoreResponses() > 0, "the object store served responses: " + r.fleet());
    }
}
