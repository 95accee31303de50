package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.KeyedBlockSource;
import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Per-session request scopes over loopback: rebinds, block generations, and the limits on scopes. */
@Timeout(60)
class ServerScopeTest {
    private static final int N = 8;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 256;
    private static final long[] HORIZONS = {50, 150, 250, 500};

    private KhameleonServer server;
    private final AtomicInteger decodes = new AtomicInteger();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Decodes {@code {"bind": [[id, key], ...]}}. */
    private final RequestScope scope = json -> {
        decodes.incrementAndGet();
        JsonNode pairs = json.get("bind");
        if (pairs == null || !pairs.isArray()) {
            throw new IllegalArgumentException("scope must be {\"bind\": [[id, key], ...]}, was " + json);
        }
        Bindings.Builder b = Bindings.builder();
        pairs.forEach(p -> b.bind(p.get(0).intValue(), p.get(1).longValue()));
        return b.build();
    };

    private Application.Builder app() {
        return Application.builder("xf").blockSource(new KeyedBlockSource(N, BLOCKS, BLOCK_SIZE))
                .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS).requestScope(scope);
    }

    private URI start(KhameleonServer.Builder b, Application a) {
        server = b.host("127.0.0.1").port(0).seed(11).fixedBytesPerSecond(2e6).application(a).build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/" + a.name());
    }

    private static void sendScope(TestClient c, String json) {
        c.sendText("{\"type\":\"scope\",\"scope\":" + json + "}");
    }

    @Test
    void rebind_isAnnouncedAndTheNewContentFollowsFromBlockZeroWithTheNewGeneration() {
        URI uri = start(KhameleonServer.builder(), app().build());
        try (TestClient c = TestClient.connect(uri)) {
            c.send(ControlMessage.Hello.of("xf", 200));
            ControlMessage.Welcome w = assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            assertTrue(w.supports(Protocol.FEATURE_SCOPE));
            c.sendState(1, "{\"request\": 3}");
            TestClient.Received first = c.nextBlock();
            assertEquals(BlockFrame.GENERATION_HEADER_LENGTH + BLOCK_SIZE, first.bytes(), "frames carry the 36-byte header");

            sendScope(c, "{\"bind\": [[3, 300], [5, 500]]}");
            ControlMessage.Rebind rebind = assertInstanceOf(ControlMessage.Rebind.class, c.nextControl());
            assertArrayEquals(new int[] {3, 5}, rebind.requestIds());
            assertArrayEquals(new int[] {1, 1}, rebind.generations());

            List<Integer> newIndexes = new ArrayList<>();
            while (newIndexes.size() < BLOCKS) {
                TestClient.Received r = c.nextBlock();
                Block b = r.frame().block();
                if (b.requestId() != 3) {
                    continue;
                }
                if (r.frame().generation() == 1) {
                    assertEquals(300, KeyedBlockSource.contentKeyOf(b), "a generation-1 block of 3 answers content 300");
                    newIndexes.add(b.index());
                } else {
                    assertEquals(0, r.frame().generation());
                    assertEquals(3, KeyedBlockSource.contentKeyOf(b), "a generation-0 block of 3 answers its default content");
                    assertTrue(newIndexes.isEmpty(), "no old block after the first new one");
                }
            }
            assertEquals(List.of(0, 1, 2, 3), newIndexes, "the new content is pushed from its first block");

            sendScope(c, "{\"bind\": [[5, 500]]}");
            rebind = assertInstanceOf(ControlMessage.Rebind.class, c.nextControl());
            assertArrayEquals(new int[] {3}, rebind.requestIds(), "only 3 changed: 5 keeps content 500");
            assertArrayEquals(new int[] {0}, rebind.generations(), "3 is back to its default content");
        }
    }

    @Test
    void applicationWithoutScope_keepsThe32ByteFrames_andRefusesAScopeAsUnknownType() {
        Application plain = Application.builder("plain").blockSource(new KeyedBlockSource(N, BLOCKS, BLOCK_SIZE)).build();
        URI uri = start(KhameleonServer.builder(), plain);
        try (TestClient c = TestClient.connect(uri)) {
            c.send(ControlMessage.Hello.of("plain", 200));
            ControlMessage.Welcome w = assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            assertFalse(w.supports(Protocol.FEATURE_SCOPE));
            TestClient.Received r = c.nextBlock();
            assertEquals(32 + BLOCK_SIZE, r.bytes());
            assertEquals(0, r.frame().generation());
            sendScope(c, "{\"bind\": []}");
            assertEquals("unknown_type", c.awaitError().code());
            assertEquals(1002, c.awaitClose().status());
        }
    }

    @Test
    void scopeBindingMoreThanMaxBoundRequests_isLimitExceeded_andOtherSessionsGoOn() {
        URI uri = start(KhameleonServer.builder(), app().maxBoundRequests(2).build());
        try (TestClient ok = TestClient.open(uri, "xf", 200); TestClient big = TestClient.open(uri, "xf", 200)) {
            sendScope(ok, "{\"bind\": [[1, 10], [2, 20]]}");
            assertInstanceOf(ControlMessage.Rebind.class, ok.nextControl());
            sendScope(big, "{\"bind\": [[1, 10], [2, 20], [3, 30]]}");
            ControlMessage.ErrorMessage e = big.awaitError();
            assertEquals("limit_exceeded", e.code());
            assertTrue(e.message().contains("maxBoundRequests"), e.message());
            assertEquals(1008, big.awaitClose().status());
            ok.nextBlock();
        }
    }

    @Test
    void scopeBindingAnUnknownId_orRejectedByTheApplication_isInvalidScope() {
        URI uri = start(KhameleonServer.builder(), app().build());
        try (TestClient c = TestClient.open(uri, "xf", 200)) {
            sendScope(c, "{\"bind\": [[" + N + ", 1]]}");
            ControlMessage.ErrorMessage e = c.awaitError();
            assertEquals("invalid_scope", e.code());
            assertTrue(e.message().contains("request " + N + ", out of range"), e.message());
            assertEquals(1007, c.awaitClose().status());
        }
        try (TestClient c = TestClient.open(uri, "xf", 200)) {
            sendScope(c, "{\"brushes\": 1}");
            ControlMessage.ErrorMessage e = c.awaitError();
            assertEquals("invalid_scope", e.code());
            assertTrue(e.message().contains("scope must be {\"bind\""), e.message());
        }
    }

    @Test
    void rebindStorm_isMergedToAtMostOneScopePerStateInterval_andTheLastScopeWins() {
        long intervalMillis = 100;
        URI uri = start(KhameleonServer.builder().stateInterval(Duration.ofMillis(intervalMillis)), app().build());
        try (TestClient c = TestClient.open(uri, "xf", 200)) {
            c.sendState(1, "{\"request\": 3}");
            c.nextBlock();
            int scopes = 300;
            long t0 = System.nanoTime();
            for (int k = 0; k < scopes; k++) {
                sendScope(c, "{\"bind\": [[3, " + (1000 + k) + "]]}");
            }
            long last = 1000 + scopes - 1;
            while (true) {
                TestClient.Received r = c.nextBlock();
                if (r.frame().block().requestId() == 3 && KeyedBlockSource.contentKeyOf(r.frame().block()) == last) {
                    break;
                }
            }
            long elapsedMillis = (System.nanoTime() - t0) / 1_000_000;
            int applied = decodes.get();
            assertTrue(applied < scopes, "scopes were merged: " + applied + " decoded of " + scopes);
            assertTrue(applied <= 2 + elapsedMillis / intervalMillis,
                    applied + " scopes decoded in " + elapsedMillis + " ms at one per " + intervalMillis + " ms");
        }
    }

    @Test
    void scopeStormFromAClientThatDoesNotRead_queuesAtMostOneScopesRebinds() throws Exception {
        int n = 4000;
        int high = 16 * 1024;
        // {"k": x} binds every id to content x: each scope rebinds all 4,000 ids (a ~40 KB rebind).
        RequestScope everything = json -> {
            decodes.incrementAndGet();
            long k = json.get("k").longValue();
            Bindings.Builder b = Bindings.builder();
            for (int id = 0; id < n; id++) {
                b.bind(id, k * n + id);
            }
            return b.build();
        };
        Application a = Application.builder("xf").blockSource(new KeyedBlockSource(n, 1, 64)).requestScope(everything)
                .build();
        URI uri = start(KhameleonServer.builder().stateInterval(Duration.ZERO).writeBufferWaterMark(8 * 1024, high)
                .sendBufferBytes(16 * 1024), a);
        int scopes = 10;
        try (RawClient raw = new RawClient(server.port(), "/xf", 4096)) {
            raw.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"xf\",\"cacheBlocks\":100}");
            TestClient.await(() -> server.sessionMetrics().size() == 1
                    && server.sessionMetrics().get(0).chunksPlanned() >= 1, "the session planned its first chunk");
            for (int k = 1; k <= scopes; k++) {
                raw.sendText("{\"type\":\"scope\",\"scope\":{\"k\":" + (k % 2 + 1) + "}}");
                // Each scope gets the time to be applied, so that merging pending scopes is not what bounds them.
                long deadline = System.nanoTime() + 300_000_000L;
                while (decodes.get() < k && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            SessionMetrics m = server.sessionMetrics().get(0);
            assertTrue(decodes.get() <= 2, decodes.get() + " of " + scopes + " scopes applied to a client that reads"
                    + " nothing");
            long oneRebind = ControlCodec.encode(new ControlMessage.Rebind(
                    java.util.stream.IntStream.range(0, n).toArray(), new int[n])).length() + 64L;
            assertTrue(m.maxQueuedBytes() <= high + 2 * oneRebind, "queued " + m.maxQueuedBytes() + " bytes");
        }
    }

    /**
     * A scope whose job still waits in the scheduler queue when a state arrives: the state's job
     * takes the queued job's place, and must carry the scope along rather than drop it.
     */
    @Test
    void scopeQueuedWhenAStateArrives_isStillApplied() throws InterruptedException {
        java.util.concurrent.CountDownLatch occupied = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        ServerPredictor point = ServerPredictor.point(N, HORIZONS);
        Application a = Application.builder("xf").blockSource(new KeyedBlockSource(N, BLOCKS, BLOCK_SIZE))
                .predictor(state -> {
                    if (state.path("block").asBoolean()) {
                        // The blocking session holds the only scheduler thread.
                        occupied.countDown();
                        try {
                            release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return point.decode(state);
                })
                .horizons(HORIZONS).requestScope(scope).build();
        URI uri = start(KhameleonServer.builder().schedulerThreads(1).stateInterval(Duration.ZERO), a);
        try (TestClient blocker = TestClient.open(uri, "xf", 64); TestClient c = TestClient.open(uri, "xf", 100)) {
            blocker.nextBlock();
            c.nextBlock();
            blocker.sendState(1, "{\"request\": 1, \"block\": true}");
            assertTrue(occupied.await(10, java.util.concurrent.TimeUnit.SECONDS), "the scheduler thread is held");
            sendScope(c, "{\"bind\": [[3, 300]]}");
            c.sendState(1, "{\"request\": 3}");
            TestClient.await(() -> server.sessionMetrics().stream().anyMatch(m -> m.statesReceived() == 1
                    && m.cacheBlocks() == 100), "the state reached the server while the scope's job was queued");
            release.countDown();
            ControlMessage.Rebind rebind = assertInstanceOf(ControlMessage.Rebind.class, c.nextControl(),
                    "the scope was applied although a state replaced its queued job");
            assertArrayEquals(new int[] {3}, rebind.requestIds());
            assertEquals(1, decodes.get(), "the scope was decoded once");
        } finally {
            release.countDown();
        }
    }
}
