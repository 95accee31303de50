package dev.khameleon.client;

import dev.khameleon.testing.PatternBlocks;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.testing.BalabitTraces;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client against the real {@link KhameleonServer} over loopback, replaying a real
 * pointer trace (Balabit) over a grid application.
 */
class KhameleonClientEndToEndTest {
    private static final int BLOCK_SIZE = 512;
    private static final int BLOCKS = 4;
    /** A 1920×1080 screen as 12 × 8 cells: the Balabit screens' largest size. */
    private static final GridLayout GRID = Layout.grid(8, 12, 0, 0, 160, 135);

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(ServerPredictor predictor) {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7).fixedBytesPerSecond(5e6)
                .application(Application.builder("grid").blockSource(PatternBlocks.source(GRID.requestCount(), BLOCKS, BLOCK_SIZE)).predictor(predictor).build())
                .build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/grid");
    }

    /** A segment of a real trace that visits at least {@code cells} distinct cells. */
    private static List<PointerEvent> traceVisiting(int cells) {
        Path dir = BalabitTraces.directoryOrSkip();
        for (Path session : BalabitTraces.sessions(dir)) {
            for (List<PointerEvent> seg : BalabitTraces.segments(session)) {
                long distinct = seg.stream().mapToInt(e -> GRID.requestAt(e.x(), e.y())).filter(id -> id >= 0)
                        .distinct().count();
                if (distinct >= cells && seg.size() < 2000) {
                    return seg;
                }
            }
        }
        throw new AssertionError("no trace segment visits " + cells + " cells");
    }

    /** The client half of the point predictor: the cell under the pointer. */
    private static final class CellPredictor implements ClientPredictor<PointerEvent> {
        private int cell = -1;

        @Override
        public void onEvent(PointerEvent event) {
            cell = GRID.requestAt(event.x(), event.y());
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", cell);
        }
    }

    @Test
    void pointPredictor_generousRate_answersEveryRequestWithTheRightBytes() throws Exception {
        URI uri = start(ServerPredictor.point(GRID.requestCount(), 50, 150, 250, 500));
        List<PointerEvent> trace = traceVisiting(6);
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder().uri(uri).application("grid")
                .cacheBlocks(64).predictor(new CellPredictor()).stateInterval(java.time.Duration.ofMillis(20))
                .build()) {
            assertEquals(GRID.requestCount(), client.connect().get(10, TimeUnit.SECONDS).requestCount());
            int last = -1;
            int requests = 0;
            for (PointerEvent e : trace) {
                int cell = GRID.requestAt(e.x(), e.y());
                client.onEvent(e.x(), e.y(), System.currentTimeMillis());
                if (cell < 0 || cell == last) {
                    continue;
                }
                last = cell;
                CompletableFuture<Response> complete = new CompletableFuture<>();
                client.request(cell, r -> {
                    if (r.isComplete()) {
                        complete.complete(r);
                    }
                });
                Response r = complete.get(10, TimeUnit.SECONDS);
                requests++;
                for (Block b : r.blocks()) {
                    assertArrayEquals(PatternBlocks.payload(cell, b.index(), BLOCK_SIZE), b.payloadBytes(), "block " + b);
                }
                if (requests == 12) {
                    break;
                }
            }
            ClientMetrics m = client.metrics();
            assertEquals(requests, m.registrations());
            assertEquals(requests, m.answered(), "every request is answered: " + m);
            assertEquals(0, m.preempted());
            assertTrue(m.upcalls() >= requests, m.toString());
            assertTrue(m.blocksUsed() >= BLOCKS, "at least one full response came over the wire: " + m);
        }
    }

    @Test
    void miss_sendsAFreshStateAtOnce_soTheAnswerDoesNotWaitForThePeriodicState() throws Exception {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7).fixedBytesPerSecond(5e6)
                .application(Application.builder("grid").blockSource(PatternBlocks.source(GRID.requestCount(), BLOCKS, BLOCK_SIZE))
                        .predictor(ServerPredictor.point(GRID.requestCount(), 50, 150, 250, 500))
                        .waitForState(true).build())
                .build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/grid");
        int a = GRID.requestAt(10, 10);
        int b = GRID.requestAt(1000, 500);
        // The periodic state is an hour away: only the miss path can tell the server about b.
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder().uri(uri).application("grid")
                .cacheBlocks(64).predictor(new CellPredictor()).stateInterval(java.time.Duration.ofHours(1))
                .build()) {
            client.onEvent(10, 10, System.currentTimeMillis());
            client.connect().get(10, TimeUnit.SECONDS);
            CompletableFuture<Response> first = new CompletableFuture<>();
            client.request(a, r -> {
                if (r.isComplete()) {
                    first.complete(r);
                }
            });
            first.get(10, TimeUnit.SECONDS);
            client.onEvent(1000, 500, System.currentTimeMillis());
            CompletableFuture<Response> second = new CompletableFuture<>();
            boolean hit = client.request(b, r -> {
                if (r.isComplete()) {
                    second.complete(r);
                }
            });
            assertEquals(false, hit, "only a's blocks were pushed so far");
            Response answer = second.get(10, TimeUnit.SECONDS);
            assertEquals(b, answer.requestId());
            assertEquals(BLOCKS, answer.blocks().size());
        }
    }

    @Test
    void kalmanOverGrid_replayingARealTrace_getsHitsUpcallsAndMetrics() throws Exception {
        GaussianGridPredictor serverHalf = GaussianGridPredictor.builder(GRID).build();
        URI uri = start(serverHalf);
        List<PointerEvent> trace = traceVisiting(5);
        CountDownLatch connected = new CountDownLatch(1);
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder().uri(uri).application("grid")
                .cacheBlocks(1000).predictionModel(serverHalf)
                .listener(new ClientListener() {
                    @Override
                    public void onConnected(dev.khameleon.core.protocol.ControlMessage.Welcome welcome) {
                        connected.countDown();
                    }
                }).build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            assertTrue(connected.await(10, TimeUnit.SECONDS));
            // Replay at the trace's own pace (at most 5 s of it), stamping events on the client clock.
            long t0 = trace.get(0).timeMillis();
            long wall0 = System.currentTimeMillis();
            int last = -1;
            List<CompletableFuture<Response>> firsts = new ArrayList<>();
            for (PointerEvent e : trace) {
                long due = wall0 + (e.timeMillis() - t0);
                if (e.timeMillis() - t0 > 5000) {
                    break;
                }
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait); // pacing the replay, not synchronising
                }
                client.onEvent(e.x(), e.y(), due);
                int cell = GRID.requestAt(e.x(), e.y());
                if (cell >= 0 && cell != last) {
                    last = cell;
                    CompletableFuture<Response> first = new CompletableFuture<>();
                    firsts.add(first);
                    client.request(cell, first::complete);
                }
            }
            // The last request is never preempted: it must be answered.
            Response lastAnswer = firsts.get(firsts.size() - 1).get(10, TimeUnit.SECONDS);
            assertEquals(last, lastAnswer.requestId());
            ClientMetrics m = client.metrics();
            assertTrue(m.registrations() >= 2, m.toString());
            assertTrue(m.hits() >= 1, "with a cache that holds every response, some requests hit: " + m);
            assertTrue(m.upcalls() >= 1, m.toString());
            assertTrue(m.blocksReceived() > 0, m.toString());
            assertTrue(m.predictionSamples() >= 1, "prediction accuracy is measured: " + m);
            assertTrue(m.predictionAccuracy() >= 0 && m.predictionAccuracy() <= 1, m.toString());
            System.out.println("Kalman over a " + GRID + " replaying a Balabit segment: " + m);
        }
    }
}
