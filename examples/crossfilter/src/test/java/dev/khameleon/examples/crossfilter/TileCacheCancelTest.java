package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TileCache#cancel}: what a cancelled tile's queries do, and which tiles cannot be cancelled. */
@Timeout(120)
class TileCacheCancelTest {
    private static final TileKey A = new TileKey(FlightsViews.DISTANCE, FlightsViews.none().with(FlightsViews.AIR_TIME, 10, 20));
    private static final TileKey B = new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.AIR_TIME, 10, 20));

    @Test
    void cancel_queuedQueriesNeverReachTheBackend_andTheirQueueSlotsFreeAtOnce() throws Exception {
        LatchedBackend backend = new LatchedBackend(false); // the running query goes on until the release
        // One slot, five queued: A's first query runs, its other four wait, one place is left.
        try (TileCache cache = TileCache.create(backend, 1, 16, 5)) {
            CompletableFuture<Tile> a = cache.get(A);
            assertTrue(backend.awaitStarted(1));
            ExecutionException full = assertThrows(ExecutionException.class,
                    () -> cache.get(B).get(30, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, full.getCause(), "B's five do not fit yet");

            assertTrue(cache.cancel(A));
            assertTrue(a.isCancelled(), "completed on the cancelling thread");
            assertThrows(CancellationException.class, () -> a.get(30, TimeUnit.SECONDS));
            assertNull(cache.getIfPresent(A));
            // A's four queued queries left the queue: B's five fit now, while A's first still runs.
            CompletableFuture<Tile> b = cache.get(B);
            assertFalse(b.isCompletedExceptionally(), "B was not refused");
            assertEquals(1, backend.callsOf(A).size());

            backend.release();
            assertEquals(FlightsViews.ARR_TIME, b.get(30, TimeUnit.SECONDS).key().active());
            assertEquals(1, backend.callsOf(A).size(), "A's queued queries never ran");
            assertEquals(5, backend.callsOf(B).size());
            assertFalse(cache.cancel(B), "a computed tile has nothing to cancel");

            // Forgotten, so the next request computes it again.
            assertEquals(FlightsViews.DISTANCE, cache.get(A).get(30, TimeUnit.SECONDS).key().active());
            assertEquals(6, backend.callsOf(A).size());
            assertEquals(4, cache.computations()); // A, the refused B, B, A again
            assertEquals(11, cache.queries(), "A's first, B's five, A's five again: the cancelled queued four never ran");
        }
    }

    @Test
    void cancel_runningQueriesAreCancelledAtTheBackend_freeingTheirSlots() throws Exception {
        LatchedBackend backend = new LatchedBackend(true);
        try (TileCache cache = TileCache.create(backend, 2, 16, 100)) {
            CompletableFuture<Tile> a = cache.get(A);
            assertTrue(backend.awaitStarted(2));
            assertTrue(cache.cancel(A));
            assertTrue(backend.awaitStopped(2), "both running queries were told to stop");
            assertEquals(Set.copyOf(backend.callsOf(A)), Set.copyOf(backend.stopped));
            assertTrue(a.isCancelled());
            assertFalse(cache.cancel(A), "cancelled already");

            // The two slots are free again without any release: B's queries start in them.
            CompletableFuture<Tile> b = cache.get(B);
            assertTrue(backend.awaitStarted(2));
            backend.release();
            b.get(30, TimeUnit.SECONDS);
            assertEquals(2, backend.callsOf(A).size(), "A's three queued queries never ran");
        }
    }

    @Test
    void cancel_neverCancelsAPinnedTile_norOneNotUnderWay() throws Exception {
        LatchedBackend backend = new LatchedBackend(true);
        try (TileCache cache = TileCache.create(backend, 5, 16, 100)) {
            assertFalse(cache.cancel(A), "never requested");
            CompletableFuture<Tile> pinned = cache.pin(A);
            assertTrue(backend.awaitStarted(5));
            assertFalse(cache.cancel(A), "pinned");
            assertFalse(pinned.isDone());
            backend.release();
            assertEquals(FlightsViews.DISTANCE, pinned.get(30, TimeUnit.SECONDS).key().active());
            assertTrue(backend.stopped.isEmpty());
            assertEquals(1, cache.computations());
        }
    }

    @Test
    void cancel_findsATileEvictedWhileUnderWay_andARequestJoinsItInsteadOfComputingItTwice() throws Exception {
        LatchedBackend backend = new LatchedBackend(true);
        try (TileCache cache = TileCache.create(backend, 10, 1, 100)) {
            CompletableFuture<Tile> a = cache.get(A);
            cache.get(B); // evicts A from the tiles kept, not from the computations under way
            assertTrue(backend.awaitStarted(10));
            assertSame(a, cache.get(A), "joined, not computed again");
            assertEquals(2, cache.computations());
            assertTrue(cache.cancel(A));
            assertTrue(a.isCancelled());
            assertTrue(backend.awaitStopped(5));
            backend.release();
        }
    }
}
