package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.testing.LogCapture;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** End-to-end push behaviour over real loopback sockets, observed by an independent client. */
class ServerPushTest {
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

    private static Application.Builder app() {
        return Application.builder("test")
                .blockSource(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE))
                .predictor(ServerPredictor.point(N, HORIZONS))
                .horizons(HORIZONS);
    }

    private URI start(KhameleonServer.Builder b) {
        server = b.host("127.0.0.1").port(0).seed(42).build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/test");
    }

    @Test
    void welcome_describesTheApplication() {
        URI uri = start(KhameleonServer.builder().application(app().build()));
        try (TestClient c = TestClient.connect(uri)) {
            c.send(ControlMessage.Hello.of("test", 500));
            ControlMessage.Welcome w = assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            assertEquals(BLOCK_SIZE, w.blockSize());
            assertEquals(N, w.requestCount());
            assertEquals(500, w.cacheBlocks());
            assertEquals(List.of(50L, 150L, 250L, 500L), w.horizonsMillis());
            assertEquals(0, w.firstSeq());
            assertEquals(BLOCKS, w.blockCounts().defaultCount());
            assertTrue(w.blockCounts().complete());
        }
    }

    @Test
    void push_sequenceNumbersAreConsecutiveFromZeroAndPayloadsIntact() {
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6).application(app().build()));
        try (TestClient c = TestClient.open(uri, "test", 500)) {
            for (int k = 0; k < 300; k++) {
                TestClient.Received r = c.nextBlock();
                assertEquals(k, r.frame().seq(), "sequence number of frame " + k);
                var b = r.frame().block();
                assertEquals(BLOCKS, b.count());
                byte[] p = b.payloadBytes();
                for (int i = 0; i < p.length; i += 97) {
                    assertEquals(TestApps.payloadByte(b.requestId(), b.index(), i), p[i]);
                }
            }
        }
    }

    @Test
    void pointDistribution_getsThatRequestsBlocksFirst() {
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6)
                .application(app().waitForState(true).build()));
        try (TestClient c = TestClient.open(uri, "test", 500)) {
            c.sendState(1, "{\"request\": 17}");
            for (int k = 0; k < BLOCKS; k++) {
                var b = c.nextBlock().frame().block();
                assertEquals(17, b.requestId(), "block " + k);
                assertEquals(k, b.index(), "blocks of a request go out in order");
            }
        }
    }

    @Test
    void newDistribution_changesWhatIsPushedWithinAFewBlocks() {
        int r = N - 1;
        // The initial plan never picks r, so the first block of r marks the switch exactly.
        Distribution.Builder allButR = Distribution.builder(N, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            for (int id = 0; id < N - 1; id++) {
                allButR.explicit(j, id, 1.0 / (N - 1));
            }
        }
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(1e6).writeBufferWaterMark(4096, 8192)
                .application(app().initialDistribution(allButR.build()).build()));
        try (TestClient c = TestClient.open(uri, "test", 2000)) {
            for (int k = 0; k < 50; k++) {
                c.nextBlock();
            }
            c.sendState(1, "{\"request\": " + r + "}");
            List<Integer> after = new ArrayList<>();
            long firstSeq = -1;
            while (after.size() < BLOCKS) {
                TestClient.Received got = c.nextBlock();
                if (after.isEmpty() && got.frame().block().requestId() != r) {
                    continue;
                }
                if (after.isEmpty()) {
                    firstSeq = got.frame().seq();
                }
                after.add(got.frame().block().requestId());
            }
            assertEquals(List.of(r, r, r, r), after, "once switched, all of the point's blocks follow");
            // The server writes at most a re-plan margin (16) of old blocks after the state arrives;
            // how many the client sees on top of that were in flight, which depends on the machine's load.
            SessionMetrics m = server.sessionMetrics().get(0);
            assertTrue(m.maxReplanLagBlocks() <= 16, "old blocks written after the state: " + m.maxReplanLagBlocks());
            assertTrue(firstSeq >= 50, "the switch came after the blocks received before the state: " + firstSeq);
            assertEquals(2, m.replans(), "the initial plan and one re-plan for the state");
        }
    }

    @Test
    void failedAndTimedOutFetches_areSkippedWithoutUsingSequenceNumbers() throws InterruptedException {
        BlockSource healthy = TestApps.inMemory(N, BLOCKS, BLOCK_SIZE);
        BlockSource flaky = TestApps.withFetch(healthy, (requestId, blockIndex) -> {
            if (requestId % 10 == 5) {
                return CompletableFuture.failedFuture(new IllegalStateException("disk on fire"));
            }
            if (requestId % 10 == 7) {
                return new CompletableFuture<>();
            }
            if (requestId % 10 == 9) {
                throw new IllegalStateException("thrown, not returned");
            }
            return healthy.fetch(requestId, blockIndex);
        });
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6).fetchTimeout(Duration.ofMillis(50))
                .application(app().blockSource(flaky).build()));
        try (LogCapture warnings = LogCapture.warnings(SlotFetcher.class, "failed, skipping it");
             TestClient c = TestClient.open(uri, "test", 500)) {
            for (int k = 0; k < 200; k++) {
                TestClient.Received r = c.nextBlock();
                assertEquals(k, r.frame().seq(), "a skipped block must not use a sequence number");
                int id = r.frame().block().requestId();
                assertTrue(id % 10 != 5 && id % 10 != 7 && id % 10 != 9, "block of a failing request: " + id);
            }
            SessionMetrics m = server.sessionMetrics().get(0);
            assertTrue(m.blocksSkipped() > 0, "skips are counted");
            assertTrue(server.metrics().blocksSkipped() >= m.blocksSkipped());
            // The warning is logged on the session's event loop, maybe after the blocks that followed.
            warnings.await(10);
            assertEquals(1, warnings.messages().size(), "one warning for the session: " + warnings.messages());
        }
    }

    @Test
    void close_closesEverySessionWithShutdownStatus() {
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(1e6).application(app().build()));
        TestClient a = TestClient.open(uri, "test", 500);
        TestClient b = TestClient.open(uri, "test", 500);
        a.nextBlock();
        b.nextBlock();
        assertEquals(2, server.metrics().activeSessions());
        server.close();
        for (TestClient c : List.of(a, b)) {
            assertEquals("shutdown", c.awaitError().code());
            TestClient.Close close = c.awaitClose();
            assertEquals(1001, close.status());
            assertEquals("shutdown", close.reason());
        }
        assertEquals(0, server.metrics().activeSessions());
    }

    @Test
    void severalApplications_areServedAtTheirOwnPaths() {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1).fixedBytesPerSecond(1e6)
                .application(Application.builder("small").blockSource(TestApps.inMemory(10, 2, 100)).build())
                .application(Application.builder("large").path("/big/one")
                        .blockSource(TestApps.inMemory(10, 2, 3000)).build())
                .build().start();
        try (TestClient small = TestClient.open(URI.create("ws://127.0.0.1:" + server.port() + "/small"), "small", 50);
             TestClient large = TestClient.open(URI.create("ws://127.0.0.1:" + server.port() + "/big/one"), "large",
                     50)) {
            assertEquals(100, small.nextBlock().frame().block().size());
            assertEquals(3000, large.nextBlock().frame().block().size());
            assertEquals(2, server.metrics().activeSessions());
        }
    }

    @Test
    void backendConcurrency_boundsDistinctRequestsBeingFetchedAcrossSessions() {
        BlockSource healthy = TestApps.inMemory(N, BLOCKS, BLOCK_SIZE);
        java.util.concurrent.ScheduledExecutorService backend = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        java.util.Map<Integer, Integer> inFlight = new java.util.HashMap<>();
        int[] maxDistinct = new int[1];
        BlockSource slow = TestApps.withFetch(healthy, (requestId, blockIndex) -> {
            synchronized (inFlight) {
                inFlight.merge(requestId, 1, Integer::sum);
                maxDistinct[0] = Math.max(maxDistinct[0], inFlight.size());
            }
            CompletableFuture<Block> f = new CompletableFuture<>();
            backend.schedule(() -> {
                synchronized (inFlight) {
                    inFlight.computeIfPresent(requestId, (k, v) -> v == 1 ? null : v - 1);
                }
                healthy.fetch(requestId, blockIndex).thenAccept(f::complete);
            }, 2, java.util.concurrent.TimeUnit.MILLISECONDS);
            return f;
        });
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6)
                .application(app().blockSource(slow).backendConcurrency(2).build()));
        try (TestClient a = TestClient.open(uri, "test", 500); TestClient b = TestClient.open(uri, "test", 500)) {
            for (int k = 0; k < 60; k++) {
                assertEquals(k, a.nextBlock().frame().seq());
                assertEquals(k, b.nextBlock().frame().seq());
            }
        } finally {
            backend.shutdownNow();
        }
        synchronized (inFlight) {
            assertTrue(maxDistinct[0] >= 1 && maxDistinct[0] <= 2,
                    "distinct requests fetched at once: " + maxDistinct[0]);
        }
    }

    @Test
    void requestEvents_drivePointPredictionWhenConfigured() {
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6)
                .application(app().waitForState(true).predictFromRequests(true).build()));
        try (TestClient c = TestClient.open(uri, "test", 500)) {
            c.send(new ControlMessage.RequestEvent(1, 42));
            for (int k = 0; k < BLOCKS; k++) {
                assertEquals(42, c.nextBlock().frame().block().requestId());
            }
            TestClient.await(() -> server.sessionMetrics().get(0).requestsReceived() == 1, "the event is counted");
        }
    }

    @Test
    void transports_nioAlwaysAndEpollWhereAvailable() {
        for (KhameleonServer.Transport t : KhameleonServer.Transport.values()) {
            if (t == KhameleonServer.Transport.EPOLL && !io.netty.channel.epoll.Epoll.isAvailable()) {
                continue;
            }
            URI uri = start(KhameleonServer.builder().transport(t).fixedBytesPerSecond(1e6).application(app().build()));
            KhameleonServer.Transport expected = t == KhameleonServer.Transport.AUTO
                    ? (io.netty.channel.epoll.Epoll.isAvailable() ? KhameleonServer.Transport.EPOLL
                    : KhameleonServer.Transport.NIO) : t;
            assertEquals(java.util.Optional.of(expected), server.transport());
            try (TestClient c = TestClient.open(uri, "test", 100)) {
                assertEquals(0, c.nextBlock().frame().seq());
            }
            server.close();
        }
    }
}
