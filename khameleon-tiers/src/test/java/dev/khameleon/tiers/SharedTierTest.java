package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.testing.LogCapture;
import dev.khameleon.testing.RedisProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Several nodes (stacks) sharing one real redis-server: computed once, served everywhere, never wrong. */
@Timeout(60)
class SharedTierTest {
    private RedisProcess redis;
    private final List<TieredBlockSource> nodes = new ArrayList<>();
    private final String namespace = "test:" + System.nanoTime();

    @BeforeEach
    void startRedis() throws Exception {
        redis = RedisProcess.start("32mb");
    }

    @AfterEach
    void stop() throws Exception {
        nodes.forEach(TieredBlockSource::close);
        if (redis != null) {
            redis.close();
        }
    }

    private TieredBlockSource node(CountingOrigin origin, TieredBlockSource.Builder settings) {
        TieredBlockSource s = settings.build();
        nodes.add(s);
        return s;
    }

    private TieredBlockSource.Builder settings(CountingOrigin origin) {
        return TieredBlockSource.builder(origin).redis(redis.uri()).namespace(namespace).memoryBytes(1 << 20);
    }

    private static Block get(TieredBlockSource s, int request, long key, int index) throws Exception {
        return s.fetch(request, key, index).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void responseComputedOnOneNode_isServedByAnother_withoutOriginComputation() throws Exception {
        CountingOrigin originA = new CountingOrigin(20, 4, 256, 0);
        CountingOrigin originB = new CountingOrigin(20, 4, 256, 0);
        TieredBlockSource a = node(originA, settings(originA));
        TieredBlockSource b = node(originB, settings(originB));
        for (int r = 0; r < 20; r++) {
            assertEquals(originA.expected(r, r, 0), get(a, r, r, 0));
        }
        assertEquals(20, originA.computations.get());
        awaitKeys(20); // values are written asynchronously: wait until they land
        for (int r = 0; r < 20; r++) {
            for (int i = 0; i < 4; i++) {
                assertEquals(originB.expected(r, r, i), get(b, r, r, i), "request " + r + " block " + i);
            }
        }
        assertEquals(0, originB.computations.get(), "node B computed nothing");
        assertEquals(20, b.stats().redisHits());
        assertEquals(60, b.stats().memoryHits(), "blocks 1..3 of each response came from B's memory");
    }

    @Test
    void tenConcurrentMisses_acrossFiveNodes_computeOnce() throws Exception {
        List<CountingOrigin> origins = new ArrayList<>();
        List<CompletableFuture<Block>> fetches = new ArrayList<>();
        List<TieredBlockSource> fleet = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            CountingOrigin o = new CountingOrigin(10, 2, 128, 300);
            origins.add(o);
            fleet.add(node(o, settings(o).pollInterval(Duration.ofMillis(10))));
        }
        for (int k = 0; k < 10; k++) {
            fetches.add(fleet.get(k % 5).fetch(3, 3, k % 2).toCompletableFuture());
        }
        for (int k = 0; k < 10; k++) {
            assertEquals(origins.get(0).expected(3, 3, k % 2), fetches.get(k).get(20, TimeUnit.SECONDS));
        }
        int total = origins.stream().mapToInt(o -> o.computations.get()).sum();
        assertEquals(1, total, "ten concurrent misses for one key cause exactly one computation");
        assertEquals(0, fleet.stream().mapToLong(s -> s.stats().uncoordinatedComputations()).sum(),
                "the one computation held the key's lock");
        long waited = fleet.stream().mapToLong(s -> s.stats().waitedForOtherNode()).sum();
        long read = fleet.stream().mapToLong(s -> s.stats().redisHits()).sum();
        assertEquals(4, waited + read, "the four other nodes read what the one that computed wrote");
    }

    @Test
    void redisOutage_degradesToOrigin_withCorrectBytes_andRecovers() throws Exception {
        CountingOrigin origin = new CountingOrigin(50, 2, 128, 0);
        TieredBlockSource s = node(origin, settings(origin).memoryBytes(0).retryInterval(Duration.ofMillis(200)));
        assertEquals(origin.expected(1, 1, 0), get(s, 1, 1, 0));
        assertTrue(s.sharedTierUp());
        try (LogCapture down = LogCapture.warnings(RedisTier.class, "unavailable (");
             LogCapture reconnect = lettuceReconnectFailures()) {
            redis.kill();
            for (int r = 2; r < 12; r++) {
                assertEquals(origin.expected(r, r, 1), get(s, r, r, 1), "served from the origin while Redis is down");
            }
            down.await(10);
            assertEquals(1, down.messages().size(), "one warning for the outage: " + down.messages());
            assertReconnectsRefused(reconnect);
        }
        assertTrue(s.stats().redisFailures() >= 1);
        assertEquals(10, s.stats().uncoordinatedComputations(), "every response computed while Redis was down");
        assertTrue(!s.sharedTierUp());
        redis.restart("32mb");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!s.sharedTierUp() || s.stats().redisHits() == 0) {
            assertTrue(System.nanoTime() < deadline, "the tier came back within 20 s: " + s.stats());
            get(s, 40, 40, 0);
            Thread.sleep(50);
        }
        assertEquals(origin.expected(40, 40, 1), get(s, 40, 40, 1));
    }

    @Test
    void aValueRedisLosesWhileItIsComputed_isCountedLost_andExplainsTheNextNodesComputation() throws Exception {
        CountingOrigin originA = new CountingOrigin(10, 2, 128, 400);
        CountingOrigin originB = new CountingOrigin(10, 2, 128, 0);
        TieredBlockSource a = node(originA, settings(originA).memoryBytes(0));
        CompletableFuture<Block> computing = a.fetch(3, 3, 0).toCompletableFuture();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (originA.computations.get() == 0) {
            assertTrue(System.nanoTime() < deadline, "the computation started");
            Thread.sleep(5);
        }
        try (LogCapture down = LogCapture.warnings(RedisTier.class, "unavailable (");
             LogCapture reconnect = lettuceReconnectFailures()) {
            redis.kill(); // after the lock was taken: the value cannot be stored
            assertEquals(originA.expected(3, 3, 0), computing.get(20, TimeUnit.SECONDS));
            awaitSettled(a);
            down.await(10);
            assertReconnectsRefused(reconnect);
        }
        assertEquals(0, a.stats().uncoordinatedComputations(), "computed with the lock");
        assertEquals(1, a.stats().redisValuesLost(), "its value never reached Redis: " + a.stats());

        redis.restart("32mb");
        TieredBlockSource b = node(originB, settings(originB));
        assertEquals(originB.expected(3, 3, 1), get(b, 3, 3, 1));
        assertEquals(1, originB.computations.get(), "the other node computes it again");
        assertEquals(0, b.stats().uncoordinatedComputations(), "with the lock too: only the lost value explains it");
    }

    /**
     * Lettuce's own warnings that it cannot reconnect to the killed redis-server. Whether one comes
     * depends on when its back-off tries (it warns at most every few seconds), so a test asserts
     * only what the captured ones say, with {@link #assertReconnectsRefused}.
     */
    private static LogCapture lettuceReconnectFailures() {
        return LogCapture.warnings("io.lettuce.core.protocol.ConnectionWatchdog", "Cannot reconnect to [");
    }

    /** Asserts that every reconnect failure Lettuce reported was the killed server refusing it. */
    private void assertReconnectsRefused(LogCapture reconnect) {
        for (String m : reconnect.messages()) {
            assertTrue(m.contains("Connection refused: /127.0.0.1:" + redis.uri().getPort()), m);
        }
    }

    /** Waits until {@code s} has no load or write in flight, so its counters are final. */
    private static void awaitSettled(TieredBlockSource s) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s.stats().loadsInFlight() + s.stats().writesInFlight() > 0) {
            assertTrue(System.nanoTime() < deadline, "loads and writes ended: " + s.stats());
            Thread.sleep(10);
        }
    }

    @Test
    void damagedValue_isRefusedDeletedAndRecomputed() throws Exception {
        CountingOrigin origin = new CountingOrigin(10, 2, 64, 0);
        TieredBlockSource a = node(origin, settings(origin));
        get(a, 5, 5, 0);
        awaitKeys(1);
        String key = namespace + ":r:5";
        // Another writer's bytes under this key: right length, wrong content.
        byte[] value = StoredResponse.of(5, 64, List.of(origin.expected(5, 5, 0), origin.expected(5, 5, 1))).encode();
        value[30] ^= 1;
        assertEquals("+OK", redis.command("SET", key, value));
        CountingOrigin originB = new CountingOrigin(10, 2, 64, 0);
        TieredBlockSource b = node(originB, settings(originB));
        try (LogCapture refused = LogCapture.warnings(TieredBlockSource.class,
                "refused the value at Redis key " + key + " (checksum mismatch)")) {
            assertEquals(originB.expected(5, 5, 1), get(b, 5, 5, 1));
            refused.await(10);
        }
        assertEquals(1, b.stats().corruptValues());
        assertEquals(1, originB.computations.get(), "recomputed instead of served");
    }

    @Test
    void lockHolderThatNeverPublishes_othersComputeAfterTheLockExpires() throws Exception {
        CountingOrigin origin = new CountingOrigin(10, 1, 64, 0);
        TieredBlockSource s = node(origin, settings(origin).pollInterval(Duration.ofMillis(10)));
        long start = System.nanoTime();
        redis.command("SET", namespace + ":lock:2", "dead-node:1", "PX", "1000");
        assertEquals(origin.expected(2, 2, 0), get(s, 2, 2, 0));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(1, origin.computations.get());
        assertTrue(ms >= 900, "waited for the dead node's lock to expire, " + ms + " ms");
        assertEquals(0, s.stats().waitTimeouts(), "took the expired lock before the bounded wait ran out");
    }

    @Test
    void boundedWait_computesLocally_whenTheHolderIsTooSlow() throws Exception {
        redis.command("SET", namespace + ":lock:2", "slow-node:1", "PX", "20000");
        CountingOrigin origin = new CountingOrigin(10, 1, 64, 0);
        TieredBlockSource s = node(origin, settings(origin).maxWait(Duration.ofMillis(300)));
        assertEquals(origin.expected(2, 2, 0), get(s, 2, 2, 0));
        assertEquals(1, s.stats().waitTimeouts());
        assertEquals(1, origin.computations.get());
        assertEquals(1, s.stats().uncoordinatedComputations(), "computed without the slow holder's lock");
    }

    @Test
    void originConcurrency_isBoundedAcrossNodes() throws Exception {
        // One origin behind three nodes, so its high-water mark of computations at once is the fleet's.
        CountingOrigin origin = new CountingOrigin(30, 1, 64, 100);
        List<CompletableFuture<Block>> fetches = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            TieredBlockSource s = node(origin, settings(origin).maxOriginConcurrency(2).pollInterval(Duration.ofMillis(5)));
            for (int r = k * 10; r < k * 10 + 10; r++) {
                fetches.add(s.fetch(r, r, 0).toCompletableFuture());
            }
        }
        for (int r = 0; r < 30; r++) {
            assertEquals(origin.expected(r, r, 0), fetches.get(r).get(30, TimeUnit.SECONDS));
        }
        assertEquals(30, origin.computations.get());
        assertTrue(origin.maxRunning.get() <= 2, "the fleet ran " + origin.maxRunning.get() + " computations at once");
        assertEquals(2, origin.maxRunning.get(), "and used both permits");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!":0".equals(redis.command("ZCARD", namespace + ":origin-permits"))) {
            assertTrue(System.nanoTime() < deadline, "every lease returned");
            Thread.sleep(10);
        }
    }

    @Test
    void requestsBoundToOneContentKey_shareOneComputation_andKeepTheirIds() throws Exception {
        CountingOrigin origin = new CountingOrigin(10, 2, 64, 0);
        TieredBlockSource s = node(origin, settings(origin));
        Block forSeven = get(s, 7, 1000, 1);
        Block forEight = get(s, 8, 1000, 1);
        assertEquals(origin.expected(7, 1000, 1), forSeven);
        assertEquals(origin.expected(8, 1000, 1), forEight);
        assertEquals(1, origin.computations.get());
    }

    @Test
    void aValueNotYetInRedis_isAWriteInFlight_afterItsLoadHasEnded() throws Exception {
        CountingOrigin origin = new CountingOrigin(10, 1, 64, 0);
        origin.gate = new CompletableFuture<>();
        TieredBlockSource s = node(origin, settings(origin).redisTimeout(Duration.ofSeconds(60)));
        CompletableFuture<Block> f = s.fetch(4, 4, 0).toCompletableFuture();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (origin.computations.get() == 0) {
            assertTrue(System.nanoTime() < deadline, "the computation started: " + s.stats());
            Thread.sleep(10);
        }
        // Redis now holds every write, as a loaded Redis or network would delay the value's SET.
        assertEquals("+OK", redis.command("CLIENT", "PAUSE", "60000", "WRITE"));
        try {
            origin.gate.complete(null);
            assertEquals(origin.expected(4, 4, 0), f.get(20, TimeUnit.SECONDS));
            TierStats t = s.stats();
            assertEquals(0, t.loadsInFlight(), "the load has ended");
            assertTrue(t.writesInFlight() >= 1, "its value is still on its way to Redis: " + t);
            assertEquals(":0", redis.command("EXISTS", namespace + ":r:4"));
        } finally {
            redis.command("CLIENT", "UNPAUSE");
        }
        while (s.stats().writesInFlight() > 0) {
            assertTrue(System.nanoTime() < deadline, "the writes ended: " + s.stats());
            Thread.sleep(10);
        }
        assertEquals(":1", redis.command("EXISTS", namespace + ":r:4"), "once no write is in flight the value is there");
        assertEquals(0, s.stats().uncoordinatedComputations(), "computed holding the key's lock");
        assertEquals(0, s.stats().redisFailures());
    }

    private void awaitKeys(int atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Integer.parseInt(redis.command("DBSIZE").substring(1)) < atLeast) {
            assertTrue(System.nanoTime() < deadline, "values reached Redis");
            Thread.sleep(10);
        }
    }

}
