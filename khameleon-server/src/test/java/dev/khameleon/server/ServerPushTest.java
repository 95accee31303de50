package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ServerPredictor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
}
