package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.LazyCountBlockSource;
import dev.khameleon.testing.LogCapture;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Block counts told lazily, end to end over loopback with an independent client: the server plans
 * on the bound, learns each count from the blocks, and never writes a block past it; a source that
 * misreports a count gets the request dropped while the session goes on.
 */
@Timeout(60)
class ServerLazyCountTest {
    private static final int N = 40;
    private static final int BOUND = 8;
    private static final int BLOCK_SIZE = 256;
    private static final int CACHE = 100;
    private static final long[] HORIZONS = {50, 150, 250, 500};

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Exact counts 1..8 over the requests, most of them below the bound. */
    private static int exact(int id) {
        return 1 + (id * 5) % BOUND;
    }

    /** Most mass on requests 3 and 4, the rest spread: every request is pushed. */
    private static Distribution onThreeAndFour() {
        Distribution.Builder b = Distribution.builder(N, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            b.explicit(j, 3, 0.4).explicit(j, 4, 0.4).residual(j, 0.2);
        }
        return b.build();
    }

    private URI start(LazyCountBlockSource source) {
        Application app = Application.builder("lazy").blockSource(source)
                .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS)
                .initialDistribution(onThreeAndFour()).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(3).fixedBytesPerSecond(5e6)
                .application(app).build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/lazy");
    }

    @ParameterizedTest(name = "fetchesImmediately={0}")
    @ValueSource(booleans = {false, true})
    void framesCarryTheExactCount_andNoBlockPastIt(boolean immediately) {
        LazyCountBlockSource source = new LazyCountBlockSource(N, BOUND, BLOCK_SIZE, ServerLazyCountTest::exact,
                immediately);
        URI uri = start(source);
        try (TestClient c = TestClient.connect(uri)) {
            c.send(ControlMessage.Hello.of("lazy", CACHE));
            ControlMessage.Welcome w = assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            assertEquals(BOUND, w.blockCounts().defaultCount());
            for (int id = 0; id < N; id++) {
                assertTrue(w.blockCounts().isBound(id), "the welcome lists request " + id + " as lazily counted");
            }
            Set<Integer> seen = new HashSet<>();
            // Three batches: every one of them fills (the exact counts sum to more than the ring).
            for (int k = 0; k < 3 * CACHE; k++) {
                BlockFrame f = c.nextBlock().frame();
                assertEquals(k, f.seq(), "consecutive sequence numbers");
                int id = f.block().requestId();
                assertEquals(exact(id), f.block().count(), "the frame of request " + id + " carries its exact count");
                assertTrue(f.block().index() < exact(id));
                seen.add(id);
            }
            assertTrue(seen.contains(3) && seen.contains(4));
            assertTrue(seen.size() > N / 2, "the link carried many requests: " + seen.size());
        }
        assertEquals(0, source.fetchesPastTheEnd(), "no block past a response's end was asked for");
    }

    @Test
    void countAboveTheBoundOrChanging_dropsTheRequest_andThePushGoesOn() throws InterruptedException {
        // Request 3 claims more blocks than its bound; request 4's block 0 says 5, its later blocks 6.
        LazyCountBlockSource source = new LazyCountBlockSource(N, BOUND, BLOCK_SIZE, id -> id == 4 ? 6 : exact(id),
                false).misreporting((id, index, count) -> id == 3 ? BOUND + 1 : id == 4 && index == 0 ? 5 : count);
        URI uri = start(source);
        Map<Integer, Integer> countOf = new HashMap<>();
        try (LogCapture warnings = LogCapture.warnings(SlotFetcher.class, "failed, skipping it");
             TestClient c = TestClient.open(uri, "lazy", CACHE)) {
            for (int k = 0; k < 3 * CACHE; k++) {
                BlockFrame f = c.nextBlock().frame();
                assertEquals(k, f.seq(), "the refused blocks used no sequence number: the ring model holds");
                int id = f.block().requestId();
                assertFalse(id == 3, "request 3 told a count above its bound: none of its blocks is sent");
                Integer before = countOf.putIfAbsent(id, f.block().count());
                assertEquals(before == null ? f.block().count() : before, f.block().count(),
                        "request " + id + " reached the client with two counts");
            }
            assertEquals(1, server.sessionMetrics().size(), "the session is still open");
            // The session's first refused request (3 or 4) is a warning saying why; later ones are debug.
            String warning = warnings.await(10);
            assertTrue(warning.contains("more than its bound") || warning.contains("changed the block count"), warning);
            assertEquals(1, warnings.messages().size(), "one warning for the session: " + warnings.messages());
        }
        assertEquals(5, countOf.getOrDefault(4, 5), "request 4 went out only with its first count");
        assertTrue(countOf.size() > N / 2, "the link carried the other requests: " + countOf.size());
    }

    @Test
    void lazyCountsWithARequestScope_areRefusedAtBuild() {
        LazyCountBlockSource source = new LazyCountBlockSource(N, BOUND, BLOCK_SIZE, ServerLazyCountTest::exact, true);
        RequestScope scope = s -> dev.khameleon.core.Bindings.builder().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Application.builder("lazy")
                .blockSource(source).horizons(HORIZONS).requestScope(scope).build());
        assertTrue(e.getMessage().contains("isBlockCountBound"), e.getMessage());
    }
}
