package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tiles shared by every session, each computed at most once per key at a time: concurrent
 * requests for one {@link TileKey} wait for the same computation (single flight), and at most
 * {@code maxConcurrentQueries} queries run on the backend at once (slice queries and the
 * on-demand {@link #histograms} alike).
 *
 * <p>Limits, each validated at creation:
 * <ul>
 *   <li>{@code maxConcurrentQueries}: slice queries running at once; default
 *       {@link TileBackend#defaultConcurrency()} (4 for DuckDB, 15 for PostgreSQL).</li>
 *   <li>{@code maxTiles}: tiles kept, least recently used evicted first; default
 *       {@value #DEFAULT_MAX_TILES} (a tile of the flights views is about 160 KB). Pinned tiles
 *       ({@link #pin}, at most {@value #MAX_PINNED}) are kept on top of these and never
 *       evicted.</li>
 *   <li>{@code maxQueuedQueries}: slice queries waiting for the backend; beyond it a request
 *       fails at once with a {@link RejectedExecutionException} instead of queueing without
 *       bound; default {@value #DEFAULT_MAX_QUEUED_QUERIES}.</li>
 * </ul>
 *
 * <p>A computation under way can be {@link #cancel}led, unless its key is pinned: its queries
 * that have not started never run, running ones are cancelled at the backend
 * ({@link QueryCancel}).
 *
 * <p>Thread-safe; {@link #get} and {@link #cancel} never block (the queries run on the cache's own
 * threads). A failed or cancelled computation is not cached: the next request for the key tries
 * again.
 */
public final class TileCache implements AutoCloseable {
    /** Default of {@code maxTiles}. */
    public static final int DEFAULT_MAX_TILES = 64;
    /** Default of {@code maxQueuedQueries}. */
    public static final int DEFAULT_MAX_QUEUED_QUERIES = 1024;
    /** The most keys {@link #pin} keeps. */
    public static final int MAX_PINNED = 16;

    private final TileBackend backend;
    private final int maxTiles;
    private final int maxConcurrentQueries;
    private final ThreadPoolExecutor queries;
    private final Map<TileKey, CompletableFuture<Tile>> tiles = new LinkedHashMap<>(16, 0.75f, true);
    private final AtomicLong computations = new AtomicLong();
    /** Queries that reached the backend: slices, on-demand histograms and row counts. */
    private final AtomicLong queriesRun = new AtomicLong();
    /** Keys never evicted; guarded by {@link #tiles}. */
    private final Set<TileKey> pinned = new HashSet<>();
    /**
     * The computations under way, evicted from {@link #tiles} or not: a request joins one rather
     * than start a second, and {@link #cancel} finds it. Guarded by {@link #tiles}.
     */
    private final Map<TileKey, Computation> running = new HashMap<>();

    private TileCache(TileBackend backend, int maxConcurrentQueries, int maxTiles, int maxQueuedQueries) {
        this.backend = backend;
        this.maxTiles = maxTiles;
        this.maxConcurrentQueries = maxConcurrentQueries;
        AtomicInteger threads = new AtomicInteger();
        this.queries = new ThreadPoolExecutor(maxConcurrentQueries, maxConcurrentQueries, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(maxQueuedQueries), r -> {
                    Thread t = new Thread(r, "tile-query-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        queries.allowCoreThreadTimeOut(true);
    }

    /** A cache over {@code backend} with its default concurrency and the default limits. */
    public static TileCache create(TileBackend backend) {
        return create(backend, backend.defaultConcurrency(), DEFAULT_MAX_TILES, DEFAULT_MAX_QUEUED_QUERIES);
    }

    /**
     * A cache over {@code backend} with the given limits (see the class comment).
     *
     * @throws IllegalArgumentException if a limit is below 1, naming it
     */
    public static TileCache create(TileBackend backend, int maxConcurrentQueries, int maxTiles, int maxQueuedQueries) {
        check("maxConcurrentQueries", maxConcurrentQueries);
        check("maxTiles", maxTiles);
        check("maxQueuedQueries", maxQueuedQueries);
        return new TileCache(backend, maxConcurrentQueries, maxTiles, maxQueuedQueries);
    }

    private static void check(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
    }

    /**
     * The tile for {@code key}: the cached one, the computation already under way, or a new
     * computation of its slices (one query per passive view). Never blocks. The future fails
     * with the backend's error, with a {@link RejectedExecutionException} when the query queue
     * is full or the cache is closed, or with a {@link CancellationException} when the
     * computation is {@link #cancel}led.
     */
    public CompletableFuture<Tile> get(TileKey key) {
        Computation c;
        synchronized (tiles) {
            CompletableFuture<Tile> known = tiles.get(key);
            if (known != null) {
                return known;
            }
            Computation under = running.get(key);
            if (under != null) {
                // Evicted while under way: cached again rather than computed twice.
                tiles.put(key, under.result);
                evict();
                return under.result;
            }
            c = new Computation(key, backend, queriesRun);
            running.put(key, c);
            tiles.put(key, c.result);
            evict();
        }
        computations.incrementAndGet();
        compute(c);
        return c.result;
    }

    /**
     * Cancels the computation of {@code key}'s tile if one is under way and {@code key} is not
     * pinned: its slice queries that have not started leave the query queue at once and never run,
     * running ones are cancelled at the backend ({@link TileBackend#slice(TileKey, View,
     * QueryCancel)}), and its future completes exceptionally with a {@link CancellationException},
     * on this thread. The cache forgets it, so the next {@link #get} computes the tile again.
     * Every request that joined the computation sees the failure: a caller that shares tiles
     * between requests counts them and cancels only when none is left (as the live server's
     * block source does). Never blocks.
     *
     * @return whether a computation was cancelled: false if none is under way (never requested,
     *     computed, failed or cancelled already) or the key is pinned
     */
    public boolean cancel(TileKey key) {
        Computation c;
        synchronized (tiles) {
            c = running.get(key);
            if (c == null || pinned.contains(key)) {
                return false;
            }
            c.finished = true;
            running.remove(key);
            tiles.remove(key, c.result);
        }
        drop(c.queries, new CancellationException("tile computation cancelled: " + key));
        c.result.completeExceptionally(new CancellationException("tile computation cancelled: " + key));
        return true;
    }

    /**
     * Ends {@code dropped} with {@code error}: the queued ones never run and leave the queue, the
     * running ones are cancelled at the backend. Never blocks.
     */
    private void drop(List<Query<Slice>> dropped, Throwable error) {
        // Every result first: a thread that a stopped query frees must find its tile's queued
        // queries done and skip them, not start one before its turn to be cancelled comes.
        for (Query<Slice> q : dropped) {
            q.result.completeExceptionally(error);
        }
        for (Query<Slice> q : dropped) {
            queries.remove(q); // a queued one frees its slot now, not when a thread skips it
        }
        for (Query<Slice> q : dropped) {
            q.cancel.cancel(); // a running one's stopper hands the backend's cancel to another thread
        }
    }

    /**
     * As {@link #get}, and keeps the tile for the cache's lifetime: it is never evicted, and
     * after a failed computation the next request computes it again. For the tiles every session
     * needs, such as the unfiltered state's, computed once when the server starts. Pinning a
     * pinned key again only returns its tile.
     *
     * @throws IllegalStateException if {@value #MAX_PINNED} other keys are pinned already
     */
    public CompletableFuture<Tile> pin(TileKey key) {
        synchronized (tiles) {
            if (!pinned.contains(key) && pinned.size() >= MAX_PINNED) {
                throw new IllegalStateException("at most " + MAX_PINNED + " tiles can be pinned; cannot pin " + key);
            }
            pinned.add(key);
        }
        return get(key);
    }

    /** The tile for {@code key} if it is computed and cached, else null; never starts a computation. */
    public Tile getIfPresent(TileKey key) {
        CompletableFuture<Tile> f;
        synchronized (tiles) {
            f = tiles.get(key);
        }
        return f != null && f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    /** The most queries this cache runs on the backend at once ({@code maxConcurrentQueries}). */
    public int maxConcurrentQueries() {
        return maxConcurrentQueries;
    }

    /** How many tile computations this cache has started (hits and joined requests start none). */
    public long computations() {
        return computations.get();
    }

    /**
     * How many queries this cache has run on the backend: slice queries, on-demand
     * {@link #histograms} (one per view) and row {@link #count}s, each counted when it starts;
     * queries dropped before they start (cancelled, their tile failed, the cache closed) are not
     * counted, cancelled running ones are. Thread-safe.
     */
    public long queries() {
        return queriesRun.get();
    }

    /** How many tiles (computed or under way) the cache holds. */
    public int size() {
        synchronized (tiles) {
            return tiles.size();
        }
    }

    private void evict() {
        int unpinned = 0;
        for (TileKey k : tiles.keySet()) {
            unpinned += pinned.contains(k) ? 0 : 1;
        }
        Iterator<TileKey> it = tiles.keySet().iterator();
        while (unpinned > maxTiles && it.hasNext()) {
            if (!pinned.contains(it.next())) {
                it.remove(); // waiters keep their future; only the cache forgets it
                unpinned--;
            }
        }
    }

    /** A query's body, given its cancel switch. */
    @FunctionalInterface
    private interface Work<T> {
        T run(QueryCancel cancel) throws Exception;
    }

    /**
     * One query; a named task so that {@link #close()} can fail the queries it drops and
     * {@link #cancel} can take it out of the queue.
     */
    private static final class Query<T> implements Runnable {
        final Work<T> work;
        final QueryCancel cancel = new QueryCancel();
        final CompletableFuture<T> result = new CompletableFuture<>();
        private final AtomicLong run;

        Query(Work<T> work, AtomicLong run) {
            this.work = work;
            this.run = run;
        }

        @Override
        public void run() {
            if (result.isDone()) {
                return; // cancelled, or its tile failed, while it waited: it never reaches the backend
            }
            run.incrementAndGet();
            try {
                result.complete(work.run(cancel));
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
        }
    }

    /** One tile's computation under way: its five slice queries and the future they complete. */
    private static final class Computation {
        final TileKey key;
        final CompletableFuture<Tile> result = new CompletableFuture<>();
        final List<Query<Slice>> queries = new ArrayList<>();
        /** Completed, failed or cancelled: whoever sets it completes {@link #result}; guarded by {@code tiles}. */
        boolean finished;

        Computation(TileKey key, TileBackend backend, AtomicLong run) {
            this.key = key;
            for (View passive : Tile.passives(key.active())) {
                queries.add(new Query<>(cancel -> backend.slice(key, passive, cancel), run));
            }
        }
    }

    /**
     * The histograms every view but {@code active} shows under {@code filters} (every view when
     * {@code active} is null), in view order: one {@link TileBackend#histogram} query per view,
     * the on-demand way, on this cache's query threads and within its limits. Not cached. Never
     * blocks; the future fails with the backend's error, or with a
     * {@link RejectedExecutionException} when the query queue is full or the cache is closed.
     */
    public CompletableFuture<Map<View, int[]>> histograms(View active, Filters filters) {
        Map<View, CompletableFuture<int[]>> parts = new LinkedHashMap<>();
        try {
            for (View v : filters.views()) {
                if (v != active) {
                    Query<int[]> q = new Query<>(cancel -> backend.histogram(v, filters), queriesRun);
                    parts.put(v, q.result);
                    queries.execute(q);
                }
            }
        } catch (RejectedExecutionException e) {
            RejectedExecutionException error = new RejectedExecutionException("query queue full or cache closed", e);
            parts.values().forEach(p -> p.completeExceptionally(error));
            return CompletableFuture.failedFuture(error);
        }
        return CompletableFuture.allOf(parts.values().toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            Map<View, int[]> out = new LinkedHashMap<>();
            parts.forEach((v, f) -> out.put(v, f.join()));
            return out;
        });
    }

    /**
     * How many rows pass every brush of {@code filters}: one {@link TileBackend#count} query on
     * this cache's query threads, within its limits. Not cached. Never blocks; the future fails as
     * {@link #histograms}' does.
     */
    public CompletableFuture<Long> count(Filters filters) {
        Query<Long> q = new Query<>(cancel -> backend.count(filters), queriesRun);
        try {
            queries.execute(q);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new RejectedExecutionException("query queue full or cache closed", e));
        }
        return q.result;
    }

    /** Rows of the table the backend holds ({@link TileBackend#rows}). */
    public long rows() {
        return backend.rows();
    }

    /** The views of the backend's table. */
    public Views views() {
        return backend.views();
    }

    private void compute(Computation c) {
        try {
            for (Query<Slice> q : c.queries) {
                queries.execute(q);
                if (q.result.isDone()) {
                    queries.remove(q); // cancelled between its creation and now: no slot for it
                }
            }
        } catch (RejectedExecutionException e) {
            RejectedExecutionException error =
                    new RejectedExecutionException("tile query queue full or cache closed: " + c.key, e);
            drop(c.queries, error); // the tile fails: its queries already running are not wanted either
            finish(c, null, error);
            return;
        }
        List<CompletableFuture<Slice>> parts = c.queries.stream().map(q -> q.result).toList();
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).whenComplete((ignored, error) -> {
            if (error != null) {
                finish(c, null, error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
                return;
            }
            Tile tile;
            try {
                tile = new Tile(c.key, parts.stream().map(CompletableFuture::join).toList());
            } catch (RuntimeException e) {
                finish(c, null, e);
                return;
            }
            finish(c, tile, null);
        });
    }

    /**
     * Ends {@code c} with {@code tile} or {@code error}, unless it has ended already (cancelled):
     * exactly one ending completes its future, outside the lock. A failure is not cached.
     */
    private void finish(Computation c, Tile tile, Throwable error) {
        synchronized (tiles) {
            if (c.finished) {
                return;
            }
            c.finished = true;
            running.remove(c.key, c);
            if (error != null) {
                tiles.remove(c.key, c.result);
            }
        }
        if (error != null) {
            c.result.completeExceptionally(error);
        } else {
            c.result.complete(tile);
        }
    }

    /**
     * Stops the query threads: running queries are interrupted, queued ones dropped, and the
     * tiles waiting for them fail; later requests fail at once. Does not close the backend.
     */
    @Override
    public void close() {
        List<Runnable> dropped = queries.shutdownNow();
        for (Runnable r : dropped) {
            if (r instanceof Query<?> q) {
                q.result.completeExceptionally(new RejectedExecutionException("tile cache closed"));
            }
        }
    }
}
