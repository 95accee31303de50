package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The live crossfilter's blocks: request {@code v} is view {@code v}'s progressive tile
 * ({@link TileEncoder}), fetched by content key through the shared {@link TileCache}. The blocks
 * of the {@code maxEncoded} most recently used tiles are kept encoded, so the blocks of one tile
 * cost one encoding (tiles still being computed or encoded are kept on top of these). Never
 * blocks: queries run on the cache's threads, encoding on {@code encoder}'s executor. Thread-safe.
 *
 * <p><b>Cancellation.</b> The fetches waiting for a tile are counted: every {@link #fetch} that is
 * not answered by blocks already encoded adds one, the tile's end (encoded or failed) clears them,
 * and every {@link #cancel} removes one. When none is left while the tile is still being computed,
 * its computation is cancelled in the cache ({@link TileCache#cancel}: queued slice queries never
 * run, running ones are cancelled at the database), the fetches' stages fail with a
 * {@link CancellationException}, and the tile is forgotten, so a later fetch computes it again.
 * Fetches of every session share the count, so one session's cancel never stops a tile another
 * still waits for. A pinned tile ({@link TileCache#pin}) is never cancelled, nor one already
 * computed and only being encoded. A cancel names no fetch, only its content key and block: it
 * counts against a waiting fetch of that block, and is ignored if none waits (its tile ended
 * first). So a cancel that arrives after its tile ended and after a fetch of the same block
 * started the tile again counts against the new fetch; the server cancels only fetches it has
 * not seen end, which makes that rare, and its cost is one failed fetch.
 */
final class TileBlockSource implements BlockSource {
    private final TileCache cache;
    private final TileEncoder encoder;
    private final ContentKeys keys;
    private final Executor encoding;
    private final int maxEncoded;
    private final Object lock = new Object();
    /** Tiles' blocks, encoded or under way, least recently used first; guarded by {@link #lock}. */
    private final Map<TileKey, Entry> encoded = new LinkedHashMap<>(16, 0.75f, true);
    /** The tile each waiting fetch waits for, by content key and block; guarded by {@link #lock}. */
    private final Map<Waiter, Entry> waitingFor = new HashMap<>();

    /** Fetches are told apart only by what a cancel names. */
    private record Waiter(long contentKey, int blockIndex) {
    }

    /** One tile's blocks and the fetches waiting for them; mutable state guarded by {@link #lock}. */
    private static final class Entry {
        final TileKey key;
        /** Completed outside the lock only, so that no caller's callback runs under it. */
        final CompletableFuture<List<Block>> blocks = new CompletableFuture<>();
        /** The cache's computation; set in the same locked section that makes the entry known. */
        CompletableFuture<Tile> tile;
        final Map<Waiter, Integer> waiting = new HashMap<>();
        int waitingCount;
        /** Encoded or failed: later fetches are not counted. */
        boolean done;
        /** Cancelled by {@link #cancel}, which completes {@link #blocks}. */
        boolean cancelled;

        Entry(TileKey key) {
            this.key = key;
        }
    }

    TileBlockSource(TileCache cache, TileEncoder encoder, ContentKeys keys, Executor encoding, int maxEncoded) {
        this.cache = cache;
        this.encoder = encoder;
        this.keys = keys;
        this.encoding = encoding;
        this.maxEncoded = maxEncoded;
    }

    @Override
    public int requestCount() {
        return keys.views().size();
    }

    @Override
    public int blockSize() {
        return encoder.blockSize();
    }

    @Override
    public int blockCount(int requestId) {
        return encoder.blockCount(keys.views().get(requestId));
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return fetch(requestId, requestId, blockIndex);
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        TileKey key = keys.lookup(contentKey);
        if (key == null || key.active().index() != requestId) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no tile of view " + requestId
                    + " has content key " + contentKey + " (unknown, or forgotten by the key table)"));
        }
        Entry e;
        boolean started = false;
        synchronized (lock) {
            e = encoded.get(key);
            if (e == null) {
                e = new Entry(key);
                encoded.put(key, e);
                evict();
                // Under the lock: a cancel that left this key's computation without fetches has
                // cancelled it in the cache within its own locked section, so this gets a new
                // computation, never the one being cancelled.
                e.tile = cache.get(key);
                started = true;
            }
            if (!e.done) {
                Waiter w = new Waiter(contentKey, blockIndex);
                e.waiting.merge(w, 1, Integer::sum);
                e.waitingCount++;
                waitingFor.put(w, e);
            }
        }
        if (started) {
            Entry mine = e;
            // Attached outside the lock: a tile that already failed runs the handler at once.
            e.tile.thenApplyAsync(t -> encoder.encode(key.active().index(), t), encoding)
                    .whenComplete((blocks, error) -> ended(mine, blocks, error));
        }
        return e.blocks.thenApply(blocks -> blocks.get(blockIndex));
    }

    /**
     * The server no longer wants a fetch of block {@code blockIndex} of {@code contentKey}: one
     * fetch waiting for that tile no longer counts, and if none is left while the tile is being
     * computed, its computation is cancelled (see the class comment). Never blocks.
     */
    @Override
    public void cancel(int requestId, long contentKey, int blockIndex) {
        Waiter w = new Waiter(contentKey, blockIndex);
        Entry e;
        synchronized (lock) {
            e = waitingFor.get(w);
            if (e == null) {
                return; // its tile ended first (or the fetch was answered from encoded blocks)
            }
            if (e.waiting.merge(w, -1, Integer::sum) == 0) {
                e.waiting.remove(w);
                waitingFor.remove(w);
            }
            if (--e.waitingCount > 0 || e.tile.isDone()) {
                return; // another fetch waits, or only the (cheap, kept) encoding is left
            }
            // Set before the cache completes the tile's future on this thread: its handler then
            // leaves the entry to this method, which completes the blocks outside the lock.
            e.cancelled = true;
            if (!cache.cancel(e.key)) {
                e.cancelled = false; // pinned: it goes on, for the fetches still to come
                return;
            }
            encoded.remove(e.key, e);
            clearWaiting(e);
        }
        e.blocks.completeExceptionally(new CancellationException("no fetch waits for the tile any more: " + e.key));
    }

    /** The tile's encoding ended, with its blocks or an error (its computation's, or cancelled). */
    private void ended(Entry e, List<Block> blocks, Throwable error) {
        synchronized (lock) {
            if (e.cancelled) {
                return; // cancel() completes the blocks
            }
            e.done = true;
            clearWaiting(e);
            if (error != null) {
                encoded.remove(e.key, e); // a failure is not kept: the next fetch tries again
            }
        }
        if (error != null) {
            e.blocks.completeExceptionally(error);
        } else {
            e.blocks.complete(blocks);
        }
    }

    /** Under the lock: no fetch waits for {@code e} any more. */
    private void clearWaiting(Entry e) {
        for (Waiter w : e.waiting.keySet()) {
            waitingFor.remove(w, e);
        }
        e.waiting.clear();
        e.waitingCount = 0;
    }

    /** Under the lock: forgets the least recently used encoded tiles beyond {@code maxEncoded}. */
    private void evict() {
        int excess = encoded.size() - maxEncoded;
        for (Iterator<Entry> it = encoded.values().iterator(); excess > 0 && it.hasNext(); ) {
            if (it.next().done) {
                it.remove(); // an entry under way stays: its fetches are counted there
                excess--;
            }
        }
    }

    /** How many fetches wait for {@code key}'s tile now; for tests (it leaves the recency order alone). */
    int waiting(TileKey key) {
        synchronized (lock) {
            for (Entry e : encoded.values()) {
                if (e.key.equals(key)) {
                    return e.waitingCount;
                }
            }
            return 0;
        }
    }
}
