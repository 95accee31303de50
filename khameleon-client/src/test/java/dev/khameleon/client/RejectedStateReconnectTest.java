package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client against a real loopback {@link KhameleonServer} whose predictor rejects every
 * state: the regression of the reconnect storm, where each welcome reset the back-off and the
 * client re-sent the rejected state at once (ten sessions in 1.5 s, each wiping the cache).
 */
class RejectedStateReconnectTest {
    private static final int REQUESTS = 8;
    private static final long INITIAL_MILLIS = 50;

    private KhameleonServer server;
    private final AtomicInteger decoded = new AtomicInteger();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI startRejectingServer() {
        List<List<Block>> responses = new java.util.ArrayList<>();
        for (int r = 0; r < REQUESTS; r++) {
            responses.add(List.of(Block.wrap(r, 0, 1, new byte[64], 0)));
        }
        Application app = Application.builder("app").blockSource(BlockSource.inMemory(64, responses))
                .predictor(state -> {
                    decoded.incrementAndGet();
                    throw new IllegalArgumentException("this predictor rejects every state, was " + state);
                }).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1).fixedBytesPerSecond(1e5)
                .application(app).build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/app");
    }

    /** A client half whose state is a counter it sets; {@code changing} makes every state new. */
    private static final class CounterPredictor implements ClientPredictor<Integer> {
        private final boolean changing;
        private int value;

        CounterPredictor(boolean changing) {
            this.changing = changing;
        }

        @Override
        public void onEvent(Integer event) {
            value = event;
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("n", changing ? value++ : value);
        }
    }

    /** Records session starts and ends on the test's clock, and the rejected states. */
    private static final class Recorder implements ClientListener {
        final List<Long> connectedAt = new CopyOnWriteArrayList<>();
        final List<Long> disconnectedAt = new CopyOnWriteArrayList<>();
        final List<JsonNode> rejected = new CopyOnWriteArrayList<>();
        final AtomicLong lastStatus = new AtomicLong();

        @Override
        public void onConnected(Welcome welcome) {
            connectedAt.add(System.nanoTime());
        }

        @Override
        public void onDisconnected(int status, String reason, boolean willReconnect) {
            lastStatus.set(status);
            disconnectedAt.add(System.nanoTime());
        }

        @Override
        public void onStateRejected(JsonNode state, String message) {
            rejected.add(state);
        }
    }

    private static KhameleonClient<Integer> client(URI uri, ClientPredictor<Integer> predictor, Recorder recorder) {
        // The direct executor runs onDisconnected before the reconnect is scheduled and onConnected
        // after the new connection opened, so a measured gap is never shorter than the delay.
        return KhameleonClient.builder().uri(uri).application("app").cacheBlocks(16).predictor(predictor)
                .stateInterval(Duration.ofMillis(10)).backoff(Duration.ofMillis(INITIAL_MILLIS), Duration.ofSeconds(2))
                .random(new SplittableRandom(11)).upcallExecutor(Runnable::run).listener(recorder).build();
    }

    private static void awaitSize(List<?> list, int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (list.size() < size && System.nanoTime() < deadline) {
            Thread.sleep(10); // polling a listener's record; bounded by the deadline
        }
        assertTrue(list.size() >= size, "expected " + size + " events within 20 s, got " + list.size());
    }

    @Test
    void everyStateRejected_sessionsStayFew_andReconnectDelaysGrow() throws Exception {
        URI uri = startRejectingServer();
        Recorder rec = new Recorder();
        try (KhameleonClient<Integer> client = client(uri, new CounterPredictor(true), rec)) {
            long t0 = System.nanoTime();
            client.connect().get(10, TimeUnit.SECONDS);
            awaitSize(rec.connectedAt, 5);
            for (int k = 0; k < 4; k++) {
                long gapMillis = TimeUnit.NANOSECONDS.toMillis(rec.connectedAt.get(k + 1) - rec.disconnectedAt.get(k));
                long lowerBound = (INITIAL_MILLIS << k) / 2;
                assertTrue(gapMillis >= lowerBound, "reconnect " + (k + 1) + " came after " + gapMillis
                        + " ms, expected at least " + lowerBound + " ms (the back-off must grow)");
            }
            // Delays of at least 25, 50, 100, 200, 400, 800 ms: six sessions or fewer start in 1.5 s.
            long inWindow = rec.connectedAt.stream().filter(t -> t - t0 <= TimeUnit.MILLISECONDS.toNanos(1500)).count();
            assertTrue(inWindow <= 6, inWindow + " sessions in 1.5 s");
            assertTrue(rec.rejected.size() >= 4, "each rejection is reported: " + rec.rejected);
            assertEquals(1007, rec.lastStatus.get(), "the server closes a rejected state with 1007");
        }
    }

    @Test
    void rejectedState_isNotResent_untilThePredictorChangesIt() throws Exception {
        URI uri = startRejectingServer();
        Recorder rec = new Recorder();
        try (KhameleonClient<Integer> client = client(uri, new CounterPredictor(false), rec)) {
            client.connect().get(10, TimeUnit.SECONDS);
            awaitSize(rec.connectedAt, 2);
            Thread.sleep(500); // 50 state intervals in which the unchanged state must not go out again
            assertEquals(1, decoded.get(), "the rejected state reached the server once");
            assertEquals(2, rec.connectedAt.size(), "the second session stays up");
            assertEquals(List.of(JsonNodeFactory.instance.objectNode().put("n", 0)), rec.rejected);

            client.onEvent(1);
            awaitSize(rec.connectedAt, 3);
            assertEquals(2, decoded.get(), "the new state was sent and rejected");
            long gapMillis = TimeUnit.NANOSECONDS.toMillis(rec.connectedAt.get(2) - rec.disconnectedAt.get(1));
            assertTrue(gapMillis >= INITIAL_MILLIS, "a short second session does not reset the back-off: waited "
                    + gapMillis + " ms");
        }
    }
}
