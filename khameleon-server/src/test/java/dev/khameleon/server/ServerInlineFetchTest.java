package dev.khameleon.server;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.testing.LogCapture;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where fetches run: on the session's event loop for a source that promises completed stages
 * ({@link BlockSource#fetchesImmediately()}), on the fetch executor otherwise, and with the same
 * failure handling either way.
 */
class ServerInlineFetchTest {
    private static final int N = 200;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 1024;
    private static final long[] HORIZONS = {50, 150, 250, 500};

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(BlockSource source) {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(42).fixedBytesPerSecond(5e6)
                .fetchTimeout(Duration.ofMillis(50))
                .application(Application.builder("test").blockSource(source)
                        .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS).build())
                .build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/test");
    }

    /** Pushes 100 blocks and returns the names (up to the first '-' run) of the threads that fetched them. */
    private Set<String> fetchThreads(boolean immediately) {
        BlockSource memory = TestApps.inMemory(N, BLOCKS, BLOCK_SIZE);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        URI uri = start(TestApps.withFetch(memory, (requestId, blockIndex) -> {
            threads.add(Thread.currentThread().getName().replaceAll("-\\d+(-\\d+)*$", ""));
            return memory.fetch(requestId, blockIndex);
        }, immediately));
        try (TestClient c = TestClient.open(uri, "test", 500)) {
            for (int k = 0; k < 100; k++) {
                TestClient.Received r = c.nextBlock();
                assertEquals(k, r.frame().seq());
                var b = r.frame().block();
                assertEquals(TestApps.payloadByte(b.requestId(), b.index(), 5), b.payloadBytes()[5]);
            }
        }
        return threads;
    }

    @Test
    void immediateSource_isFetchedOnTheEventLoop() {
        Set<String> threads = fetchThreads(true);
        assertEquals(Set.of("khameleon-io"), threads, "fetch threads of an immediate source: " + threads);
    }

    @Test
    void otherSources_areFetchedOnTheFetchExecutor() {
        Set<String> threads = fetchThreads(false);
        assertEquals(Set.of("khameleon-fetch"), threads, "fetch threads of a source without the promise: " + threads);
    }

    @Test
    void inMemorySource_promisesCompletedStages() {
        assertTrue(TestApps.inMemory(2, 1, 16).fetchesImmediately());
        assertFalse(TestApps.withFetch(TestApps.inMemory(2, 1, 16), (r, b) -> null).fetchesImmediately());
    }

    /** A source that breaks its promise (failed, never completed, thrown, null) costs skips, not the session. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void failedPendingThrownAndNullFetches_areSkipped(boolean immediately) throws InterruptedException {
        BlockSource healthy = TestApps.inMemory(N, BLOCKS, BLOCK_SIZE);
        BlockSource flaky = TestApps.withFetch(healthy, (requestId, blockIndex) -> {
            switch (requestId % 10) {
                case 3:
                    return null;
                case 5:
                    return CompletableFuture.failedFuture(new IllegalStateException("disk on fire"));
                case 7:
                    return new CompletableFuture<>();
                case 9:
                    throw new IllegalStateException("thrown, not returned");
                default:
                    return healthy.fetch(requestId, blockIndex);
            }
        }, immediately);
        URI uri = start(flaky);
        try (LogCapture warnings = LogCapture.warnings(SlotFetcher.class, "failed, skipping it");
             TestClient c = TestClient.open(uri, "test", 500)) {
            for (int k = 0; k < 200; k++) {
                TestClient.Received r = c.nextBlock();
                assertEquals(k, r.frame().seq(), "a skipped block must not use a sequence number");
                int id = r.frame().block().requestId();
                assertTrue(id % 10 != 3 && id % 10 != 5 && id % 10 != 7 && id % 10 != 9,
                        "block of a failing request: " + id);
            }
            assertTrue(server.sessionMetrics().get(0).blocksSkipped() > 0, "skips are counted");
            // The warning is logged on the session's event loop, maybe after the blocks that followed.
            warnings.await(10);
            assertEquals(1, warnings.messages().size(), "one warning for the session: " + warnings.messages());
        }
    }
}
