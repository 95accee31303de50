package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TileBlockSource#cancel}: a tile's computation stops only when every fetch waiting for it
 * was cancelled, never for a pinned tile, and a cancelled tile is computed again by a later fetch.
 */
@Timeout(120)
class TileBlockSourceTest {
    private static final TileKey KEY = new TileKey(FlightsViews.DISTANCE, FlightsViews.none().with(FlightsViews.AIR_TIME, 10, 20));
    private static final int REQUEST = FlightsViews.DISTANCE.index();

    private LatchedBackend backend;
    private TileCache cache;
    private TileBlockSource source;
    private long contentKey;

    @BeforeEach
    void start() {
        backend = new LatchedBackend(true);
        cache = TileCache.create(backend, 5, 16, 100_000); // a tile's five queries run at once
        ContentKeys keys = new ContentKeys(FlightsViews.VIEWS, 16);
        contentKey = keys.register(KEY);
        // Encoding on the thread that completes the tile: nothing to wait for but the queries.
        source = new TileBlockSource(cache, TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE), keys,
                Runnable::run, 4);
    }

    @AfterEach
    void stop() {
        backend.release();
        cache.close();
    }

    private CompletableFuture<Block> fetch(long key, int block) {
        return source.fetch(REQUEST, key, block).toCompletableFuture();
    }

    @Test
    void oneOfTwoFetchesCancelled_theComputationGoesOn() throws Exception {
        CompletableFuture<Block> first = fetch(contentKey, 0);
        CompletableFuture<Block> second = fetch(contentKey, 1);
        assertEquals(2, source.waiting(KEY));
        assertTrue(backend.awaitStarted(5));

        source.cancel(REQUEST, contentKey, 0);
        assertEquals(1, source.waiting(KEY));
        // A cancellation completes the tile's fetches on the cancelling thread: not done means not cancelled.
        assertFalse(second.isDone());
        assertTrue(backend.stopped.isEmpty());

        backend.release();
        Block b = second.get(30, TimeUnit.SECONDS);
        assertEquals(1, b.index());
        assertEquals(REQUEST, b.requestId());
        assertEquals(0, source.waiting(KEY), "the tile's end clears its count");
        assertEquals(1, cache.computations());
        assertEquals(0, first.get(30, TimeUnit.SECONDS).index(), "a cancelled fetch's stage may still complete");
    }

    @Test
    void everyFetchCancelled_theComputationIsCancelled_andALaterFetchComputesTheTileAgain() throws Exception {
        // Two sessions fetch the same block of the tile.
        CompletableFuture<Block> first = fetch(contentKey, 0);
        CompletableFuture<Block> second = fetch(contentKey, 0);
        assertTrue(backend.awaitStarted(5));

        source.cancel(REQUEST, contentKey, 0);
        assertFalse(second.isDone(), "one fetch still waits");
        source.cancel(REQUEST, contentKey, 0);
        for (CompletableFuture<Block> f : List.of(first, second)) {
            assertTrue(f.isDone());
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
            assertInstanceOf(CancellationException.class, e.getCause());
        }
        assertTrue(backend.awaitStopped(5), "the five running slice queries were cancelled at the backend");
        assertNull(cache.getIfPresent(KEY));
        assertEquals(0, source.waiting(KEY));
        source.cancel(REQUEST, contentKey, 0); // one too many: nothing waits, nothing happens

        CompletableFuture<Block> later = fetch(contentKey, 2);
        assertTrue(backend.awaitStarted(5));
        backend.release();
        assertEquals(2, later.get(30, TimeUnit.SECONDS).index());
        assertEquals(2, cache.computations());
        assertEquals(10, backend.callsOf(KEY).size());
    }

    @Test
    void aPinnedTileIsNeverCancelled() throws Exception {
        TileKey unfiltered = new TileKey(FlightsViews.DISTANCE, FlightsViews.none());
        long key = REQUEST; // an unfiltered tile's content key is its view's request id
        cache.pin(unfiltered);
        CompletableFuture<Block> f = fetch(key, 0);
        assertTrue(backend.awaitStarted(5));
        source.cancel(REQUEST, key, 0);
        assertEquals(0, source.waiting(unfiltered));
        assertFalse(f.isDone());

        backend.release();
        assertEquals(0, f.get(30, TimeUnit.SECONDS).index());
        assertTrue(backend.stopped.isEmpty());
        assertTrue(fetch(key, 3).isDone(), "answered from the blocks kept encoded");
        assertEquals(1, cache.computations());
    }

    @Test
    void aCancelAfterTheTileEnded_isIgnored_andAFetchOfEncodedBlocksIsNotCounted() throws Exception {
        backend.release();
        assertEquals(0, fetch(contentKey, 0).get(30, TimeUnit.SECONDS).index());
        source.cancel(REQUEST, contentKey, 0);
        CompletableFuture<Block> again = fetch(contentKey, 0);
        assertTrue(again.isDone());
        assertEquals(0, source.waiting(KEY));
        source.cancel(REQUEST, contentKey, 0);
        assertEquals(0, again.get().index());
        assertEquals(1, cache.computations());
    }

    @Test
    void fetchesAndCancelsRacing_neverFailAFetchThatWasNotCancelled() throws Exception {
        int threads = 4;
        int rounds = 300;
        List<Thread> churn = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        CompletableFuture<Block> keeper = new CompletableFuture<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        int block = (id + i) % 3;
                        fetch(contentKey, block);
                        if (id == 0 && i == rounds / 2) {
                            fetch(contentKey, 0).whenComplete((b, e) -> {
                                if (e != null) {
                                    keeper.completeExceptionally(e);
                                } else {
                                    keeper.complete(b);
                                }
                            });
                        }
                        source.cancel(REQUEST, contentKey, block);
                    }
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            churn.add(th);
            th.start();
        }
        for (Thread th : churn) {
            th.join(60_000);
        }
        assertTrue(errors.isEmpty(), errors.toString());
        assertFalse(keeper.isDone(), "the fetch nobody cancelled still waits");
        assertEquals(1, source.waiting(KEY), "only the fetch nobody cancelled is counted");
        backend.release();
        assertEquals(0, keeper.get(30, TimeUnit.SECONDS).index());
        assertEquals(0, source.waiting(KEY));
    }
}
