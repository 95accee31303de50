package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.KeyedBlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rebind while blocks of the old binding are in flight, against the real server over loopback:
 * the client never answers the rebound request with a block of its old meaning.
 *
 * <p>The old content's blocks are held back by the block source until the client has received the
 * rebind, so they reach the client strictly after it (the server had planned and started fetching
 * them before the scope arrived). Only the generation in their frames tells the client they are
 * stale: without that check the client stores them and answers with the old content.
 */
@Timeout(60)
class ScopeRebindEndToEndTest {
    private static final int N = 2;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 128;
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final long NEW_KEY = 100;

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

    private static Distribution pointOnZero() {
        Distribution.Builder d = Distribution.builder(N, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            d.explicit(j, 0, 1.0);
        }
        return d.build();
    }

    /** Always predicts request 0. */
    private static final class StayOnZero implements ClientPredictor<Integer> {
        @Override
        public void onEvent(Integer event) {
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", 0);
        }
    }

    @Test
    void blocksOfTheOldBindingArrivingAfterTheRebind_neverAnswerTheRequest() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        KeyedBlockSource source = new KeyedBlockSource(N, BLOCKS, BLOCK_SIZE).holdDefaultContentUntil(gate);
        Application app = Application.builder("xf").blockSource(source)
                .predictor(ServerPredictor.point(N, HORIZONS)).horizons(HORIZONS)
                .initialDistribution(pointOnZero())
                .requestScope(scope -> {
                    Bindings.Builder b = Bindings.builder();
                    scope.get("bind").forEach(p -> b.bind(p.get(0).intValue(), p.get(1).longValue()));
                    return b.build();
                })
                .build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(5).fixedBytesPerSecond(5e6)
                .application(app).build().start();
        CountDownLatch rebound = new CountDownLatch(1);
        List<int[]> rebinds = new ArrayList<>();
        client = KhameleonClient.builder().predictor(new StayOnZero())
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/xf")).application("xf").cacheBlocks(64)
                .reconnect(false)
                .listener(new ClientListener() {
                    @Override
                    public void onRebind(int[] requestIds) {
                        rebinds.add(requestIds);
                        rebound.countDown();
                    }
                })
                .build();
        client.connect().get(10, TimeUnit.SECONDS);
        // The server planned request 0's default content and is fetching it: now the scope rebinds 0.
        source.firstFetch().toCompletableFuture().get(10, TimeUnit.SECONDS);
        client.scope(ControlCodec.mapper().readTree("{\"bind\": [[0, " + NEW_KEY + "]]}"));
        assertTrue(rebound.await(10, TimeUnit.SECONDS), "the server announced the rebind");
        assertArrayEquals(new int[] {0}, rebinds.get(0));
        // Registered before any old block can arrive: an old block stored now would answer it.
        LinkedBlockingQueue<Response> answers = new LinkedBlockingQueue<>();
        client.request(0, answers::add);
        gate.complete(null);

        Response last;
        do {
            last = answers.poll(10, TimeUnit.SECONDS);
            assertNotNull(last, "request 0 is answered");
            for (Block b : last.blocks()) {
                assertEquals(NEW_KEY, KeyedBlockSource.contentKeyOf(b),
                        "block " + b.index() + " of request 0 answers its new content");
            }
        } while (!last.isComplete());
        // The old blocks were written before the new ones, so they have arrived by now.
        assertTrue(client.metrics().blocksRefused() >= 1,
                "blocks of the old binding reached the client after the rebind and were refused: "
                        + client.metrics().blocksRefused());
    }
}
