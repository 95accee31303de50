package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Limits that protect the server, over loopback: session cap, clients that stop reading (also while
 * flooding pings), idle clients, per-address limits, the rate floor.
 */
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

    @SuppressWarnings("try") // a closes mid-body: that frees its place
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

    /**
     * Regression: a client that floods pings before its hello and never reads made the server queue
     * a pong per ping, and nothing closed the connection. Now pongs stop at the water mark and the
     * stall timeout closes it.
     */
    @Test
    void pingFloodWithoutReading_isClosedAsSlowConsumerBeforeHello() throws Exception {
        start(KhameleonServer.builder().writeBufferWaterMark(4 * 1024, 8 * 1024).sendBufferBytes(8 * 1024)
                .writeStallTimeout(Duration.ofMillis(300)).helloTimeout(Duration.ofMinutes(1))
                .maxPingsPerSecond(1_000_000));
        try (RawClient flood = new RawClient(server.port(), "/test", 4096)) {
            byte[] payload = new byte[125];
            for (int i = 0; i < 50_000 && server.metrics().errorsByCode().get("slow_consumer") == null; i++) {
                try {
                    flood.sendPing(payload);
                } catch (java.io.IOException closed) {
                    break;
                }
            }
            TestClient.await(() -> server.metrics().errorsByCode().getOrDefault("slow_consumer", 0L) == 1,
                    "the flooding connection is closed as a slow consumer");
            TestClient.await(flood::serverClosed, "the server drops the connection");
        }
    }

    @Test
    void pingsOverTheLimit_closeTheSessionWithLimitExceeded_andOtherSessionsGoOn() {
        URI uri = start(KhameleonServer.builder().fixedBytesPerSecond(100_000).maxPingsPerSecond(8));
        try (TestClient healthy = TestClient.open(uri, "test", 100); TestClient flood = TestClient.open(uri, "test", 100)) {
            for (int i = 0; i < 9; i++) {
                flood.sendPing();
            }
            ControlMessage.ErrorMessage e = flood.awaitError();
            assertEquals("limit_exceeded", e.code());
            assertTrue(e.message().contains("8 pings"), e.message());
            assertEquals(1008, flood.awaitClose().status());
            healthy.blocks.clear();
            healthy.nextBlock();
            assertFalse(healthy.closed.isDone(), "the other session is unaffected");
            assertEquals(1L, server.metrics().errorsByCode().get("limit_exceeded"));
        }
    }

    /** Regression: a report of 5e-324 made the estimate 0 and the slot infinite; the session died with 1011. */
    @Test
    void tinyRateReport_countsAsTheFloorAndTheSessionGoesOn() {
        URI uri = start(KhameleonServer.builder());
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            c.sendText("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": 5e-324}");
            TestClient.await(() -> server.sessionMetrics().size() == 1 && server.sessionMetrics().get(0)
                    .bandwidthBytesPerSecond() == BandwidthEstimator.MIN_BYTES_PER_SECOND, "the floor is the estimate");
            c.blocks.clear();
            c.nextBlock();
            assertFalse(c.closed.isDone(), "the session is still open");
            assertEquals(Map.of(), server.metrics().errorsByCode());
        }
    }

    /** Regression: 10,000 connections that never said hello locked every client out; now each address gets a few. */
    @SuppressWarnings("try") // idle sockets hold their places by being open
    @Test
    void perAddressLimits_closeExtraConnectionsAtOnce() throws Exception {
        start(KhameleonServer.builder().maxConnectionsPerAddress(3).maxHandshakesPerAddress(2));
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 0);
        try (Socket a = idle(); Socket b = idle()) {
            // connect() returns before the server has accepted: wait until it counts both, or the
            // next connection may be accepted first and take their place.
            TestClient.await(() -> server.runtime().addressLimits.connections(local) == 2, "a and b are counted");
            try (Socket refused = idle()) {
                assertEquals(-1, refused.getInputStream().read(), "a third handshake is closed at once");
            }
            a.close();
            TestClient.await(() -> server.runtime().addressLimits.connections(local) == 1, "a's place is freed");
            try (RawClient session = new RawClient(server.port(), "/test", 1 << 16)) {
                session.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"test\",\"cacheBlocks\":10}");
                TestClient.await(() -> server.metrics().activeSessions() == 1, "the hello frees a handshake place");
                try (Socket c = idle()) {
                    TestClient.await(() -> server.runtime().addressLimits.connections(local) == 3, "c is counted");
                    try (Socket refused = idle()) {
                        assertEquals(-1, refused.getInputStream().read(), "a fourth connection is closed at once");
                    }
                }
                assertEquals(2, server.metrics().handshakesRefused());
            }
        }
    }

    /** A connected socket that sends nothing, with reads bounded in time. */
    private Socket idle() throws java.io.IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
        s.setSoTimeout(10_000);
        return s;
    }
}
