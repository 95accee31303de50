package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.server.Plan.Slot;
import dev.khameleon.server.Plan.SlotState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Fetches one session's planned blocks: through the server's {@link FetchQueue} (within the
 * application's backend-concurrency limit and the fetch threads, a fetch of the request the client
 * missed ahead of every speculative one), each with a timeout, and checks what the block source
 * returns before the session may write it. A failed, timed-out or wrong block leaves its slot
 * {@link SlotState#FAILED}; the first failure of a session is logged at WARN, later ones at DEBUG.
 * A fetch its slot no longer needs (dropped by a re-plan or the session's end, or timed out) leaves
 * the queue if it is still waiting, and is cancelled at the source if it started. It owns the
 * timeouts of the fetches it runs.
 *
 * <p><b>Threading.</b> Confined to the session's thread (the {@link Host#loop()}); the block source
 * is called on the fetch executor and its answer comes back on that thread, except for a source
 * that promises completed stages ({@link dev.khameleon.core.spi.BlockSource#fetchesImmediately()}),
 * which is called on the session's thread itself: its block is ready when {@link #start} returns,
 * without the two thread hand-offs.
 */
final class SlotFetcher {
    private static final Logger log = LoggerFactory.getLogger(SlotFetcher.class);
    /** How soon to look again when the backend limit is reached. */
    static final long BACKEND_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How soon to look again when the fetch executor's queue is full. */
    static final long QUEUE_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The weight of the newest fetch in {@link #meanFetchNanos}. */
    private static final double FETCH_EWMA = 0.2;

    /** Where fetches run and come back, and the session's timers. */
    interface Host {
        /**
         * The session's own thread: fetch results are handed back through it. Like an event loop's,
         * it queues a task handed to it from its own thread rather than running it inside the call.
         */
        Executor loop();

        /** Where a source that does not complete at once is called; may reject when its queue is full. */
        Executor fetchExecutor();

        /**
         * Runs {@code task} on the session's thread after {@code delayNanos}.
         *
         * @return cancels the task if it has not run
         */
        Runnable schedule(long delayNanos, Runnable task);
    }

    /** Told how fetches end, on the session's thread. */
    interface Listener {
        /** A fetch ended: with the block if it is usable (the slot still FETCHING), with null if the slot failed. */
        void fetched(Slot s, Block b);

        /** As {@link #fetched}, for a fetch that ended within {@link #start}: the caller is still walking its plan. */
        void fetchedNow(Slot s, Block b);

        /** A fetch could not start now: look again after {@code delayNanos}. */
        void retryIn(long delayNanos);
    }

    private final ServerRuntime.App app;
    private final GuardedBlockSource source;
    private final boolean scoped;
    private final Host host;
    private final long timeoutMillis;
    private final LongSupplier clock;
    private final String sessionId;
    private final Listener listener;
    /** The session's lazily told counts; null when every count of the application is exact. */
    private final LazyCountTable lazyCounts;
    /** The timeouts of the fetches under way, by slot (slots are compared by identity). */
    private final Map<Slot, Runnable> timeouts = new HashMap<>();
    /** The queue tickets of the fetches under way through the fetch queue, by slot. */
    private final Map<Slot, FetchQueue.Ticket> tickets = new HashMap<>();
    private final FetchQueue.Owner queue;
    /** The request the client asked for and did not have, until a block of it is written; -1 if none. */
    private int demanded = -1;
    private boolean failureLogged;
    /** Exponentially weighted mean time from the start of a fetch to its end on the session's thread. */
    private double meanFetchNanos;

    /**
     * @param timeoutMillis how long a fetch may take before its slot fails
     * @param clock         nanoseconds, the session's clock
     * @param sessionId     for logs
     * @param listener      told how each fetch ends
     * @param lazyCounts    the session's lazily told counts, which every fetched block of such a
     *                      request is checked against; null when the application has none
     */
    SlotFetcher(ServerRuntime.App app, Host host, long timeoutMillis, LongSupplier clock, String sessionId,
                Listener listener, LazyCountTable lazyCounts) {
        this.app = app;
        this.source = app.application().guardedSource();
        this.scoped = app.application().guardedScope() != null;
        this.host = host;
        this.timeoutMillis = timeoutMillis;
        this.clock = clock;
        this.sessionId = sessionId;
        this.listener = listener;
        this.lazyCounts = lazyCounts;
        this.queue = app.fetches().owner();
    }

    /**
     * The client asked for {@code requestId} and did not have it: its fetches, waiting or still to
     * come, go ahead of every speculative fetch until {@link #answered} says a block of it was written.
     */
    void demand(int requestId) {
        demanded = requestId;
        queue.promote(requestId);
    }

    /** A block of {@code requestId} was written: a fetch of it is speculative again. */
    void answered(int requestId) {
        if (requestId == demanded) {
            demanded = -1;
        }
    }

    /**
     * The mean time a fetch of this session has taken, from its start to its block being back on the
     * event loop (queueing on the fetch executor included), weighting recent fetches most; 0 before
     * the first fetch that did not complete at once.
     */
    double meanFetchNanos() {
        return meanFetchNanos;
    }

    /**
     * Starts fetching {@code s}, a {@link SlotState#NEW} slot.
     *
     * @return false, leaving the slot new, if the backend limit or the fetch queue does not allow
     *     it now ({@code retryIn} has been told when to look again)
     */
    boolean start(Slot s) {
        if (source.fetchesImmediately()) {
            if (!app.backend().tryBegin(s.requestId, app.application().backendConcurrency())) {
                // Cb distinct requests are being fetched (by any session): look again shortly.
                listener.retryIn(BACKEND_RETRY_NANOS);
                return false;
            }
            s.state = SlotState.FETCHING;
            s.fetchStartNanos = clock.getAsLong();
            fetchOnLoop(s);
            return true;
        }
        FetchQueue.Ticket t = queue.ticket(app.backend(), app.application().backendConcurrency(), s.requestId,
                s.requestId == demanded, host.fetchExecutor(), () -> fetchOffLoop(s),
                () -> backOnLoop(s, null, new RejectedExecutionException("the fetch executor is shut down")));
        // Recorded before it is queued: on caller-runs executors the fetch may end inside enqueue.
        s.state = SlotState.FETCHING;
        s.fetchStartNanos = clock.getAsLong();
        tickets.put(s, t);
        armTimeout(s);
        if (!queue.enqueue(t)) {
            // The shared fetch queue is full: try again shortly rather than queue without bound.
            cancelTimeout(s);
            tickets.remove(s);
            s.state = SlotState.NEW;
            listener.retryIn(QUEUE_RETRY_NANOS);
            return false;
        }
        return true;
    }

    /**
     * {@code s} was dropped while fetching: a waiting fetch leaves the queue, a started one no
     * longer counts against the backend and is cancelled at the source.
     */
    void abandon(Slot s) {
        cancelTimeout(s);
        endFetch(s, true);
    }

    /** The fetch of {@code s} ends; {@code cancel}: its block is not wanted, so a started fetch is cancelled. */
    private void endFetch(Slot s, boolean cancel) {
        FetchQueue.Ticket t = tickets.remove(s);
        boolean started;
        if (t == null) {
            // A fetch on the event loop whose stage was not complete after all.
            app.backend().end(s.requestId);
            started = true;
        } else {
            started = queue.end(t);
        }
        if (started && cancel) {
            source.cancel(s.requestId, s.contentKey, s.blockIndex);
        }
    }

    /**
     * Fetches on the event loop from a source that promised a completed stage. A stage that is not
     * complete after all comes back like one from the executor, under the same timeout.
     */
    private void fetchOnLoop(Slot s) {
        CompletableFuture<Block> stage = source.fetch(s.requestId, s.contentKey, s.blockIndex).toCompletableFuture();
        if (!stage.isDone()) {
            armTimeout(s);
            stage.whenComplete((b, e) -> backOnLoop(s, b, e));
            return;
        }
        Block b = null;
        Throwable error = null;
        try {
            b = stage.getNow(null);
        } catch (CompletionException | CancellationException e) {
            error = e.getCause() != null ? e.getCause() : e;
        }
        app.backend().end(s.requestId);
        Block usable = finish(s, b, error);
        listener.fetchedNow(s, usable);
    }

    private void armTimeout(Slot s) {
        timeouts.put(s, host.schedule(TimeUnit.MILLISECONDS.toNanos(timeoutMillis), () -> timedOut(s)));
    }

    private void timedOut(Slot s) {
        timeouts.remove(s);
        ended(s, null, new TimeoutException("fetch timed out after " + timeoutMillis + " ms"), true);
    }

    /** Runs on the fetch executor. */
    private void fetchOffLoop(Slot s) {
        source.fetch(s.requestId, s.contentKey, s.blockIndex).whenComplete((b, e) -> backOnLoop(s, b, e));
    }

    private void backOnLoop(Slot s, Block b, Throwable e) {
        try {
            host.loop().execute(() -> onFetched(s, b, e));
        } catch (RejectedExecutionException gone) {
            log.debug("session {}: event loop gone before a fetch completed", sessionId);
        }
    }

    private void onFetched(Slot s, Block b, Throwable error) {
        ended(s, b, error, false);
    }

    /** A fetch under way ended with {@code b} or {@code error}; {@code cancel}: the source is still working on it. */
    private void ended(Slot s, Block b, Throwable error, boolean cancel) {
        if (s.state != SlotState.FETCHING) {
            return;
        }
        cancelTimeout(s);
        endFetch(s, cancel);
        long took = clock.getAsLong() - s.fetchStartNanos;
        meanFetchNanos = meanFetchNanos == 0 ? took : meanFetchNanos + FETCH_EWMA * (took - meanFetchNanos);
        listener.fetched(s, finish(s, b, error));
    }

    /** Checks an ended fetch's result: the block if it is usable, or null after marking the slot failed. */
    private Block finish(Slot s, Block b, Throwable error) {
        String problem = error != null ? String.valueOf(error) : check(s, b);
        if (problem != null) {
            s.state = SlotState.FAILED;
            if (!failureLogged) {
                failureLogged = true;
                log.warn("session {}: fetch of block {} of request {} failed, skipping it (further failures of this"
                        + " session are logged at debug): {}", sessionId, s.blockIndex, s.requestId, problem);
            } else {
                log.debug("session {}: fetch of block {} of request {} failed: {}", sessionId, s.blockIndex,
                        s.requestId, problem);
            }
            return null;
        }
        return b;
    }

    private void cancelTimeout(Slot s) {
        Runnable cancel = timeouts.remove(s);
        if (cancel != null) {
            cancel.run();
        }
    }

    /** What is wrong with {@code b} as the block of {@code s}, or null if nothing. */
    private String check(Slot s, Block b) {
        if (b == null) {
            return "the block source returned no block";
        }
        if (b.requestId() != s.requestId || b.index() != s.blockIndex) {
            return "the block source returned " + b + " for block " + s.blockIndex + " of request " + s.requestId;
        }
        if (b.size() != source.blockSize()) {
            return "the block source returned " + b.size() + " bytes, not the block size " + source.blockSize();
        }
        if (lazyCounts != null && app.application().isBlockCountBound(s.requestId)) {
            return lazyCounts.accept(s.requestId, b.count(), source.blockCount(s.requestId));
        }
        if (scoped && b.count() != source.blockCount(s.requestId)) {
            return "the block source returned " + b.count() + " blocks for content " + s.contentKey + " but request "
                    + s.requestId + " has " + source.blockCount(s.requestId);
        }
        return null;
    }
}
