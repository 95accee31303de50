package dev.khameleon.store;

import java.util.concurrent.locks.Condition;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Which queued extent of a {@link ReadAheadReader} an I/O thread reads next, and the reads in
 * flight: within the {@link ReadConcurrency} limit, as demand bursts beyond it, and as prefetches.
 * Decides when to wake an I/O thread, and remembers that one found no memory it may take.
 *
 * <p>Not thread-safe: every method is called with the owning reader's lock held (the lock of
 * {@code work}), does constant or logarithmic work and never blocks.
 */
final class ReadAdmission {
    private final ReadConcurrency concurrency;
    /** Reads for waiting senders allowed beyond {@code concurrency.limit()} ({@code FileBlockStore.Builder.demandBurstReads}). */
    private final int burst;
    private final ReadQueue queue;
    private final ExtentCache cache;
    private final ToIntFunction<Extent> readBytes;
    private final ToLongFunction<Extent> endPosition;
    private final Condition work;
    private final LongSupplier nanoTime;
    private final LongSupplier staleNanos;
    private long burstReads;
    /** Reads in flight within the limit, and burst reads beyond it (which do not count towards it). */
    private int readsInFlight;
    private int burstsInFlight;
    private int prefetchesInFlight;
    /** An I/O thread found no memory it may take: wake it when memory is released. */
    private boolean starved;

    /**
     * Admits reads of {@code queue} into memory of {@code cache}, at most {@code concurrency.limit()}
     * plus {@code burst} at once, and wakes I/O threads waiting on {@code work}.
     *
     * @param readBytes the memory the read of an extent needs
     * @param endPosition the disk position just past the read of an extent, where the elevator goes on
     * @param staleNanos how long past its due time a hint is still worth a read
     */
    ReadAdmission(ReadConcurrency concurrency, int burst, ReadQueue queue, ExtentCache cache,
            ToIntFunction<Extent> readBytes, ToLongFunction<Extent> endPosition, Condition work, LongSupplier nanoTime,
            LongSupplier staleNanos) {
        this.concurrency = concurrency;
        this.burst = burst;
        this.queue = queue;
        this.cache = cache;
        this.readBytes = readBytes;
        this.endPosition = endPosition;
        this.work = work;
        this.nanoTime = nanoTime;
        this.staleNanos = staleNanos;
    }

    /**
     * Picks the next extent to read and gives it memory, or returns null if there is nothing to
     * do now. Demand reads go first, in elevator order (beyond the limit only into memory that
     * holds no announced data); hinted reads follow soonest-due first, but only into memory that
     * holds no announced data due sooner. The extent returned is LOADING and counted in flight
     * until {@link #finished}.
     */
    Extent next() {
        int limit = concurrency.limit();
        if (readsInFlight >= limit && burstsInFlight >= burst) {
            return null;
        }
        long now = nanoTime.getAsLong();
        if (queue.hasDemand()) {
            Extent e = queue.peekDemand(now);
            boolean beyond = readsInFlight >= limit;
            BuddyPool.Allocation memory = beyond ? cache.acquireUnannounced(readBytes.applyAsInt(e), now)
                    : cache.acquire(readBytes.applyAsInt(e), true, e.due, now);
            if (memory == null) {
                // A burst read that found no such memory waits for the next fetch or completion
                // instead of being woken by every unpin (that churn was measured to cost throughput).
                starved |= !beyond;
                return null;
            }
            if (beyond) {
                burstReads++;
                burstsInFlight++;
                e.burst = true;
            } else {
                readsInFlight++;
            }
            return start(e, memory);
        }
        if (readsInFlight >= limit) {
            return null;
        }
        while (queue.hasHints() && hasPrefetchRoom()) {
            Extent e = queue.peekHint();
            if (e.hinted == 0 || now - e.due > staleNanos.getAsLong()) {
                // Every slot that wanted it was fetched already, or it was re-planned away: not worth a read.
                queue.remove(e);
                cache.remove(e);
                continue;
            }
            BuddyPool.Allocation memory = cache.acquire(readBytes.applyAsInt(e), false, e.due, now);
            if (memory == null) {
                starved = true;
                return null;
            }
            e.prefetching = true;
            prefetchesInFlight++;
            readsInFlight++;
            return start(e, memory);
        }
        return null;
    }

    /** Whether another prefetch may start: prefetches use every read slot but one, at least one. */
    boolean hasPrefetchRoom() {
        return prefetchesInFlight < Math.max(1, concurrency.limit() - 1);
    }

    private Extent start(Extent e, BuddyPool.Allocation memory) {
        queue.take(e, endPosition.applyAsLong(e));
        e.state = Extent.State.LOADING;
        e.memory = memory;
        return e;
    }

    /**
     * Wakes one I/O thread if another read may start now. A thread that found no memory it may
     * take sleeps until memory is released; a new demand read within the limit may evict more
     * than a prefetch may, so it wakes a thread even then. Beyond the limit, a demand read wakes
     * a thread only if memory that nobody announced is there to take.
     */
    void signalIfRoom(boolean demand) {
        if (readsInFlight < concurrency.limit() ? demand || !starved
                : demand && burstsInFlight < burst
                        && cache.hasUnannounced(readBytes.applyAsInt(queue.peekDemand(nanoTime.getAsLong())), nanoTime.getAsLong())) {
            work.signal();
        }
    }

    /** Wakes one I/O thread if one found no memory it may take: memory was released since. */
    void wakeStarved() {
        if (starved) {
            starved = false;
            work.signal();
        }
    }

    /**
     * Frees the read slot {@link #next} gave {@code e}; a successful read of {@code latencyNanos}
     * teaches the concurrency limit. A failed read clears the starved mark without a wake-up: the
     * caller frees its memory and, unless the reader is closed, asks for the next read itself.
     */
    void finished(Extent e, boolean ok, long latencyNanos) {
        if (e.burst) {
            e.burst = false;
            burstsInFlight--;
        } else {
            readsInFlight--;
        }
        if (ok) {
            concurrency.completed(latencyNanos);
        }
        if (e.prefetching) {
            e.prefetching = false;
            prefetchesInFlight--;
        }
        if (!ok) {
            starved = false;
        }
    }

    /** Wakes another I/O thread if reads are queued and the limit leaves room for one. */
    void signalIfMore() {
        if ((queue.hasDemand() || queue.hasHints()) && readsInFlight < concurrency.limit()) {
            work.signal();
        }
    }

    /** Demand reads started beyond the adaptive limit so far. */
    long burstReads() {
        return burstReads;
    }
}
