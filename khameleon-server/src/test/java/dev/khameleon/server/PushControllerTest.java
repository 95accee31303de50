package dev.khameleon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.LazyCountBlockSource;
import dev.khameleon.server.SessionScheduler.Job;
import dev.khameleon.testing.LogCapture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The push policy in memory: {@link PushController} on a fake clock, with a port that records its
 * decisions and runs scheduler jobs only when a test says so. No channel, thread or socket.
 */
class PushControllerTest {
    private static final int N = 50;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 1000;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A session on a fake clock, with the port's decisions in plain lists. */
    private static final class Harness implements PushPort {
        long now;
        final ArrayDeque<Job> jobs = new ArrayDeque<>();
        final List<Long> orders = new ArrayList<>();
        final List<Long> written = new ArrayList<>();
        final List<Long> writtenAt = new ArrayList<>();
        final List<Integer> writtenIds = new ArrayList<>();
        long wakeAt = Long.MAX_VALUE;
        boolean writable = true;
        int blocked;
        boolean withdrawable;
        ErrorCode closedWith;
        String closeMessage;
        final SessionScheduler scheduler;
        final SessionCounters counters;
        final PushController controller;

        Harness(Application app, Consumer<KhameleonServer.Builder> settings) {
            this(app, settings, 100, 7);
        }

        Harness(Application app, Consumer<KhameleonServer.Builder> settings, int cacheBlocks, long seed) {
            KhameleonServer.Builder b = KhameleonServer.builder().application(app).clock(() -> now).seed(seed);
            settings.accept(b);
            ServerRuntime rt = b.build().runtime();
            ServerRuntime.App a = rt.appAt(app.path());
            scheduler = new SessionScheduler(rt, a, "test", cacheBlocks);
            counters = new SessionCounters(rt);
            controller = new PushController("test", a, rt.config, counters, cacheBlocks, this);
        }

        /** Runs the oldest submitted job now and applies its result. */
        void runJob() {
            Job j = jobs.pollFirst();
            assertNotNull(j, "a job was submitted");
            controller.onResult(scheduler.run(j));
        }

        /** Runs time forward to {@code t} in 10 µs steps, firing wakes and running every job submitted. */
        void runUntil(long t) {
            for (long u = now; u <= t; u += 10_000) {
                advanceTo(u);
                while (!jobs.isEmpty()) {
                    runJob();
                }
            }
        }

        /** The states of the jobs waiting, by their cell; a job without a state shows as -1. */
        List<Integer> queuedStates() {
            List<Integer> cells = new ArrayList<>();
            for (Job j : jobs) {
                cells.add(j.state() == null ? -1 : j.state().tree().get("cell").asInt());
            }
            return cells;
        }

        /** Moves the clock to {@code t} and fires the wake if it is due by then. */
        void advanceTo(long t) {
            now = t;
            if (wakeAt <= now) {
                wakeAt = Long.MAX_VALUE;
                controller.onWake();
            }
        }

        @Override
        public boolean submit(Job job, boolean replan, long order) {
            jobs.addLast(job);
            orders.add(order);
            return true;
        }

        @Override
        public long withdraw() {
            if (!withdrawable || jobs.isEmpty()) {
                return PushPort.NOT_WITHDRAWN;
            }
            jobs.pollLast();
            return 42;
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public void write(long seq, Block block, int generation) {
            written.add(seq);
            writtenAt.add(now);
            writtenIds.add(block.requestId());
        }

        @Override
        public void writeControl(List<String> messages) {
        }

        @Override
        public void flush() {
        }

        @Override
        public void blocked() {
            blocked++;
        }

        @Override
        public void wakeAt(long atNanos) {
            wakeAt = Math.min(wakeAt, atNanos);
        }

        @Override
        public void close(ErrorCode code, String message) {
            closedWith = code;
            closeMessage = message;
            controller.stop();
        }

        @Override
        public Executor loop() {
            return Runnable::run;
        }

        @Override
        public Executor fetchExecutor() {
            return Runnable::run;
        }

        @Override
        public Runnable schedule(long delayNanos, Runnable task) {
            return () -> { };
        }
    }

    /** States name the one request they put all mass on: {@code {"cell": k}}. */
    private static final ServerPredictor CELL = state -> Distribution.point(N, state.get("cell").asInt(),
            50, 150, 250, 500);

    private static JsonNode cell(int k) {
        return JsonNodeFactory.instance.objectNode().put("cell", k);
    }

    /** An application that waits for the client's first state (no initial distribution). */
    private static Application app(BlockSource source) {
        return Application.builder("push").path("/push").blockSource(source).predictor(CELL).waitForState(true)
                .build();
    }

    private static Harness fast() {
        // A fixed rate of 100 MB/s: one 1 KB frame takes about 10 µs, so pacing never holds a test back.
        return new Harness(app(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE)), b -> b.fixedBytesPerSecond(100e6)
                .maxBytesPerSecond(100e6));
    }

    @Test
    void aState_isPlannedByOneJob_andItsBlocksAreWrittenInRingOrder() {
        Harness h = fast();
        h.controller.start();
        assertTrue(h.jobs.isEmpty(), "no distribution yet: nothing to plan");
        h.controller.onState(0, cell(7));
        assertEquals(1, h.jobs.size());
        Job j = h.jobs.peekFirst();
        assertEquals(0, j.replanFrom(), "the first state re-plans from the sender's position");
        assertNotNull(j.state());
        h.runJob();
        h.runUntil(MS);
        assertEquals(List.of(0L, 1L, 2L, 3L), h.written.subList(0, 4), "sequence numbers in ring order");
        assertEquals(List.of(7, 7, 7, 7), h.writtenIds.subList(0, 4), "all mass on cell 7: its 4 blocks first");
    }

    @Test
    void statesFasterThanTheStateInterval_areMerged_theNewestWins() {
        Harness h = fast();
        h.controller.start();
        h.controller.onState(0, cell(1));
        h.runUntil(MS);
        int before = h.written.size();
        h.now = 2 * MS;
        h.controller.onState(2, cell(2));
        h.now = 3 * MS;
        h.controller.onState(3, cell(3));
        assertFalse(h.queuedStates().contains(2) || h.queuedStates().contains(3),
                "within 10 ms of the last re-plan: no job for either state yet");
        assertTrue(h.wakeAt <= 10 * MS, "woken by the time the state interval has passed");
        h.advanceTo(10 * MS);
        assertEquals(List.of(3), h.queuedStates(), "one re-plan for both states, with the newest");
        h.runUntil(11 * MS);
        assertTrue(h.written.size() > before);
        assertEquals(3, (int) h.writtenIds.get(h.writtenIds.size() - 1));
    }

    @Test
    void aSessionWhoseStatesCostMuchToPlan_reSplansLessOften_itsStatesMerged() {
        Harness[] h = new Harness[1];
        // Decoding takes 20 ms of the scheduler thread: at the default share (0.1) the session's
        // next re-plan may start 200 ms after this one started.
        ServerPredictor costly = state -> {
            h[0].now += 20 * MS;
            return CELL.decode(state);
        };
        h[0] = new Harness(Application.builder("push").path("/push").blockSource(TestApps.inMemory(N, BLOCKS,
                BLOCK_SIZE)).predictor(costly).waitForState(true).build(),
                b -> b.fixedBytesPerSecond(100e6).maxBytesPerSecond(100e6));
        Harness x = h[0];
        x.controller.start();
        x.controller.onState(0, cell(1));
        x.runJob();
        x.now = 50 * MS;
        x.controller.onState(50, cell(2));
        x.now = 100 * MS;
        x.controller.onState(100, cell(3));
        x.runUntil(199 * MS);
        assertFalse(x.writtenIds.contains(2) || x.writtenIds.contains(3), "no re-plan within 200 ms of the last");
        x.runUntil(225 * MS);
        assertTrue(x.writtenIds.contains(3), "one re-plan at 200 ms, for the newest state");
        assertFalse(x.writtenIds.contains(2), "the older state was merged into it");
    }

    @Test
    void aQueuedJob_isWithdrawnForANewerState_whichKeepsItsQueueTurn() {
        Harness h = fast();
        h.withdrawable = true;
        h.controller.start();
        h.controller.onState(0, cell(1));
        assertEquals(1, h.jobs.size());
        // The job has not started; a newer state arrives after the state interval.
        h.now = 20 * MS;
        h.controller.onState(20, cell(2));
        assertEquals(1, h.jobs.size(), "the queued job was replaced, not joined");
        assertEquals(2, h.jobs.peekFirst().state().tree().get("cell").asInt());
        assertEquals(42L, h.orders.get(h.orders.size() - 1), "the withdrawn re-plan's turn passed on");
    }

    @Test
    void aJobThatStarted_isNotWithdrawn_andTheNewStateWaitsForIt() {
        Harness h = fast();
        h.controller.start();
        h.controller.onState(0, cell(1));
        h.now = 20 * MS;
        h.controller.onState(20, cell(2));
        assertEquals(1, h.jobs.size(), "one job at a time");
        h.runJob();
        assertEquals(1, h.jobs.size(), "the pending state's re-plan follows the running job");
        assertEquals(2, h.jobs.peekFirst().state().tree().get("cell").asInt());
    }

    @Test
    void theSender_waitsWhileTheChannelIsNotWritable_andGoesOnWhenItIs() {
        Harness h = fast();
        h.writable = false;
        h.controller.start();
        h.controller.onState(0, cell(5));
        h.runJob();
        assertTrue(h.written.isEmpty());
        assertTrue(h.blocked > 0, "the port was told the sender waits");
        h.writable = true;
        h.controller.onWritable();
        assertFalse(h.written.isEmpty());
        assertEquals(0L, h.written.get(0));
    }

    @Test
    void thePace_followsTheRateReports_andHoldsWritesToIt() {
        // Estimate from reports: 1 MB/s; pace 1.25 MB/s, a 1 KB block frame every ~0.8 ms. The
        // application's initial (uniform) distribution has 200 blocks to send, more than 100 ms' worth.
        Application uniform = Application.builder("push").path("/push")
                .blockSource(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE)).predictor(CELL).build();
        Harness h = new Harness(uniform, b -> { });
        for (int i = 0; i < 5; i++) {
            h.controller.onRate(new dev.khameleon.core.protocol.ControlMessage.RateReport(0, 1e6));
        }
        h.controller.start();
        h.runJob();
        for (long t = 0; t <= 100 * MS; t += MS / 10) {
            h.advanceTo(t);
            while (!h.jobs.isEmpty()) {
                h.runJob();
            }
        }
        double pace = 1.25e6;
        double frame = h.controller.frameBytes();
        // Over the first 100 ms at most the burst, the credit of one re-plan and the rate's worth.
        double allowed = Pacer.burstBytes(pace, h.controller.minBurstBytes())
                + (PushController.MAX_REPLAN_MARGIN + 1) * frame + pace * 0.1;
        double sent = h.written.size() * frame;
        assertTrue(sent <= allowed + frame, sent + " bytes sent, at most " + allowed + " allowed");
        assertTrue(sent >= pace * 0.1 * 0.8, sent + " bytes sent: the pace is kept, not just bounded");
    }

    /**
     * On a frozen clock the pacer never earns a token after its initial burst of two frames, so
     * every later block can only be one a state's plan takes on credit: the state's first block goes
     * out at once, and no old block is let out before it.
     */
    @Test
    void aStatesFirstBlock_isWrittenAtOnce_evenWhenThePacerHasNoTokens() {
        Application app = Application.builder("push").path("/push").blockSource(TestApps.inMemory(N, BLOCKS,
                BLOCK_SIZE)).predictor(CELL).build();
        // 1 MB/s: a slot of about 1 ms, so the whole plan lies within the forecast's horizons.
        Harness h = new Harness(app, b -> b.fixedBytesPerSecond(1e6).pacingGain(1).stateInterval(Duration.ZERO));
        h.controller.start();
        h.runJob();
        assertEquals(List.of(0L, 1L), h.written, "the pacer's initial burst");
        int[] requests = {17, 23, 42};
        for (int k = 0; k < requests.length; k++) {
            h.controller.onState(k + 1, cell(requests[k]));
            h.runJob();
            assertEquals(3 + k, h.written.size(), "one block on credit for state " + k);
            assertEquals(2L + k, (long) h.written.get(2 + k), "no old block is let out first");
            assertEquals(requests[k], (int) h.writtenIds.get(2 + k), "the state's request comes first: " + h.writtenIds);
            while (!h.jobs.isEmpty()) {
                h.runJob();
            }
        }
        assertEquals(requests.length, h.counters.replans() - 1, "one re-plan per state, after the first plan");
    }

    @Test
    void aFailedFetch_isSkipped_andReplannedAfterTheBackOff() {
        BlockSource failing = TestApps.withFetch(TestApps.inMemory(N, BLOCKS, BLOCK_SIZE),
                (id, index) -> CompletableFuture.failedFuture(new IllegalStateException("unavailable")), true);
        Harness h = new Harness(app(failing), b -> b.fixedBytesPerSecond(100e6).maxBytesPerSecond(100e6));
        h.controller.start();
        h.controller.onState(0, cell(1));
        try (LogCapture warnings = LogCapture.warnings(SlotFetcher.class, "failed, skipping it")) {
            h.runJob();
            List<String> logged = warnings.messages();
            assertEquals(1, logged.size(), "the session's first failure is a warning: " + logged);
            assertTrue(logged.get(0).contains("fetch of block 0 of request 1 failed, skipping it")
                    && logged.get(0).endsWith("IllegalStateException: unavailable"), logged.get(0));
        }
        assertTrue(h.written.isEmpty(), "nothing fetched, nothing written");
        assertTrue(h.jobs.isEmpty(), "the retry waits for its back-off");
        assertEquals(Plan.MIN_BACKOFF_NANOS, h.wakeAt);
        h.advanceTo(Plan.MIN_BACKOFF_NANOS);
        assertEquals(1, h.jobs.size(), "a retry from the skipped slot");
        assertEquals(0, h.jobs.peekFirst().replanFrom(), "the skipped slot's sequence number is reused");
        assertNull(h.closedWith, "a failing block is never fatal");
    }

    /**
     * Regression for "fromSeq 34 out of range [128, 200]": with a cache smaller than the chunk size,
     * the session let the scheduler plan two chunks ahead of the sender, more than the {@code C}
     * slots the scheduler can re-plan, so the next state or failed fetch asked for an impossible
     * re-plan. A recording scheduler checks every call the controller makes; states come every
     * third block, and every fetch of a request {@code ≡ 5 (mod 10)} fails.
     */
    @ParameterizedTest(name = "C {0}, chunk {1}, seed {2}")
    @CsvSource({"64, 100, 1", "64, 100, 2", "16, 100, 3", "1, 7, 4", "500, 100, 5"})
    void replan_smallCacheLargeChunkFastStatesAndFailedFetches_neverAsksForAnImpossibleReplan(
            int cacheBlocks, int chunkSize, long seed) {
        List<String> violations = new ArrayList<>();
        int n = 200; // 800 blocks, more than the largest ring: the push never runs out of blocks
        BlockSource healthy = TestApps.inMemory(n, BLOCKS, BLOCK_SIZE);
        BlockSource failingFives = TestApps.withFetch(healthy, (id, index) -> id % 10 == 5
                ? CompletableFuture.failedFuture(new IllegalStateException("unavailable")) : healthy.fetch(id, index),
                true);
        Application app = Application.builder("push").path("/push").blockSource(failingFives)
                .predictor(ServerPredictor.pointDecaying(n, 100, 50, 150, 250, 500)).chunkSize(chunkSize)
                .scheduler(c -> new RecordingScheduler(Schedulers.greedy(DefaultScheduler.config(c)), violations))
                .build();
        Harness h = new Harness(app, b -> b.fixedBytesPerSecond(5e6), cacheBlocks, seed);
        SplittableRandom random = new SplittableRandom(seed);
        h.controller.start();
        long time = 0;
        int states = 0;
        try (LogCapture warnings = LogCapture.warnings(SlotFetcher.class, "failed, skipping it")) {
            while (h.written.size() < 600 && h.now < 10_000 * MS) {
                if (h.written.size() >= 3 * states) {
                    int request = random.nextInt(n);
                    // States point at healthy requests; failures come from the decayed, spread mass.
                    h.controller.onState(++time, JsonNodeFactory.instance.objectNode()
                            .put("request", request % 10 == 5 ? request + 1 : request));
                    states++;
                }
                h.runUntil(h.now + MS);
            }
            // Of the many failed fetches, the session's first is a warning and the rest are debug.
            assertEquals(1, warnings.messages().size(), "one warning per session: " + warnings.messages());
            assertTrue(warnings.messages().get(0).contains("failed, skipping it"), warnings.messages().get(0));
        }
        assertTrue(h.written.size() >= 600, "the push went on: " + h.written.size() + " blocks");
        for (int k = 0; k < h.written.size(); k++) {
            assertEquals(k, (long) h.written.get(k), "sequence numbers stay consecutive");
            assertTrue(h.writtenIds.get(k) % 10 != 5, "a failed block was written at " + k);
        }
        assertEquals(List.of(), violations, "re-plans the scheduler cannot do");
        assertTrue(h.counters.replans() > 1, "states were re-planned: " + h.counters.replans());
        assertTrue(h.counters.blocksSkipped() > 0, "failed fetches were skipped");
        assertNull(h.closedWith, h.closeMessage);
    }

    @Test
    void aScope_onAnApplicationWithoutOne_closesTheSession() {
        Harness h = fast();
        h.controller.start();
        h.controller.onScope(JsonNodeFactory.instance.objectNode());
        assertEquals(ErrorCode.UNKNOWN_TYPE, h.closedWith);
    }

    @Test
    void aRequestOutOfRange_closesTheSession_withTheRange() {
        Harness h = fast();
        h.controller.start();
        h.controller.onRequest(0, N, false);
        assertEquals(ErrorCode.INVALID_MESSAGE, h.closedWith);
        assertEquals("request 50 out of range [0, 50)", h.closeMessage);
    }

    @Test
    void aStateBeforeStart_waitsForStart_withoutAJob() {
        Harness h = fast();
        h.controller.onState(0, cell(4));
        assertTrue(h.jobs.isEmpty(), "not started: the state is held");
        h.controller.start();
        assertEquals(1, h.jobs.size());
        assertEquals(4, h.jobs.peekFirst().state().tree().get("cell").asInt());
    }

    @Test
    void lazilyCountedRequests_neverGetABlockPastTheCountTheirFirstBlockTold() {
        // Bound 4, exact counts 1..4 by request: the plan is made on the bound; the first block of
        // each request tells its count, and nothing past it is fetched or written.
        int bound = 4;
        LazyCountBlockSource source = new LazyCountBlockSource(N, bound, BLOCK_SIZE, id -> 1 + id % bound, true);
        Application lazy = Application.builder("push").path("/push").blockSource(source).build();
        Harness h = new Harness(lazy, b -> b.fixedBytesPerSecond(100e6).maxBytesPerSecond(100e6));
        h.controller.start();
        h.runUntil(20 * MS);
        assertTrue(h.written.size() > N, "the uniform plan was pushed: " + h.written.size() + " blocks");
        for (int k = 0; k < h.written.size(); k++) {
            assertEquals(k, (long) h.written.get(k), "consecutive sequence numbers");
        }
        assertEquals(0, source.fetchesPastTheEnd(), "no block past a response's end was asked for");
        assertNull(h.closedWith);
    }

    @Test
    void stop_dropsThePlan_andNothingIsWrittenAfterwards() {
        Harness h = fast();
        h.writable = false;
        h.controller.start();
        h.controller.onState(0, cell(1));
        h.runJob();
        h.controller.stop();
        h.writable = true;
        h.controller.onWritable();
        h.controller.onState(50, cell(2));
        h.runUntil(2 * MS);
        assertTrue(h.written.isEmpty());
        assertFalse(h.queuedStates().contains(2));
    }
}
