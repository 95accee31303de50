package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Limits that protect the server: session cap, clients that stop reading, idle clients. */
class ServerLimitsTest {
    private static final int BLOCK_SIZE = 1024;
    private static final int FRAME = BLOCK_SIZE + 32;

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(KhameleonServer.Builder b) {
        server = b.host("127.0.0.1").port(0).seed(3)
                .application(Application.builder("test").blockSource(TestApps.inMemory(100, 4, BLOCK_SIZE)).build())
                .build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/test");
    }

    @Test
    void sessionCap_refusesTheExtraSessionWith1013AndRecovers() {
        URI uri = start(KhameleonServer.builder().maxSessions(2).fixedBytesPerSecond(100_000));
        try (TestClient a = TestClient.open(uri, "test", 100); TestClient b = TestClient.open(uri, "test", 100)) {
            try (TestClient c = TestClient.connect(uri)) {
                c.send(ControlMessage.Hello.of("test", 100)); // the cap counts sessions whose hello was accepted
                ControlMessage.ErrorMessage e = c.awaitError();
                assertEquals("too_many_sessions", e.code());
                assertEquals(1013, c.awaitClose().status());
            }
            assertEquals(1, server.metrics().sessionsRejected());
            a.nextBlock();
            b.nextBlock();
            a.close();
            TestClient.await(() -> server.metrics().activeSessions() == 1, "the closed session frees its place");
            try (TestClient d = TestClient.open(uri, "test", 100)) {
                d.nextBlock();
            }
        }
    }

    @Test
    void clientThatStopsReading_isClosedAndQueuedBytesStayBounded() throws Exception {
        int high = 16 * 1024;
        // The stall timeout applies to both sessions. The healthy client must not look stalled on a
        // loaded machine: at 5 MB/s (not 50) it keeps up easily, and it would have to stop reading
        // for 2 s (not 0.5) in a row. The stalled client fills its ~50 KiB of buffers within
        // milliseconds at either rate.
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(5e6).writeBufferWaterMark(8 * 1024, high)
                .sendBufferBytes(16 * 1024).writeStallTimeout(Duration.ofSeconds(2))
                .closeTimeout(Duration.ofMillis(200)));
        try (TestClient healthy = TestClient.open(uri, "test", 100);
             RawClient stalled = new RawClient(server.port(), "/test", 4096)) {
            stalled.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"test\",\"cacheBlocks\":400}");
            long[] maxQueued = new long[1];
            TestClient.await(() -> {
                for (SessionMetrics m : server.sessionMetrics()) {
                    maxQueued[0] = Math.max(maxQueued[0], m.maxQueuedBytes());
                }
                return server.metrics().errorsByCode().getOrDefault("slow_consumer", 0L) >= 1;
            }, "the stalled session is closed as a slow consumer");
            // The stalled session filled its socket buffers and then its Netty buffer up to the high
            // water mark (plus the frame that crossed it), and no further.
            assertTrue(maxQueued[0] > 0, "the stalled session did queue bytes");
            assertTrue(maxQueued[0] <= high + 2 * FRAME, "queued " + maxQueued[0] + " bytes");
            TestClient.await(stalled::serverClosed, "the server drops the stalled connection");
            healthy.blocks.clear();
            healthy.nextBlock();
            assertFalse(healthy.closed.isDone(), "the healthy session is unaffected");
            // The client can see the connection end before the server's channelInactive has
            // unregistered the session (both follow the same close), so wait for it rather than race it.
            TestClient.await(() -> server.metrics().activeSessions() == 1, "only the healthy session stays open");
            assertFalse(healthy.closed.isDone(), "the healthy session is unaffected");
            assertEquals(1L, server.metrics().errorsByCode().get("slow_consumer"), "only the stalled session");
        }
    }

    @Test
    void idleClient_isClosedWithIdleTimeout() {
        URI uri = start(KhameleonServer.builder().readIdleTimeout(Duration.ofMillis(300)).fixedBytesPerSecond(10_000));
        try (TestClient c = TestClient.connect(uri)) {
            c.send(ControlMessage.Hello.of("test", 10));
            assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            assertEquals("idle_timeout", c.awaitError().code());
            assertEquals(1001, c.awaitClose().status());
        }
    }
}
