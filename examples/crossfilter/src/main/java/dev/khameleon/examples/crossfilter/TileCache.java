package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
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
 * <p>Thread-safe; {@link #get} never blocks (the queries run on the cache's own threads). A
 * failed computation is not cached: the next request for the key tries again.
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
    private final ThreadPoolExecutor queries;
    private final Map<TileKey, CompletableFuture<Tile>> tiles = new LinkedHashMap<>(16, 0.75f, true);
    private final AtomicLong computations = new AtomicLong();
    /** Keys never evicted; guarded by {@link #tiles}. */
    private final Set<TileKey> pinned = new HashSet<>();

    private TileCache(TileBackend backend, int maxConcurrentQueries, int maxTiles, int maxQueuedQueries) {
        this.backend = backend;
        this.maxTiles = maxTiles;
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
     * with the backend's error, or with a {@link RejectedExecutionException} when the query queue
     * is full or the cache is closed.
     */
    public CompletableFuture<Tile> get(TileKey key) {
        CompletableFuture<Tile> result;
        synchronized (tiles) {
            CompletableFuture<Tile> known = tiles.get(key);
            if (known != null) {
                return known;
            }
            result = new CompletableFuture<>();
            tiles.put(key, result);
            evict();
        }
        computations.incrementAndGet();
        compute(key, result);
        return result;
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

    /** How many tile computations this cache has started (hits and joined requests start none). */
    public long computations() {
        return computations.get();
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

    /** One query; a named task so that {@link #close()} can fail the queries it drops. */
    private static final class Query<T> implements Runnable {
        final Callable<T> work;
        final CompletableFuture<T> result = new CompletableFuture<>();

        Query(Callable<T> work) {
            this.work = work;
        }

        @Override
        public void run() {
            if (result.isDone()) {
                return;
            }
            try {
                result.complete(work.call());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
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
        Map<View, CompletableFuture<int[]>> parts = new EnumMap<>(View.class);
        try {
            for (View v : View.values()) {
                if (v != active) {
                    Query<int[]> q = new Query<>(() -> backend.histogram(v, filters));
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
            Map<View, int[]> out = new EnumMap<>(View.class);
            parts.forEach((v, f) -> out.put(v, f.join()));
            return out;
        });
    }

    private void compute(TileKey key, CompletableFuture<Tile> result) {
        List<CompletableFuture<Slice>> parts = new ArrayList<>();
        try {
            for (View passive : Tile.passives(key.active())) {
                Query<Slice> q = new Query<>(() -> backend.slice(key, passive));
                parts.add(q.result);
                queries.execute(q);
            }
        } catch (RejectedExecutionException e) {
            RejectedExecutionException error =
                    new RejectedExecutionException("tile query queue full or cache closed: " + key, e);
            parts.forEach(p -> p.completeExceptionally(error)); // the queued ones then do nothing
            fail(key, result, error);
            return;
        }
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).whenComplete((ignored, error) -> {
            if (error != null) {
                fail(key, result, error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
            } else {
                try {
                    result.complete(new Tile(key, parts.stream().map(CompletableFuture::join).toList()));
                } catch (RuntimeException e) {
                    fail(key, result, e);
                }
            }
        });
    }

    private void fail(TileKey key, CompletableFuture<Tile> result, Throwable error) {
        synchronized (tiles) {
            tiles.remove(key, result);
        }
        result.completeExceptionally(error);
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
