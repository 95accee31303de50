package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * {@link ReadStrategy#SERIALIZED_READAHEAD} and {@link ReadStrategy#SCHEDULE_AWARE}: I/O threads
 * read whole ranges of responses ({@link Extent}s) into a bounded {@link BuddyPool}, and fetches
 * are served from that memory.
 *
 * <p>The parts: a {@link ReadQueue} (which read next: demand in elevator order, then prefetch
 * hints soonest-due first), an {@link ExtentCache} (which memory to reuse: cold data first, then
 * announced data due last), a {@link ReadConcurrency} (how many reads in flight) and an
 * {@link IoLoop} (the threads). This class ties them together under one lock; every critical
 * section does constant or logarithmic work, and byte copies and CRC checks happen outside the
 * lock, protected by the extent's pin count (or, while its loader hands it out, by its LOADING
 * state), so memory is never reused while a block is copied out of it.
 *
 * <p>Reads a sender waits for may use every read slot and always go first; prefetch reads use the
 * slots demand leaves free, all but one (kept for the next sender who waits), so they cannot crowd
 * out demand reads, and they only take memory from data due later than theirs. I/O threads are woken when there is a read to
 * start, not on every fetch.
 *
 * <p>Bounds: the pool's bytes, allocated when the reader opens, at most {@code maxPendingReads}
 * queued extents (fetches beyond fail at once; hints beyond are dropped and counted).
 */
final class ReadAheadReader implements BlockReader {
    /**
     * Announced data due longer ago than this plus the observed lead (announcement to first fetch)
     * is no longer preferred to other data: its slots were re-planned or its session left.
     */
    static final long STALE_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long a demand read may wait before it goes ahead of the elevator order: about one disk seek. */
    static final long DEMAND_DEADLINE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The slot pace assumed until fetches have shown the real one (a 16 KiB block at 16 MB/s). */
    static final long INITIAL_SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The most reads for waiting senders allowed in flight beyond an adaptive limit (each only in
     * memory that no announced data holds: raising the limit itself was measured to cost
     * throughput because those reads evicted announced data, docs/benchmarks.md).
     */
    static final int MAX_DEMAND_BURST_READS = 64;

    private final Segments segments;
    private final Counters counters;
    private final String name;
    private final boolean useHints;
    private final int readAheadBlocks;
    private final LongSupplier nanoTime;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ExtentCache cache;
    private final ReadQueue queue;
    private final SlotPace pace = new SlotPace(INITIAL_SLOT_NANOS);
    private final ReadConcurrency concurrency;
    private final IoLoop<Extent> loop;
    /** Reads for waiting senders allowed beyond {@code concurrency.limit()} ({@code FileBlockStore.Builder.demandBurstReads}). */
    private final int burst;
    private long burstReads;
    /** Test hook: runs on the I/O thread after it sealed a loaded extent, before it takes the lock. */
    private volatile Runnable afterHandOverForTesting;
    private long nextId;
    private long nextChunk;
    /** Reads in flight within the limit, and burst reads beyond it (which do not count towards it). */
    private int readsInFlight;
    private int burstsInFlight;
    private int prefetchesInFlight;
    /** An I/O thread found no memory it may take: wake it when memory is released. */
    private boolean starved;
    private boolean closed;

    private ReadAheadReader(Segments segments, Counters counters, String name, boolean useHints,
            ReadConcurrency concurrency, int readAheadBytes, long poolBytes, int maxPendingReads, int demandBurstReads,
            LongSupplier nanoTime) {
        this.segments = segments;
        this.counters = counters;
        this.name = name;
        this.useHints = useHints;
        this.nanoTime = nanoTime;
        int blockSize = segments.index().blockSize;
        this.readAheadBlocks = Math.max(1, readAheadBytes / blockSize);
        int largestRead = Segments.envelopeBytes(blockSize, readAheadBlocks);
        long fit = largestReadsFitting(poolBytes, blockSize, readAheadBytes);
        if (fit < concurrency.max() + 1L) {
            throw new IllegalArgumentException("poolBytes " + poolBytes + " holds " + fit
                    + " read-ahead reads of up to " + largestPoolBlock(blockSize, readAheadBytes)
                    + " bytes; at least ioThreads + 1 = " + (concurrency.max() + 1) + " are needed");
        }
        this.concurrency = concurrency;
        // Burst reads only take memory nobody announced, so they cannot starve the limit's reads;
        // the pool bounds how many could ever run at once.
        this.burst = concurrency.adaptive()
                ? (int) Math.max(0, Math.min(demandBurstReads, fit - 1 - concurrency.max())) : 0;
        // Allocated up front: first-touch of fresh memory is slow (milliseconds per MiB on a busy
        // VM) and must not sit on the read path; the bound is then also the footprint.
        this.cache = new ExtentCache(new BuddyPool(poolBytes, largestRead), this::staleNanos, this::requeue);
        this.queue = new ReadQueue(maxPendingReads, DEMAND_DEADLINE_NANOS);
        this.loop = new IoLoop<>(lock, work, "khameleon-store-" + name + "-io-", concurrency.max() + burst, new IoLoop.Jobs<>() {
            @Override
            public Extent next() {
                return takeNext();
            }

            @Override
            public boolean stopped() {
                return closed;
            }

            @Override
            public Extent run(Extent e) {
                return load(e);
            }
        });
    }

    /**
     * Opens a reader and starts its I/O threads ({@code concurrency.max()} of them, plus up to
     * {@code demandBurstReads} for demand bursts when the concurrency is adaptive).
     *
     * @throws IllegalArgumentException if the pool cannot hold {@code concurrency.max() + 1} of the largest reads
     */
    static ReadAheadReader start(Segments segments, Counters counters, String name, boolean useHints,
            ReadConcurrency concurrency, int readAheadBytes, long poolBytes, int maxPendingReads, int demandBurstReads,
            LongSupplier nanoTime) {
        ReadAheadReader reader = new ReadAheadReader(segments, counters, name, useHints, concurrency, readAheadBytes,
                poolBytes, maxPendingReads, demandBurstReads, nanoTime);
        reader.loop.start();
        return reader;
    }

    /** How many of the largest reads (one pool block each) a pool of {@code poolBytes} holds. */
    static long largestReadsFitting(long poolBytes, int blockSize, int readAheadBytes) {
        return poolBytes / largestPoolBlock(blockSize, readAheadBytes);
    }

    private static int largestPoolBlock(int blockSize, int readAheadBytes) {
        int largestRead = Segments.envelopeBytes(blockSize, Math.max(1, readAheadBytes / blockSize));
        return Integer.highestOneBit(largestRead - 1) << 1;
    }

    @Override
    public CompletableFuture<Block> fetch(int requestId, int blockIndex) {
        Extent hit;
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(BlockReader.closedError(name, requestId, blockIndex));
            }
            Extent e = cache.find(requestId, blockIndex);
            if (e == null) {
                if (!queue.hasRoom()) {
                    return CompletableFuture.failedFuture(new IllegalStateException("FileBlockStore " + name
                            + ": too many reads pending (" + queue.size() + "); block " + blockIndex + " of request "
                            + requestId + " was not queued"));
                }
                // Blind read-ahead serves SERIALIZED_READAHEAD; with the schedule's hints a miss reads
                // just its block: read-ahead past what was announced was measured to be mostly wasted
                // and to evict announced data (docs/file-store.md).
                int limit = useHints ? blockIndex + 1 : segments.index().entry(requestId).count();
                e = newExtent(requestId, blockIndex, limit);
                queue.demand(e, nanoTime.getAsLong());
                signalIfRoom(true);
            }
            samplePace(e);
            if (e.state != Extent.State.READY) {
                Extent.Waiter w = e.addWaiter(requestId, blockIndex);
                if (w != null) {
                    if (!e.demanded && e.state == Extent.State.QUEUED) {
                        // A hinted read the sender now waits for: move it to the demand queue.
                        queue.demand(e, nanoTime.getAsLong());
                        signalIfRoom(true);
                    }
                    return w.future;
                }
                // Read and sealed, not yet READY: its loader holds its memory until it takes the
                // lock, so this fetch pins it and copies the block out like a hit.
            }
            hit = e;
            cache.pin(hit);
            consumeHints(hit, 1);
        } finally {
            lock.unlock();
        }
        CompletableFuture<Block> f = new CompletableFuture<>();
        serve(hit, blockIndex, f);
        counters.blocksFromMemory.increment();
        unpin(hit);
        return f;
    }

    @Override
    public void prefetch(ScheduleChunk chunk) {
        if (!useHints || chunk.isEmpty()) {
            return;
        }
        // Merge the chunk per response, keeping the order in which responses first appear; each
        // entry is (block << 32 | offset in the chunk), so sorting orders by block.
        LinkedHashMap<Integer, List<Long>> wanted = new LinkedHashMap<>();
        int n = segments.index().size();
        for (int k = 0; k < chunk.size(); k++) {
            int r = chunk.requestId(k);
            int b = chunk.blockIndex(k);
            if (r >= 0 && r < n && b >= 0 && b < segments.index().entry(r).count()) {
                wanted.computeIfAbsent(r, x -> new ArrayList<>()).add(((long) b << 32) | k);
            }
        }
        long now = nanoTime.getAsLong();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            long slot = pace.slotNanos();
            long lead = pace.leadNanos();
            boolean added = false;
            long announcer = nextChunk++;
            for (Map.Entry<Integer, List<Long>> m : wanted.entrySet()) {
                int r = m.getKey();
                List<Long> slots = m.getValue();
                slots.sort(null);
                int last = (int) (slots.get(slots.size() - 1) >>> 32);
                Extent current = null;
                for (long s : slots) {
                    int b = (int) (s >>> 32);
                    int k = (int) s;
                    if (current == null || !current.covers(b)) {
                        current = cache.find(r, b);
                        if (current == null) {
                            if (!queue.hasRoom()) {
                                counters.hintsDropped.increment();
                                break;
                            }
                            // One read from here to the response's last wanted block, as far as read-ahead allows.
                            current = newExtent(r, b, last + 1);
                            queue.hint(current);
                            added = true;
                        }
                    }
                    announce(current, announcer, now, k, now + lead + k * slot);
                }
            }
            if (added && prefetchesInFlight < prefetchLimit()) {
                signalIfRoom(false);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues an announced extent that was evicted before it was fetched to be read again, if the
     * queue has room: a later fetch then re-reads its announced range in one call. Lock held.
     */
    private boolean requeue(Extent e) {
        if (!queue.hasRoom()) {
            return false;
        }
        e.state = Extent.State.QUEUED;
        e.unseal();
        queue.created();
        queue.hint(e);
        return true;
    }

    /** Records one more announced slot of {@code e}, due at {@code due}. Lock held. */
    private void announce(Extent e, long announcer, long now, int offset, long due) {
        boolean listed = cache.unlist(e);
        e.hinted++;
        if (e.lastAnnouncer != announcer) {
            e.lastAnnouncer = announcer;
            e.announcers++;
        }
        if (due < e.due) {
            queue.advance(e, due);
            e.announcedNanos = now;
            e.announcedOffset = offset;
            e.paceSampled = false;
        }
        if (listed) {
            cache.list(e);
        }
    }

    /**
     * On the first fetch of an extent that one chunk announced, teaches the slot pace when it was
     * fetched (with several announcers, the fetch may belong to another session's chunk). Lock held.
     */
    private void samplePace(Extent e) {
        if (e.hinted > 0 && e.announcers == 1 && !e.paceSampled) {
            e.paceSampled = true;
            pace.sample(e.announcedOffset, nanoTime.getAsLong() - e.announcedNanos);
        }
    }

    /** Records that {@code slots} announced slots of {@code e} were fetched. Lock held. */
    private void consumeHints(Extent e, int slots) {
        if (e.hinted > 0) {
            boolean listed = cache.unlist(e);
            e.hinted = Math.max(0, e.hinted - slots);
            if (e.hinted == 0) {
                e.due = Long.MAX_VALUE;
            }
            if (listed) {
                cache.list(e);
            }
            if (e.hinted == 0) {
                wakeStarved();
            }
        }
    }

    /** Creates and indexes a QUEUED extent from {@code block}, never overlapping an existing one. Lock held. */
    private Extent newExtent(int request, int block, int limit) {
        int count = segments.index().entry(request).count();
        int to = cache.clip(request, block, Math.min(Math.min(count, limit), block + readAheadBlocks));
        Extent e = new Extent(nextId++, request, block, to, segments.diskPosition(request, block));
        cache.add(e);
        queue.created();
        return e;
    }

    /**
     * Picks the next extent to read and gives it memory, or returns null if there is nothing to
     * do now. Demand reads go first, in elevator order (beyond the limit only into memory that
     * holds no announced data); hinted reads follow soonest-due first, but only into memory that
     * holds no announced data due sooner. Lock held.
     */
    private Extent takeNext() {
        int limit = concurrency.limit();
        if (readsInFlight >= limit && burstsInFlight >= burst) {
            return null;
        }
        long now = nanoTime.getAsLong();
        if (queue.hasDemand()) {
            Extent e = queue.peekDemand(now);
            boolean beyond = readsInFlight >= limit;
            BuddyPool.Allocation memory = beyond ? cache.acquireUnannounced(readBytes(e), now)
                    : cache.acquire(readBytes(e), true, e.due, now);
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
        while (queue.hasHints() && prefetchesInFlight < prefetchLimit()) {
            Extent e = queue.peekHint();
            if (e.hinted == 0 || now - e.due > staleNanos()) {
                // Every slot that wanted it was fetched already, or it was re-planned away: not worth a read.
                queue.remove(e);
                cache.remove(e);
                continue;
            }
            BuddyPool.Allocation memory = cache.acquire(readBytes(e), false, e.due, now);
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

    /** Prefetch reads allowed in flight: every read slot but one, at least one. */
    private int prefetchLimit() {
        return Math.max(1, concurrency.limit() - 1);
    }

    private long staleNanos() {
        return STALE_NANOS + pace.leadNanos();
    }

    private int readBytes(Extent e) {
        return (int) segments.readLength(e.request, e.from, e.to);
    }

    private Extent start(Extent e, BuddyPool.Allocation memory) {
        queue.take(e, segments.diskPosition(e.request, e.to));
        e.state = Extent.State.LOADING;
        e.memory = memory;
        return e;
    }

    /**
     * Wakes one I/O thread if another read may start now. A thread that found no memory it may
     * take sleeps until memory is released; a new demand read within the limit may evict more
     * than a prefetch may, so it wakes a thread even then. Beyond the limit, a demand read wakes
     * a thread only if memory that nobody announced is there to take. Lock held.
     */
    private void signalIfRoom(boolean demand) {
        if (readsInFlight < concurrency.limit() ? demand || !starved
                : demand && burstsInFlight < burst
                        && cache.hasUnannounced(readBytes(queue.peekDemand(nanoTime.getAsLong())), nanoTime.getAsLong())) {
            work.signal();
        }
    }

    private void wakeStarved() {
        if (starved) {
            starved = false;
            work.signal();
        }
    }

    /**
     * Reads {@code e} (I/O thread, no lock), serves the fetches waiting for it, then in one
     * critical section publishes it READY and takes the next extent this thread reads (returned,
     * or null). Serving needs no lock: the extent stays LOADING, so nothing evicts it, and its
     * waiters are handed over under its own monitor until it is sealed; fetches that find it
     * sealed copy their block out themselves under a pin. So a read costs the I/O thread one
     * acquisition of the store lock.
     */
    private Extent load(Extent e) {
        IOException failure = null;
        long t0 = nanoTime.getAsLong();
        try {
            e.dataStart = segments.read(e.request, e.from, e.to, e.memory.buffer());
            counters.readCalls.increment();
            counters.bytesRead.add(segments.readLength(e.request, e.from, e.to));
        } catch (IOException | RuntimeException ex) {
            failure = new IOException("reading blocks " + e.from + ".." + (e.to - 1) + " of request " + e.request
                    + " from " + segments.path(e.request) + " failed: " + ex, ex);
        }
        long latency = nanoTime.getAsLong() - t0;
        int served = 0;
        if (failure == null) {
            for (List<Extent.Waiter> batch = e.drainOrSeal(); !batch.isEmpty(); batch = e.drainOrSeal()) {
                if (served > 0) {
                    // Fetches that arrived after the first hand-over found the data already read.
                    // Counted before completing, so a caller that sees the block also sees the count.
                    counters.blocksFromMemory.add(batch.size());
                }
                for (Extent.Waiter w : batch) {
                    serve(e, w.block, w.future);
                }
                served += batch.size();
            }
            Runnable hook = afterHandOverForTesting;
            if (hook != null) {
                hook.run();
            }
        }
        List<Extent.Waiter> failed = List.of();
        Extent next = null;
        lock.lock();
        try {
            if (e.burst) {
                e.burst = false;
                burstsInFlight--;
            } else {
                readsInFlight--;
            }
            if (failure == null) {
                concurrency.completed(latency);
            }
            if (e.prefetching) {
                e.prefetching = false;
                prefetchesInFlight--;
            }
            if (failure == null) {
                // Also when closed: a fetch may still copy from it under a pin; close forgets it.
                if (cache.loaded(e)) {
                    wakeStarved();
                }
                consumeHints(e, served);
            } else {
                failed = e.drain();
                cache.remove(e);
                cache.release(e);
                starved = false;
            }
            if (!closed) {
                next = takeNext();
                if ((queue.hasDemand() || queue.hasHints()) && readsInFlight < concurrency.limit()) {
                    work.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        for (Extent.Waiter w : failed) {
            w.future.completeExceptionally(failure);
        }
        return next;
    }

    /** Completes {@code f} with block {@code block} copied out of pinned extent {@code e}. */
    private void serve(Extent e, int block, CompletableFuture<Block> f) {
        int at = e.dataStart + (block - e.from) * segments.index().blockSize;
        try {
            Block b = segments.decode(e.request, block, e.memory.buffer(), at);
            // Counted before completing, so a caller that sees the block also sees the count.
            counters.blocksServed.increment();
            if (!f.complete(b)) {
                counters.blocksServed.decrement();
            }
        } catch (BlockCorruptedException ex) {
            counters.corruptBlocks.increment();
            f.completeExceptionally(ex);
        }
    }

    private void unpin(Extent e) {
        lock.lock();
        try {
            if (cache.unpin(e)) {
                wakeStarved();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long allocatedBytes() {
        return cache.pool().capacityBytes();
    }

    @Override
    public long peakBytes() {
        lock.lock();
        try {
            return cache.pool().peakBytes();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long capacityBytes() {
        return cache.pool().capacityBytes();
    }

    /** Test view: bytes of the pool holding or awaiting data (never more than its capacity). */
    long bytesInUse() {
        lock.lock();
        try {
            return cache.pool().usedBytes();
        } finally {
            lock.unlock();
        }
    }

    /** Test and benchmark view: extents evicted as {cold, still announced}. */
    long[] evictions() {
        lock.lock();
        try {
            return new long[] {cache.evictedCold(), cache.evictedAnnounced()};
        } finally {
            lock.unlock();
        }
    }

    /** Test view: the current limit on reads in flight. */
    int readLimit() {
        lock.lock();
        try {
            return concurrency.limit();
        } finally {
            lock.unlock();
        }
    }

    /** Test hook: {@code hook} runs on the I/O thread after each hand-over, before the loader takes the lock. */
    void afterHandOverForTesting(Runnable hook) {
        this.afterHandOverForTesting = hook;
    }

    /** Test view: demand reads started beyond the adaptive limit. */
    long burstReads() {
        lock.lock();
        try {
            return burstReads;
        } finally {
            lock.unlock();
        }
    }

    /** The number of I/O threads. */
    int ioThreads() {
        return loop.threadCount();
    }

    @Override
    public void close() {
        List<Extent.Waiter> orphans = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Extent e : cache.notReady()) {
                orphans.addAll(e.drain());
            }
            queue.clear();
            work.signalAll();
        } finally {
            lock.unlock();
        }
        for (Extent.Waiter w : orphans) {
            w.future.completeExceptionally(BlockReader.closedError(name, w.request, w.block));
        }
        loop.join();
        lock.lock();
        try {
            cache.clear();
        } finally {
            lock.unlock();
        }
    }
}
