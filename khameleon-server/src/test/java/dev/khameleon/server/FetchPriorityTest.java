package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.SessionScheduler.Job;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sessions' fetches as they reach a slow backend: a miss goes ahead of other sessions'
 * speculation, and a fetch a session no longer wants is cancelled at the source, or never reaches
 * it. Several {@link PushController}s share one server runtime and a source whose fetches the test
 * completes by hand; no thread or socket.
 */
class FetchPriorityTest {
    private static final int N = 20;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 1000;

    /** A source whose fetches wait until the test completes them; records fetches and cancels. */
    private static final class SlowSource implements BlockSource {
        final Map<String, CompletableFuture<Block>> pending = new LinkedHashMap<>();
        /** The fetches the source was called for, as "id:index", in order. */
        final List<String> fetched = new ArrayList<>();
        final List<String> cancelled = new ArrayList<>();
        /** Whether fetches come back complete, yet not promised to ({@code fetchesImmediately} stays false). */
        boolean atOnce;

        @Override
        public int requestCount() {
            return N;
        }

        @Override
        public int blockSize() {
            return BLOCK_SIZE;
        }

        @Override
        public int blockCount(int requestId) {
            return BLOCKS;
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            fetched.add(requestId + ":" + blockIndex);
            if (atOnce) {
                return CompletableFuture.completedFuture(TestApps.block(requestId, blockIndex, BLOCKS, BLOCK_SIZE));
            }
            CompletableFuture<Block> f = new CompletableFuture<>();
            pending.put(requestId + ":" + blockIndex, f);
            return f;
        }

        @Override
        public void cancel(int requestId, long contentKey, int blockIndex) {
            cancelled.add(requestId + ":" + blockIndex);
        }

        /** Completes every pending fetch of {@code requestId}. */
        void complete(int requestId) {
            List<String> keys = pending.keySet().stream().filter(k -> k.startsWith(requestId + ":")).toList();
            for (String k : keys) {
                int index = Integer.parseInt(k.substring(k.indexOf(':') + 1));
                pending.remove(k).complete(TestApps.block(requestId, index, BLOCKS, BLOCK_SIZE));
            }
        }

        /** The started fetches of {@code requestId} not completed, as "id:index". */
        List<String> pendingOf(int requestId) {
            return pending.entrySet().stream().filter(e -> e.getKey().startsWith(requestId + ":")
                    && !e.getValue().isDone()).map(Map.Entry::getKey).toList();
        }
    }

    /** States name the one request they put all mass on: {@code {"cell": k}}. */
    private static final ServerPredictor CELL = state -> Distribution.point(N, state.get("cell").asInt(),
            50, 150, 250, 500);

    private static JsonNode cell(int k) {
        return JsonNodeFactory.instance.objectNode().put("cell", k);
    }

    private final SlowSource source = new SlowSource();
    /** The server's clock: each state comes a second after the last, past the state interval. */
    private long now;
    /** One fetch thread, run by hand: a call handed to it has not begun until {@link #runCalls}. */
    private final ArrayDeque<Runnable> fetchThread = new ArrayDeque<>();
    private final ServerRuntime runtime = KhameleonServer.builder()
            .application(Application.builder("slow").path("/slow").blockSource(source).predictor(CELL)
                    .waitForState(true).build())
            .fetchThreads(1).clock(() -> now).fixedBytesPerSecond(100e6).maxBytesPerSecond(100e6).seed(3).build()
            .runtime();

    /** Lets the fetch thread make every call handed to it, and those that follow, in order. */
    private void runCalls() {
        for (Runnable r = fetchThread.poll(); r != null; r = fetchThread.poll()) {
            r.run();
        }
    }

    /** Where the source was first called for a block of {@code requestId}; -1 if never. */
    private int firstCall(int requestId) {
        for (int i = 0; i < source.fetched.size(); i++) {
            if (source.fetched.get(i).startsWith(requestId + ":")) {
                return i;
            }
        }
        return -1;
    }

    /** Where the source was last called for a block of {@code requestId}; -1 if never. */
    private int lastCall(int requestId) {
        for (int i = source.fetched.size() - 1; i >= 0; i--) {
            if (source.fetched.get(i).startsWith(requestId + ":")) {
                return i;
            }
        }
        return -1;
    }

    /** One session; runs its scheduler jobs at once, on the test's thread. */
    private final class Client implements PushPort {
        final ArrayDeque<Job> jobs = new ArrayDeque<>();
        final List<Integer> writtenIds = new ArrayList<>();
        final SessionScheduler scheduler;
        final PushController controller;
        ErrorCode closedWith;
        private final Executor fetches;

        Client(String id) {
            this(id, 100);
        }

        /** The session's loop when it queues its tasks, as an event loop does; null: it runs them at once. */
        private final ArrayDeque<Runnable> loopTasks;

        Client(String id, int cacheBlocks) {
            this(id, cacheBlocks, fetchThread::add, false);
        }

        Client(String id, int cacheBlocks, Executor fetches, boolean queuedLoop) {
            this.fetches = fetches;
            this.loopTasks = queuedLoop ? new ArrayDeque<>() : null;
            ServerRuntime.App app = runtime.appAt("/slow");
            scheduler = new SessionScheduler(runtime, app, id, cacheBlocks);
            controller = new PushController(id, app, runtime.config, new SessionCounters(runtime), cacheBlocks, this);
            controller.start();
        }

        void state(int k) {
            now += 1_000_000_000L;
            controller.onState(now / 1_000_000, cell(k));
            while (!jobs.isEmpty() || loopTasks != null && !loopTasks.isEmpty()) {
                Job job = jobs.pollFirst();
                if (job != null) {
                    controller.onResult(scheduler.run(job));
                } else {
                    loopTasks.pollFirst().run();
                }
            }
        }

        @Override
        public boolean submit(Job job, boolean replan, long order) {
            jobs.addLast(job);
            return true;
        }

        @Override
        public long withdraw() {
            return PushPort.NOT_WITHDRAWN;
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void write(long seq, Block block, int generation) {
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
        }

        @Override
        public void wakeAt(long atNanos) {
        }

        @Override
        public void close(ErrorCode code, String message) {
            closedWith = code;
            controller.stop();
        }

        @Override
        public Executor loop() {
            return loopTasks != null ? loopTasks::add : Runnable::run;
        }

        @Override
        public Executor fetchExecutor() {
            return fetches;
        }

        @Override
        public Runnable schedule(long delayNanos, Runnable task) {
            return () -> { };
        }
    }

    @Test
    void aFetchThatEndsOnTheFetchersOwnThread_onACallerRunsExecutor_isWritten_andFreesTheBackend() {
        source.atOnce = true; // as the simulator's sessions fetch: the call returns a completed stage
        Client c = new Client("inline", 100, Runnable::run, true);
        c.state(1);
        assertEquals(BLOCKS, c.writtenIds.stream().filter(id -> id == 1).count(),
                "every block of the planned request was written: " + c.writtenIds + ", fetched " + source.fetched);
        assertEquals(0, runtime.appAt("/slow").backend().inFlight(), "no fetch is left counted against the backend");
    }

    @Test
    void aMissIsFetchedAheadOfSpeculationThatWaitedLonger() {
        Client busy = new Client("busy");
        Client speculating = new Client("speculating");
        Client missing = new Client("missing");
        busy.state(1); // its first fetch takes the one fetch thread
        speculating.state(2);
        missing.state(3);
        missing.controller.onRequest(0, 3, true); // its waiting fetches are promoted
        runCalls();
        assertEquals("1:0", source.fetched.get(0));
        assertEquals(1, firstCall(3), "the miss came next: " + source.fetched);
        assertTrue(lastCall(3) < firstCall(2), "every fetch of the miss before the speculation queued earlier: "
                + source.fetched);
        source.complete(3);
        assertTrue(missing.writtenIds.contains(3), "the missed request was written");
    }

    @Test
    void aMissSaidBeforeItsPlanMakesThePlannedFetchesDemandFetches() {
        Client busy = new Client("busy");
        Client speculating = new Client("speculating");
        Client missing = new Client("missing");
        busy.state(1);
        speculating.state(2);
        missing.controller.onRequest(0, 3, true);
        missing.state(3);
        runCalls();
        assertEquals(1, firstCall(3), source.fetched.toString());
        assertTrue(lastCall(3) < firstCall(2), source.fetched.toString());
    }

    @Test
    void aHitIsNoDemand_speculationKeepsItsTurn() {
        Client busy = new Client("busy");
        Client speculating = new Client("speculating");
        Client hitting = new Client("hitting");
        busy.state(1);
        speculating.state(2);
        hitting.state(3);
        hitting.controller.onRequest(0, 3, false);
        runCalls();
        assertTrue(firstCall(2) < firstCall(3), "sessions take turns in the order they queued: " + source.fetched);
    }

    @Test
    void aDemandEndsWhenABlockOfTheRequestIsWritten() {
        Client busy = new Client("busy");
        Client other = new Client("other");
        Client missing = new Client("missing", BLOCKS); // a ring of one response
        missing.controller.onRequest(0, 3, true);
        missing.state(3);
        runCalls();
        source.complete(3);
        assertTrue(missing.writtenIds.contains(3), "the miss was answered");
        missing.state(4); // overwrites the ring: request 3 will be planned again
        runCalls();
        source.complete(4);
        source.fetched.clear();
        busy.state(1);
        other.state(2);
        missing.state(3); // the same request again, now answered: speculative, it waits its turn
        runCalls();
        assertTrue(firstCall(2) < firstCall(3), "no demand is left to jump the queue: " + source.fetched);
    }

    @Test
    void aReplanCancelsTheStartedFetchesItDrops_andTheNewPlansFetchesGoOn() {
        Client c = new Client("replanning");
        c.state(1);
        runCalls();
        Set<String> started = Set.copyOf(source.pendingOf(1));
        assertFalse(started.isEmpty());
        c.state(2);
        assertEquals(started, Set.copyOf(source.cancelled), "every started fetch of the dropped plan was cancelled");
        runCalls();
        assertTrue(firstCall(2) >= 0, "the new plan's request was fetched: " + source.fetched);
    }

    @Test
    void theSessionsEnd_cancelsItsCalledFetches_andItsQueuedOnesNeverReachTheSource() {
        Client busy = new Client("busy");
        Client waiting = new Client("waiting");
        busy.state(1);
        waiting.state(2); // waits for the fetch thread
        waiting.controller.stop();
        runCalls();
        assertEquals(-1, firstCall(2), "the ended session's queued fetches were dropped: " + source.fetched);
        Set<String> started = Set.copyOf(source.pendingOf(1));
        busy.controller.stop();
        assertEquals(started, Set.copyOf(source.cancelled));
        assertEquals(0, runtime.fetchQueue.waiting());
        assertEquals(0, runtime.appAt("/slow").backend().inFlight(), "no fetch counts against the backend");
    }

    @Test
    void aFetchEndedBeforeItsCallBegan_neverReachesTheSource_andIsNotCancelledThere() {
        Client c = new Client("quick");
        c.state(1); // 1:0 handed to the fetch thread, not yet called
        c.controller.stop();
        runCalls();
        assertEquals(List.of(), source.fetched);
        assertEquals(List.of(), source.cancelled);
        assertEquals(0, runtime.appAt("/slow").backend().inFlight());
    }
}
