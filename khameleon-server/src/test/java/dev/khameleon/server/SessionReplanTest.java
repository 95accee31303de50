package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Regression for "fromSeq 34 out of range [128, 200]": with a cache smaller than the chunk size,
 * the session let the scheduler plan two chunks (200 slots) ahead of the sender, more than the
 * {@code C} slots the scheduler can re-plan, so the next state or failed fetch asked for an
 * impossible re-plan and the session closed with {@code internal_error}. A recording scheduler
 * checks every call the session makes against what the scheduler can do.
 */
class SessionReplanTest {
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

    /** Regression (Error): only RuntimeException was caught, so a scheduler thread hit by an Error left its session hanging. */
    @ParameterizedTest
    @ValueSource(strings = {"runtime", "error"})
    void replan_schedulerThatThrows_closesOnlyItsSessionWithInternalError(String kind) throws InterruptedException {
        // The initial plan's re-plan passes; the re-plan for a state throws, as a broken scheduler might.
        Application app = Application.builder("test")
                .blockSource(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE))
                .predictor(ServerPredictor.pointDecaying(N, 100, HORIZONS))
                .horizons(HORIZONS)
                .scheduler(c -> new RecordingScheduler(Schedulers.greedy(DefaultScheduler.config(c)), List.of()) {
                    private int replans;

                    @Override
                    public void replan(Distribution distribution, long fromSeq, double slotMillis) {
                        if (++replans > 1) {
                            if (kind.equals("error")) {
                                throw new OutOfMemoryError("broken scheduler");
                            }
                            throw new IllegalArgumentException("broken scheduler");
                        }
                        super.replan(distribution, fromSeq, slotMillis);
                    }
                })
                .build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7).fixedBytesPerSecond(1e6)
                .application(app).build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        try (TestClient broken = TestClient.open(uri, "test", 64);
             TestClient healthy = TestClient.open(uri, "test", 64)) {
            broken.nextBlock();
            healthy.nextBlock();
            broken.sendState(1, "{\"request\": 3}");
            ControlMessage.ErrorMessage e = broken.awaitError();
            assertEquals("internal_error", e.code());
            assertTrue(e.message().contains("broken scheduler"), e.message());
            assertEquals(1011, broken.awaitClose().status());
            healthy.blocks.clear();
            long seq = healthy.nextBlock().frame().seq();
            assertEquals(seq + 1, healthy.nextBlock().frame().seq(), "the other session keeps going");
            assertEquals(1L, server.metrics().errorsByCode().get("internal_error"));
            TestClient.await(() -> server.metrics().activeSessions() == 1, "the broken session is gone");
        }
    }

    /**
     * A burst of states while a re-plan runs costs one more re-plan, for the newest state only: the
     * predictor decodes the first state and the last, never the ones in between.
     */
    /** The next block; fails at once with the server's error message if the session closes instead. */
    private static TestClient.Received nextBlockOrError(TestClient c) throws InterruptedException {
        long deadline = System.nanoTime() + TestClient.TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            TestClient.Received r = c.blocks.poll(20, TimeUnit.MILLISECONDS);
            if (r != null) {
                return r;
            }
            ControlMessage m = c.control.poll();
            if (m instanceof ControlMessage.ErrorMessage e) {
                fail("the session closed with " + e.code() + ": " + e.message());
            }
        }
        return fail("no block within " + TestClient.TIMEOUT);
    }

    /**
     * A state that arrives while its session's previous state re-plan still waits in the scheduler
     * queue takes that job's place: only the newest state is decoded and planned. Before, the newer
     * state waited for the queued job to run first, a second queue wait under load.
     */
    @org.junit.jupiter.api.Test
    void stateArrivingWhileTheSessionsReplanIsQueued_replacesIt() throws InterruptedException {
        CountDownLatch occupied = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        List<Integer> decoded = new CopyOnWriteArrayList<>();
        ServerPredictor point = ServerPredictor.point(N, HORIZONS);
        Application app = Application.builder("test")
                .blockSource(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE))
                .predictor(state -> {
                    decoded.add(state.path("request").asInt());
                    return point.decode(state);
                })
                .horizons(HORIZONS)
                .scheduler(c -> new RecordingScheduler(Schedulers.greedy(DefaultScheduler.config(c)), List.of()) {
                    @Override
                    public void replan(Distribution distribution, long fromSeq, double slotMillis) {
                        // The session with a 64-block cache holds the only scheduler thread once armed.
                        if (c.cacheBlocks() == 64 && armed.get()) {
                            occupied.countDown();
                            try {
                                release.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        super.replan(distribution, fromSeq, slotMillis);
                    }
                })
                .build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(11).fixedBytesPerSecond(20_000)
                .schedulerThreads(1).stateInterval(java.time.Duration.ZERO).application(app).build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        try (TestClient blocker = TestClient.open(uri, "test", 64); TestClient c = TestClient.open(uri, "test", 100)) {
            blocker.nextBlock();
            c.nextBlock();
            armed.set(true);
            blocker.sendState(1, "{\"request\": 7}");
            assertTrue(occupied.await(10, TimeUnit.SECONDS), "the blocking session holds the scheduler thread");
            c.sendState(1, "{\"request\": 11}");
            c.sendState(2, "{\"request\": 12}");
            TestClient.await(() -> server.sessionMetrics().stream().anyMatch(m -> m.statesReceived() == 2),
                    "both states reached the server while the first one's job was queued");
            release.countDown();
            while (c.nextBlock().frame().block().requestId() != 12) {
                // blocks from before the re-plan
            }
            assertEquals(List.of(7, 12), decoded, "the queued job for request 11 was replaced, not run");
        } finally {
            release.countDown();
        }
    }

    /**
     * A session fetches ahead only the blocks it will send soon: a re-plan for each new state drops
     * what was fetched beyond its cut, so fetching the whole fetch window ahead of a slowly paced
     * session read several blocks from the source for each block sent (about 8 per block here, 2 now).
     */
    @org.junit.jupiter.api.Test
    void slowlyPacedSessionWithFrequentStates_fetchesLittleMoreThanItSends() throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger fetches = new java.util.concurrent.atomic.AtomicInteger();
        BlockSource memory = TestApps.inMemory(N, 50, BLOCK_SIZE);
        BlockSource counting = TestApps.withFetch(memory, (r, b) -> {
            fetches.incrementAndGet();
            return memory.fetch(r, b);
        });
        Application app = Application.builder("test").blockSource(counting)
                .predictor(ServerPredictor.pointDecaying(N, 100, HORIZONS)).horizons(HORIZONS).waitForState(true).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7).fixedBytesPerSecond(20 * BLOCK_SIZE)
                .application(app).build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        try (TestClient c = TestClient.open(uri, "test", 400)) {
            for (int k = 1; k <= 20; k++) {
                c.sendState(k, "{\"request\": " + (k % 7) + "}");
                int replans = k;
                TestClient.await(() -> server.sessionMetrics().get(0).replans() >= replans, "re-plan " + replans);
                Thread.sleep(60);
            }
            SessionMetrics m = server.sessionMetrics().get(0);
            assertTrue(m.blocksPushed() >= 20, "the session sent blocks: " + m.blocksPushed());
            // At 50 ms a block, the blocks sent within 20 ms plus the re-plan margin (a slot or two) are
            // fetched ahead, and that is what a re-plan may drop: a few per re-plan, not a window of 16.
            assertTrue(fetches.get() <= m.blocksPushed() + 5 * m.replans(),
                    fetches.get() + " fetches for " + m.blocksPushed() + " blocks pushed over " + m.replans() + " re-plans");
        }
    }

}
