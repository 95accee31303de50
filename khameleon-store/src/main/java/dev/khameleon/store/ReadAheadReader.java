package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.io.IOException;
import java.util.ArrayList;
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
 * announced data due last), {@link Announcements} (what the schedule announced, and when it is
 * due), a {@link ReadAdmission} (which read starts next, and how many are in flight within a
 * {@link ReadConcurrency} limit) and an {@link IoLoop} (the threads). This class ties them
 * together under one lock; every critical section does constant or logarithmic work, and byte
 * copies and CRC checks happen outside the lock, protected by the extent's pin count (or, while
 * its loader hands it out, by its LOADING state), so memory is never reused while a block is
 * copied out of it.
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
    /** How long a demand read may wait before it goes ahead of the elevator order: about one disk seek. */
    static final long DEMAND_DEADLINE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
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
    private final Announcements hints;
    private final ReadConcurrency concurrency;
    private final ReadAdmission admission;
    private final IoLoop<Extent> loop;
    /** Test hook: runs on the I/O thread after it sealed a loaded extent, before it takes the lock. */
    private volatile Runnable afterHandOverForTesting;
    private long nextId;
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
        int burst = concurrency.adaptive()
                ? (int) Math.max(0, Math.min(demandBurstReads, fit - 1 - concurrency.max())) : 0;
        // Allocated up front: first-touch of fresh memory is slow (milliseconds per MiB on a busy
        // VM) and must not sit on the read path; the bound is then also the footprint.
        this.cache = new ExtentCache(new BuddyPool(poolBytes, largestRead), this::staleNanos, this::requeue);
        this.queue = new ReadQueue(maxPendingReads, DEMAND_DEADLINE_NANOS);
        this.hints = new Announcements(cache, queue, counters, this::newExtent, nanoTime);
        this.admission = new ReadAdmission(concurrency, burst, queue, cache,
                e -> (int) segments.readLength(e.request, e.from, e.to), e -> segments.diskPosition(e.request, e.to),
                work, nanoTime, hints::staleNanos);
        this.loop = new IoLoop<>(lock, work, "khameleon-store-" + name + "-io-", concurrency.max() + burst, new IoLoop.Jobs<>() {
            @Override
            public Extent next() {
                return admission.next();
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
                admission.signalIfRoom(true);
            }
            hints.fetched(e);
            if (e.state != Extent.State.READY) {
                Extent.Waiter w = e.addWaiter(requestId, blockIndex);
                if (w != null) {
                    if (!e.demanded && e.state == Extent.State.QUEUED) {
                        // A hinted read the sender now waits for: move it to the demand queue.
                        queue.demand(e, nanoTime.getAsLong());
                        admission.signalIfRoom(true);
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
        Map<Integer, List<Long>> wanted = Announcements.byResponse(chunk, segments.index());
        long now = nanoTime.getAsLong();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (hints.announce(wanted, now) && admission.hasPrefetchRoom()) {
                admission.signalIfRoom(false);
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

    /** For the cache, which is built before the announcements it consults. Lock held. */
    private long staleNanos() {
        return hints.staleNanos();
    }

    /** Records that {@code slots} announced slots of {@code e} were fetched. Lock held. */
    private void consumeHints(Extent e, int slots) {
        if (hints.consume(e, slots)) {
            admission.wakeStarved();
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
            admission.finished(e, failure == null, latency);
            if (failure == null) {
                // Also when closed: a fetch may still copy from it under a pin; close forgets it.
                if (cache.loaded(e)) {
                    admission.wakeStarved();
                }
                consumeHints(e, served);
            } else {
                failed = e.drain();
                cache.remove(e);
                cache.release(e);
            }
            if (!closed) {
                next = admission.next();
                admission.signalIfMore();
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
                admission.wakeStarved();
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
            return admission.burstReads();
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
