package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.LazyCountBlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block source that tells its counts lazily, against the real server and the Java client over
 * loopback: the client learns each response's exact count from its block frames, so a request
 * whose count is below the bound is answered completely, at full utility, with exactly its blocks.
 */
@Timeout(60)
class LazyBlockCountEndToEndTest {
    private static final int N = 20;
    private static final int BOUND = 8;
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final int WANTED = 1;

    private KhameleonServer server;
    private KhameleonClient<Integer> client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static int exact(int id) {
        return 1 + (id * 3) % BOUND;
    }

    /** Always predicts {@link #WANTED}. */
    private static final class StayOnWanted implements ClientPredictor<Integer> {
        @Override
        public void onEvent(Integer event) {
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", WANTED);
        }
    }

    @Test
    void requestWithFewerBlocksThanItsBound_isAnsweredCompletelyWithExactlyItsBlocks() throws Exception {
        LazyCountBlockSource source = new LazyCountBlockSource(N, BOUND, 128, LazyBlockCountEndToEndTest::exact, false);
        Application app = Application.builder("lazy").blockSource(source)
                .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS).waitForState(true).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(9).fixedBytesPerSecond(2e6)
                .application(app).build().start();
        client = KhameleonClient.builder().predictor(new StayOnWanted())
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/lazy")).application("lazy").cacheBlocks(64)
                .reconnect(false).build();
        client.connect().get(10, TimeUnit.SECONDS);
        ControlMessage.Welcome welcome = client.welcome().orElseThrow();
        assertTrue(welcome.blockCounts().isBound(WANTED), "the welcome says the count is an upper bound");
        assertEquals(BOUND, welcome.blockCounts().countOf(WANTED));

        LinkedBlockingQueue<Response> answers = new LinkedBlockingQueue<>();
        client.request(WANTED, answers::add);
        Response last;
        do {
            last = answers.poll(10, TimeUnit.SECONDS);
            assertNotNull(last, "request " + WANTED + " is answered");
            assertEquals(exact(WANTED), last.blockCount(), "the response has the exact count, not the bound");
        } while (!last.isComplete());
        assertEquals(exact(WANTED), last.blocks().size());
        for (int i = 0; i < last.blocks().size(); i++) {
            Block b = last.blocks().get(i);
            assertEquals(i, b.index());
        }
        assertEquals(1.0, last.utility(), 1e-12, "all blocks: full utility");
        assertEquals(0, client.metrics().blocksRefused(), "no frame contradicted another's count");
        assertEquals(0, source.fetchesPastTheEnd(), "no block past a response's end was asked for");
    }
}
