package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.store.FileBlockStore;
import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stack on one node without Redis: memory bound, single flight, file tier, settings, failures. */
@Timeout(60)
class TieredBlockSourceTest {

    private static Block get(TieredBlockSource s, int request, int index) throws Exception {
        return s.fetch(request, index).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void memoryTier_staysWithinItsByteBound_andServesRepeats() throws Exception {
        CountingOrigin origin = new CountingOrigin(100, 4, 1024, 0);
        try (TieredBlockSource s = TieredBlockSource.builder(origin).memoryBytes(20_000).build()) {
            for (int r = 0; r < 100; r++) {
                get(s, r, 0);
                assertTrue(s.stats().memoryBytes() <= 20_000, "memory holds " + s.stats().memoryBytes());
            }
            int before = origin.computations.get();
            assertEquals(origin.expected(99, 99, 3), get(s, 99, 3));
            assertEquals(before, origin.computations.get(), "the last response is still in memory");
            assertEquals(100, before);
        }
    }

    @Test
    void concurrentFetchesOfOneResponse_computeItOnce() throws Exception {
        CountingOrigin origin = new CountingOrigin(5, 3, 64, 200);
        try (TieredBlockSource s = TieredBlockSource.builder(origin).memoryBytes(0).build()) {
            List<CompletableFuture<Block>> fs = new ArrayList<>();
            for (int k = 0; k < 12; k++) {
                fs.add(s.fetch(2, k % 3).toCompletableFuture());
            }
            for (int k = 0; k < 12; k++) {
                assertEquals(origin.expected(2, 2, k % 3), fs.get(k).get(10, TimeUnit.SECONDS));
            }
            assertEquals(1, origin.computations.get());
        }
    }

    @Test
    void stats_countLoadsUntilTheyEnd_andEveryComputationAsUncoordinated_withoutASharedTier() throws Exception {
        CountingOrigin origin = new CountingOrigin(5, 2, 64, 0);
        origin.gate = new CompletableFuture<>();
        try (TieredBlockSource s = TieredBlockSource.builder(origin).build()) {
            CompletableFuture<Block> a = s.fetch(1, 0).toCompletableFuture();
            CompletableFuture<Block> b = s.fetch(1, 1).toCompletableFuture();
            CompletableFuture<Block> c = s.fetch(2, 0).toCompletableFuture();
            assertEquals(2, s.stats().loadsInFlight(), "two keys load; the second fetch of key 1 joined the first");
            origin.gate.complete(null);
            assertEquals(origin.expected(1, 1, 0), a.get(10, TimeUnit.SECONDS));
            assertEquals(origin.expected(1, 1, 1), b.get(10, TimeUnit.SECONDS));
            assertEquals(origin.expected(2, 2, 0), c.get(10, TimeUnit.SECONDS));
            TierStats t = s.stats();
            assertEquals(0, t.loadsInFlight(), "a load has ended once its callers have their blocks");
            assertEquals(0, t.writesInFlight(), "no shared tier, nothing to write");
            assertEquals(2, t.originComputations());
            assertEquals(2, t.uncoordinatedComputations(), "without a shared tier no computation holds a lock");
        }
    }

    @Test
    void fileTier_answersBeforeTheOrigin(@TempDir Path dir) throws Exception {
        CountingOrigin origin = new CountingOrigin(6, 2, 128, 0);
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            responses.add(List.of(origin.expected(r, r, 0), origin.expected(r, r, 1)));
        }
        FileBlockStore.importResponses(dir, new dev.khameleon.core.spi.ProgressiveEncoder<List<Block>>() {
            @Override
            public int blockSize() {
                return 128;
            }

            @Override
            public List<Block> encode(int requestId, List<Block> blocks) {
                return blocks;
            }
        }, 0, responses);
        try (FileBlockStore store = FileBlockStore.open(dir);
             TieredBlockSource s = TieredBlockSource.builder(origin).fileStore(store).build()) {
            for (int r = 0; r < 6; r++) {
                assertEquals(origin.expected(r, r, 1), get(s, r, 1));
            }
            assertEquals(0, origin.computations.get());
            assertEquals(6, s.stats().fileHits());
        }
    }

    @Test
    void originFailure_failsTheFetch_andIsNotCached() throws Exception {
        CountingOrigin origin = new CountingOrigin(5, 2, 64, 0);
        try (TieredBlockSource s = TieredBlockSource.builder(origin).build()) {
            origin.failing = true;
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(s, 1, 0));
            assertEquals("origin down", e.getCause().getMessage());
            origin.failing = false;
            assertEquals(origin.expected(1, 1, 0), get(s, 1, 0));
        }
    }

    @Test
    void unreachableRedis_atStart_servesFromTheOrigin() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        CountingOrigin origin = new CountingOrigin(5, 2, 64, 0);
        try (LogCapture warning = LogCapture.warnings(RedisTier.class,
                "Redis tier at 127.0.0.1:" + port + " unavailable");
             TieredBlockSource s = TieredBlockSource.builder(origin).memoryBytes(0)
                .redis(URI.create("redis://127.0.0.1:" + port)).namespace("t").redisTimeout(Duration.ofMillis(200))
                .build()) {
            for (int r = 0; r < 5; r++) {
                assertEquals(origin.expected(r, r, 1), get(s, r, 1));
            }
            assertEquals(5, origin.computations.get());
            assertTrue(!s.sharedTierUp());
            assertTrue(warning.await(10).contains("Connection refused"),
                    "the operator is told why: " + warning.messages());
        }
    }

    @Test
    void originWithLazyCounts_isRefusedAtBuild() {
        var origin = new dev.khameleon.core.testkit.LazyCountBlockSource(5, 4, 64, id -> 2, true);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TieredBlockSource.builder(origin).build());
        assertTrue(e.getMessage().contains("isBlockCountBound"), e.getMessage());
    }

    @Test
    void closedSource_failsFetches() throws Exception {
        TieredBlockSource s = TieredBlockSource.builder(new CountingOrigin(5, 2, 64, 0)).build();
        s.close();
        s.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(s, 1, 0));
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @Test
    void builder_namesTheBadSetting() {
        CountingOrigin origin = new CountingOrigin(5, 2, 64, 0);
        TieredBlockSource.Builder b = TieredBlockSource.builder(origin);
        assertMessage("memoryBytes", assertThrows(IllegalArgumentException.class, () -> b.memoryBytes(-1)));
        assertMessage("redis", assertThrows(IllegalArgumentException.class,
                () -> b.redis(URI.create("http://127.0.0.1:6379"))));
        assertMessage("namespace", assertThrows(IllegalArgumentException.class, () -> b.namespace("a b")));
        assertMessage("namespace", assertThrows(IllegalArgumentException.class, () -> b.namespace("")));
        assertMessage("maxWait", assertThrows(IllegalArgumentException.class, () -> b.maxWait(Duration.ZERO)));
        assertMessage("lockTime", assertThrows(IllegalArgumentException.class,
                () -> b.lockTime(Duration.ofMillis(-1))));
        assertMessage("maxOriginConcurrency", assertThrows(IllegalArgumentException.class,
                () -> b.maxOriginConcurrency(-2)));
        b.redis(URI.create("redis://127.0.0.1:6379"));
        assertMessage("namespace", assertThrows(IllegalStateException.class, b::build));
    }

    private static void assertMessage(String setting, RuntimeException e) {
        assertTrue(e.getMessage().contains(setting), e.getMessage());
    }
}
