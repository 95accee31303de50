package dev.khameleon.tiers;

import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tier contract for the Redis tier alone, on a redis-server of its own per test (skipped, naming
 * the package, when redis-server is absent). One connection runs its commands in order, so what the
 * tier wrote before a load completed is there for the next command on its connection, without waiting.
 */
class RedisTierContractTest extends StoreTierContract {
    private RedisTierRig rig;

    @Override
    Tier tier(StoredResponse held) throws Exception {
        rig = RedisTierRig.start("contract", System::nanoTime, counters);
        assertEquals("+OK", rig.redis.command("SET", "contract:r:" + HELD, held.encode()));
        return rig.tier(held.blockSize(), Duration.ofSeconds(5));
    }

    @Override
    boolean keepsWhatComesBack() {
        return true;
    }

    @Override
    void breakStore() throws Exception {
        rig.redis.kill();
    }

    @Override
    Class<?> failureLogger() {
        return RedisTier.class;
    }

    @Override
    String failureWarning() {
        return "unavailable (";
    }

    @Override
    void closeStore() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void miss_isLoadedHoldingTheKeysLock_thenPublished_andTheLockFreed() throws Exception {
        load(MISSING);
        assertEquals(1, below.lookups.size());
        assertTrue(below.lookups.get(0).lockHeld(), "loaded below holding the lock: " + below.lookups);
        assertNull(rig.connection.get("contract:lock:" + MISSING).get(10, TimeUnit.SECONDS), "the lock is free");
        byte[] stored = rig.connection.get("contract:r:" + MISSING).get(10, TimeUnit.SECONDS);
        assertResponseOf(MISSING, StoredResponse.decode(stored, MISSING, origin.blockSize));
        assertEquals(0, counters.redisFailures.sum());
    }

    @Test
    void damagedValue_isRefusedDeletedAndLoadedBelow() throws Exception {
        byte[] damaged = RecordingTier.response(origin, MISSING).encode();
        damaged[30] ^= 1;
        assertEquals("+OK", rig.redis.command("SET", "contract:r:" + MISSING, damaged));
        try (LogCapture refused = LogCapture.warnings(TieredBlockSource.class,
                "refused the value at Redis key contract:r:" + MISSING + " (checksum mismatch)")) {
            assertResponseOf(MISSING, load(MISSING));
            refused.await(10);
        }
        assertEquals(1, below.lookups.size());
        assertEquals(1, counters.corruptValues.sum());
        // Deleted, then stored anew: the value there now is the intact one.
        byte[] stored = rig.connection.get("contract:r:" + MISSING).get(10, TimeUnit.SECONDS);
        assertResponseOf(MISSING, StoredResponse.decode(stored, MISSING, origin.blockSize));
    }
}
