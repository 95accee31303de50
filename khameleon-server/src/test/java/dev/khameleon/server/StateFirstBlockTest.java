package dev.khameleon.server;

import dev.khameleon.core.spi.ServerPredictor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The first block of a state's plan is written as soon as it is ready, without waiting for the
 * pace: on a link of a few blocks per second, waiting for the pacer's next token added up to a
 * whole slot to every state's delay (and an old block let out after the state, another).
 */
class StateFirstBlockTest {
    private static final int N = 200;
    private static final long[] HORIZONS = {50, 150, 250, 500};

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void stateFirstBlock_isWrittenAtOnce_evenWhenThePacerHasNoTokens() {
        // A frozen clock: the pacer never earns a token after its initial burst of two frames, so
        // every later block can only be one a state's plan takes on credit.
        Application app = Application.builder("test").blockSource(TestApps.inMemory(N, 4, 1024))
                .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(5).clock(() -> 0L)
                .fixedBytesPerSecond(1000).pacingGain(1).stateInterval(Duration.ZERO)
                .application(app).build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            assertEquals(0, c.nextBlock().frame().seq());
            assertEquals(1, c.nextBlock().frame().seq(), "the pacer's initial burst");
            long seq = 2;
            int[] requests = {17, 123, 42};
            for (int k = 0; k < requests.length; k++) {
                c.sendState(k + 1, "{\"request\": " + requests[k] + "}");
                TestClient.Received r = c.nextBlock();
                assertEquals(seq++, r.frame().seq(), "no old block is let out first");
                assertEquals(requests[k], r.frame().block().requestId(), "the state's request comes first");
                assertEquals(0, r.frame().block().index());
            }
            assertEquals(requests.length, server.sessionMetrics().get(0).replans() - 1, "one re-plan per state");
        }
    }
}
