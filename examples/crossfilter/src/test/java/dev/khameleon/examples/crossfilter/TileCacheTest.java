package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TileCacheTest {
    private static final TileKey KEY = new TileKey(FlightsViews.DISTANCE, FlightsViews.none());

    /** A backend whose slice queries wait for {@link #release} and count how many run at once. */
    static final class GatedBackend implements TileBackend {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        volatile int failFirst;

        @Override
        public Slice slice(TileKey key, View passive) throws SQLException {
            gate();
            return Slice.fromPixelCounts(passive, new long[View.PIXELS][passive.bins()], new long[passive.bins()]);
        }

        @Override
        public int[] histogram(View passive, Filters filters) throws SQLException {
            gate();
            return new int[passive.bins()];
        }

        @Override
        public long count(Filters filters) throws SQLException {
            gate();
            return 0;
        }

        /** Counts the query, waits for the gate, fails the first {@code failFirst} calls. */
        private void gate() throws SQLException {
            int call = calls.incrementAndGet();
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new SQLException("test gate never opened");
                }
                if (call <= failFirst) {
                    throw new SQLException("injected failure " + call);
                }
            } catch (InterruptedException e) {
                throw new SQLException(e);
            } finally {
                running.decrementAndGet();
            }
        }

        @Override
        public String name() {
            return "gated";
        }

        @Override
        public Views views() {
            return Views.flights();
        }

        @Override
        public long rows() {
            return 0;
        }

        @Override
        public int connections() {
            return 100;
        }

        @Override
        public int defaultConcurrency() {
            return 3;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void get_concurrentRequestsForOneKey_computeOnce() throws Exception {
        GatedBackend backend = new GatedBackend();
        try (TileCache cache = TileCache.create(backend)) {
            List<CompletableFuture<Tile>> futures = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Thread t = new Thread(() -> {
                    CompletableFuture<Tile> f = cache.get(KEY);
                    synchronized (futures) {
                        futures.add(f);
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            backend.release.countDown();
            Tile first = futures.get(0).get(10, TimeUnit.SECONDS);
            for (CompletableFuture<Tile> f : futures) {
                assertSame(first, f.get(10, TimeUnit.SECONDS));
            }
            assertEquals(1, cache.computations());
            assertEquals(5, backend.calls.get(), "one query per passive view");
            assertSame(first, cache.getIfPresent(KEY));
        }
    }

    @Test
    void get_neverRunsMoreQueriesThanTheLimit() throws Exception {
        GatedBackend backend = new GatedBackend();
        try (TileCache cache = TileCache.create(backend, 2, 16, 100)) {
            List<CompletableFuture<Tile>> futures = new ArrayList<>();
            for (View active : FlightsViews.values()) {
                futures.add(cache.get(new TileKey(active, FlightsViews.none())));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (backend.running.get() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(2, backend.running.get(), "both permitted queries start");
            backend.release.countDown();
            for (CompletableFuture<Tile> f : futures) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertEquals(30, backend.calls.get());
            assertEquals(2, backend.maxRunning.get());
        }
    }

    @Test
    void get_failureIsNotCached_nextRequestRetries() throws Exception {
        GatedBackend backend = new GatedBackend();
        backend.failFirst = 1;
        backend.release.countDown();
        try (TileCache cache = TileCache.create(backend, 1, 4, 100)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> cache.get(KEY).get(10, TimeUnit.SECONDS));
            assertInstanceOf(SQLException.class, e.getCause());
            assertNull(cache.getIfPresent(KEY));
            Tile tile = cache.get(KEY).get(10, TimeUnit.SECONDS);
            assertEquals(FlightsViews.DISTANCE, tile.key().active());
            assertEquals(2, cache.computations());
        }
    }

    @Test
    void get_evictsLeastRecentlyUsedBeyondMaxTiles() throws Exception {
        GatedBackend backend = new GatedBackend();
        backend.release.countDown();
        try (TileCache cache = TileCache.create(backend, 1, 2, 100)) {
            TileKey a = new TileKey(FlightsViews.DISTANCE, FlightsViews.none());
            TileKey b = new TileKey(FlightsViews.ARR_TIME, FlightsViews.none());
            TileKey c = new TileKey(FlightsViews.AIR_TIME, FlightsViews.none());
            cache.get(a).get(10, TimeUnit.SECONDS);
            cache.get(b).get(10, TimeUnit.SECONDS);
            cache.get(a).get(10, TimeUnit.SECONDS); // a is now the most recently used
            cache.get(c).get(10, TimeUnit.SECONDS);
            assertEquals(2, cache.size());
            assertTrue(cache.getIfPresent(a) != null && cache.getIfPresent(c) != null);
            assertNull(cache.getIfPresent(b));
            assertEquals(3, cache.computations());
        }
    }

    /** A backend whose queries run at once. */
    private static GatedBackend released() {
        GatedBackend backend = new GatedBackend();
        backend.release.countDown();
        return backend;
    }

    /** The tile of {@code view} under a brush on DISTANCE. */
    private static TileKey brushedOnDistance(View view) {
        return new TileKey(view, FlightsViews.none().with(FlightsViews.DISTANCE, 1, 9));
    }

    @Test
    void pin_keepsTheTileBeyondMaxTiles_computedOnce_andCountsNoPinnedTileAgainstTheLimit() throws Exception {
        try (TileCache cache = TileCache.create(released(), 1, 1, 100)) {
            Tile tile = cache.pin(KEY).get(10, TimeUnit.SECONDS);
            TileKey b = brushedOnDistance(FlightsViews.ARR_TIME);
            TileKey c = brushedOnDistance(FlightsViews.AIR_TIME);
            cache.get(b).get(10, TimeUnit.SECONDS);
            cache.get(c).get(10, TimeUnit.SECONDS); // evicts b, the only unpinned tile, not the older pinned one
            assertSame(tile, cache.getIfPresent(KEY));
            assertNull(cache.getIfPresent(b));
            assertTrue(cache.getIfPresent(c) != null);
            assertEquals(2, cache.size());
            assertSame(tile, cache.pin(KEY).get(10, TimeUnit.SECONDS)); // pinning again computes nothing
            assertEquals(3, cache.computations());
        }
    }

    @Test
    void pin_aFailedPinnedTileIsComputedAgainAndStaysPinned_andPinningIsBounded() throws Exception {
        GatedBackend backend = released();
        backend.failFirst = 1;
        try (TileCache cache = TileCache.create(backend, 1, 1, 100)) {
            assertThrows(ExecutionException.class, () -> cache.pin(KEY).get(10, TimeUnit.SECONDS));
            Tile tile = cache.get(KEY).get(10, TimeUnit.SECONDS);
            for (View v : List.of(FlightsViews.ARR_TIME, FlightsViews.AIR_TIME)) {
                cache.get(brushedOnDistance(v)).get(10, TimeUnit.SECONDS);
            }
            assertSame(tile, cache.getIfPresent(KEY));
            for (int i = 1; i < TileCache.MAX_PINNED; i++) {
                cache.pin(new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.DISTANCE, i, i + 1)));
            }
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> cache.pin(new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.DISTANCE, 0, 100))));
            assertTrue(e.getMessage().contains("at most " + TileCache.MAX_PINNED), e.getMessage());
            cache.pin(KEY); // already pinned: allowed
        }
    }

    @Test
    void get_fullQueryQueue_failsAtOnceWithClearError() throws Exception {
        GatedBackend backend = new GatedBackend();
        try (TileCache cache = TileCache.create(backend, 1, 16, 4)) {
            // 1 running + 4 queued = the first tile's 5 queries; the second tile's do not fit.
            CompletableFuture<Tile> first = cache.get(new TileKey(FlightsViews.DISTANCE, FlightsViews.none()));
            CompletableFuture<Tile> second = cache.get(new TileKey(FlightsViews.ARR_TIME, FlightsViews.none()));
            ExecutionException e = assertThrows(ExecutionException.class, () -> second.get(10, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("queue full"), e.getCause().getMessage());
            backend.release.countDown();
            assertEquals(FlightsViews.DISTANCE, first.get(10, TimeUnit.SECONDS).key().active());
        }
    }

    @Test
    void histograms_shareTheQuerySlotsAndQueue_aFullQueueFailsAtOnce() throws Exception {
        GatedBackend backend = new GatedBackend();
        try (TileCache cache = TileCache.create(backend, 1, 16, 4)) {
            // 1 running + 4 queued = the five passive histograms; nothing else fits.
            CompletableFuture<Map<View, int[]>> first = cache.histograms(FlightsViews.DISTANCE, FlightsViews.none());
            ExecutionException tile = assertThrows(ExecutionException.class, () -> cache.get(KEY).get(10,
                    TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, tile.getCause());
            ExecutionException all = assertThrows(ExecutionException.class,
                    () -> cache.histograms(null, FlightsViews.none()).get(10, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, all.getCause());
            assertTrue(all.getCause().getMessage().contains("queue full"), all.getCause().getMessage());
            backend.release.countDown();
            Map<View, int[]> h = first.get(10, TimeUnit.SECONDS);
            assertEquals(java.util.Set.copyOf(Tile.passives(FlightsViews.DISTANCE)), h.keySet());
            assertEquals(FlightsViews.AIR_TIME.bins(), h.get(FlightsViews.AIR_TIME).length);
            assertEquals(1, backend.maxRunning.get(), "histograms run within the concurrency limit");
        }
    }

    @Test
    void queries_countsEveryQueryThatReachedTheBackend_notTheCacheHits() throws Exception {
        GatedBackend backend = new GatedBackend();
        backend.release.countDown();
        try (TileCache cache = TileCache.create(backend)) {
            assertEquals(0, cache.queries());
            cache.get(KEY).get(10, TimeUnit.SECONDS);
            assertEquals(5, cache.queries(), "a tile: one slice per passive view");
            cache.get(KEY).get(10, TimeUnit.SECONDS);
            assertEquals(5, cache.queries(), "a cached tile runs no query");
            cache.histograms(FlightsViews.DISTANCE, FlightsViews.none()).get(10, TimeUnit.SECONDS);
            cache.count(FlightsViews.none()).get(10, TimeUnit.SECONDS);
            assertEquals(11, cache.queries(), "five histograms and a count");
            assertEquals(backend.calls.get(), cache.queries());
        }
    }

    @Test
    void close_failsTheTilesItDrops_andLaterRequests() throws Exception {
        GatedBackend backend = new GatedBackend();
        TileCache cache = TileCache.create(backend, 1, 16, 100);
        CompletableFuture<Tile> pending = cache.get(KEY); // 1 query running, 4 queued
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (backend.running.get() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        cache.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof SQLException || e.getCause() instanceof RejectedExecutionException,
                String.valueOf(e.getCause()));
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> cache.get(new TileKey(FlightsViews.ARR_TIME, FlightsViews.none())).get(10, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, later.getCause());
    }

    @Test
    void create_rejectsLimitsBelowOne() {
        GatedBackend backend = new GatedBackend();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TileCache.create(backend, 0, 1, 1))
                .getMessage().contains("maxConcurrentQueries"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TileCache.create(backend, 1, 0, 1))
                .getMessage().contains("maxTiles"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TileCache.create(backend, 1, 1, 0))
                .getMessage().contains("maxQueuedQueries"));
    }
}
