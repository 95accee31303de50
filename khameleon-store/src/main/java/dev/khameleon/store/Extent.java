package dev.khameleon.store;

import dev.khameleon.core.Block;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A contiguous range of blocks {@code from..to-1} of one response, read in one call into pool
 * memory. State machine: QUEUED (waiting in a {@link ReadQueue}) → LOADING (an I/O thread owns
 * it and its memory) → READY (in the {@link ExtentCache}, evictable while unpinned) → evicted
 * (memory freed, no longer indexed). A failed read drops it.
 *
 * <p>Not thread-safe: every field is guarded by the owning {@link ReadAheadReader}'s lock, except
 * that the bytes of a pinned READY extent may be copied out without it.
 */
final class Extent {
    enum State { QUEUED, LOADING, READY }

    /** Where a READY, unpinned extent is listed for eviction. */
    enum Listed { NONE, COLD, ANNOUNCED }

    /** Orders by due time, then by creation, so every extent has a distinct place. */
    static final Comparator<Extent> BY_DUE = Comparator.<Extent>comparingLong(e -> e.due).thenComparingLong(e -> e.id);

    /** A fetch waiting for this extent's read. */
    static final class Waiter {
        final int request;
        final int block;
        final CompletableFuture<Block> future = new CompletableFuture<>();

        Waiter(int request, int block) {
            this.request = request;
            this.block = block;
        }
    }

    final long id;
    final int request;
    final int from;
    final int to;
    final long position;
    State state = State.QUEUED;
    /** Whether a sender waits for it (it is then in the demand queue or being read for it). */
    boolean demanded;
    /** When a sender first waited for it (System.nanoTime scale), for the demand queue's deadline. */
    long demandedNanos;
    /** Whether it is queued as a prefetch hint. */
    boolean inHintQueue;
    /** Whether an I/O thread started it from the hint queue (not for a waiting sender). */
    boolean prefetching;
    /** Whether an I/O thread started it for a waiting sender beyond the adaptive limit. */
    boolean burst;
    Listed listed = Listed.NONE;
    BuddyPool.Allocation memory;
    int dataStart;
    int pins;
    /** Slots of announced chunks that still expect a block of this extent. */
    int hinted;
    /** When its earliest announced slot is expected to be fetched (System.nanoTime scale); MAX if never announced. */
    long due = Long.MAX_VALUE;
    /** When the chunk holding that earliest slot was announced, and the slot's offset in it. */
    long announcedNanos;
    int announcedOffset;
    /** Whether a fetch of an announced block has already been sampled for the slot pace. */
    boolean paceSampled;
    /** How many chunks announced it, and the last of them (to count each chunk once). */
    int announcers;
    long lastAnnouncer = -1;
    /**
     * Fetches waiting for the read. Guarded by this extent's monitor (not the reader's lock), so
     * the I/O thread that read it can hand its blocks out without the reader's lock.
     */
    private List<Waiter> waiters = new ArrayList<>(2);
    /** Set by the loader once every waiter was served: later fetches copy the loaded bytes themselves. */
    private boolean sealed;

    Extent(long id, int request, int from, int to, long position) {
        this.id = id;
        this.request = request;
        this.from = from;
        this.to = to;
        this.position = position;
    }

    /** Adds a fetch waiting for the read, or returns null if the read is done and served (sealed). */
    synchronized Waiter addWaiter(int request, int block) {
        if (sealed) {
            return null;
        }
        Waiter w = new Waiter(request, block);
        waiters.add(w);
        return w;
    }

    /** Takes the waiting fetches; if there are none, seals the extent (see {@link #addWaiter}). */
    synchronized List<Waiter> drainOrSeal() {
        if (waiters.isEmpty()) {
            sealed = true;
            return List.of();
        }
        return drain();
    }

    /** Takes the waiting fetches. */
    synchronized List<Waiter> drain() {
        List<Waiter> out = waiters;
        waiters = new ArrayList<>(2);
        return out;
    }

    /** Makes an evicted extent that is queued again accept waiters. */
    synchronized void unseal() {
        sealed = false;
    }

    boolean covers(int block) {
        return block >= from && block < to;
    }
}
