package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link ReadStrategy#SERIALIZED_READAHEAD} and {@link ReadStrategy#SCHEDULE_AWARE}: a few I/O
 * threads read whole ranges of responses ("extents") into a bounded {@link BuddyPool}, and fetches
 * are served from that memory.
 *
 * <p>State machine of an {@link Extent}: QUEUED (waiting in the demand queue, sorted by disk
 * position, or the hint queue, in schedule order) → LOADING (an I/O thread owns it and its memory)
 * → READY (in the pool, evictable when unpinned) → evicted (its memory freed). A failed read drops
 * the extent. All state is guarded by {@link #lock}; byte copies happen outside it, protected by
 * the extent's pin count, so memory is never reused while a block is copied out of it.
 *
 * <p>Reads a sender waits for use every I/O thread; prefetch reads (from hints) run one at a
 * time, so that with many sessions they cannot crowd out demand reads and flood the pool with
 * announced data that then gets evicted before it is fetched.
 *
 * <p>Bounds: the pool's bytes, allocated when the reader opens, at most
 * {@code maxPendingReads} queued extents (fetches beyond fail at once), at most
 * {@code maxPendingReads} queued hints (further hints are dropped and counted).
 */
final class ReadAheadReader implements BlockReader {
    private enum State { QUEUED, LOADING, READY }

    private static final class Waiter {
        final int request;
        final int block;
        final CompletableFuture<Block> future = new CompletableFuture<>();

        Waiter(int request, int block) {
            this.request = request;
            this.block = block;
        }
    }

    private static final class Extent {
        final int request;
        final int from;
        final int to;
        final long position;
        State state = State.QUEUED;
        boolean demanded;
        /** Whether an I/O thread started it from the hint queue (not for a waiting sender). */
        boolean prefetching;
        BuddyPool.Allocation memory;
        int dataStart;
        int pins;
        /** Slots of announced chunks that still expect a block of this extent. */
        int hinted;
        List<Waiter> waiters = new ArrayList<>(2);

        Extent(int request, int from, int to, long position) {
            this.request = request;
            this.from = from;
            this.to = to;
            this.position = position;
        }

        boolean covers(int block) {
            return block >= from && block < to;
        }
    }

    private final Segments segments;
    private final Counters counters;
    private final String name;
    private final boolean useHints;
    private final int readAheadBlocks;
    private final BuddyPool pool;
    private final int maxPending;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Map<Integer, List<Extent>> byRequest = new HashMap<>();
    private final TreeMap<Long, Extent> demandQueue = new TreeMap<>();
    private final ArrayDeque<Extent> hintQueue = new ArrayDeque<>();
    /** READY extents in least-recently-used order (access moves to the end). */
    private final LinkedHashSet<Extent> ready = new LinkedHashSet<>();
    private final Thread[] threads;
    private int queued;
    /** Prefetch reads in flight: at most one, so prefetching stays serialized (Libception). */
    private int prefetchesInFlight;
    private long head;
    private boolean closed;

    ReadAheadReader(Segments segments, Counters counters, String name, boolean useHints, int ioThreads,
            int readAheadBytes, long poolBytes, int maxPendingReads) {
        this.segments = segments;
        this.counters = counters;
        this.name = name;
        this.useHints = useHints;
        int blockSize = segments.index().blockSize;
        this.readAheadBlocks = Math.max(1, readAheadBytes / blockSize);
        int largestRead = Segments.envelopeBytes(blockSize, readAheadBlocks);
        int largestBlock = Integer.highestOneBit(largestRead - 1) << 1;
        if (poolBytes / largestBlock < ioThreads + 1L) {
            throw new IllegalArgumentException("poolBytes " + poolBytes + " holds " + (poolBytes / largestBlock)
                    + " read-ahead reads of up to " + largestBlock + " bytes; at least ioThreads + 1 = "
                    + (ioThreads + 1) + " are needed");
        }
        // Allocated up front: first-touch of fresh memory is slow (milliseconds per MiB on a busy
        // VM) and must not sit on the read path; the bound is then also the footprint.
        this.pool = new BuddyPool(poolBytes, largestRead);
        this.maxPending = maxPendingReads;
        this.threads = new Thread[ioThreads];
        for (int i = 0; i < ioThreads; i++) {
            threads[i] = new Thread(this::ioLoop, "khameleon-store-" + name + "-io-" + (i + 1));
            threads[i].setDaemon(true);
            threads[i].start();
        }
    }

    @Override
    public CompletableFuture<Block> fetch(int requestId, int blockIndex) {
        Extent hit;
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(BlockReader.closedError(name, requestId, blockIndex));
            }
            Extent e = find(requestId, blockIndex);
            if (e == null) {
                if (queued >= maxPending) {
                    return CompletableFuture.failedFuture(new IllegalStateException("FileBlockStore " + name
                            + ": too many reads pending (" + queued + "); block " + blockIndex + " of request "
                            + requestId + " was not queued"));
                }
                // Blind read-ahead serves SERIALIZED_READAHEAD; with the schedule's hints a miss reads
                // just its block: read-ahead past what was announced was measured to be mostly wasted
                // and to evict announced data (docs/file-store.md).
                int limit = useHints ? blockIndex + 1 : segments.index().entry(requestId).count();
                e = newExtent(requestId, blockIndex, limit);
                e.demanded = true;
                demandQueue.put(e.position, e);
                work.signal();
            }
            if (e.state != State.READY) {
                Waiter w = new Waiter(requestId, blockIndex);
                e.waiters.add(w);
                if (!e.demanded && e.state == State.QUEUED) {
                    // A hinted read the sender now waits for: move it to the demand queue.
                    e.demanded = true;
                    demandQueue.put(e.position, e);
                    work.signal();
                }
                return w.future;
            }
            hit = e;
            hit.pins++;
            ready.remove(hit);
            ready.add(hit);
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
        // Merge the chunk per response, keeping the order in which responses first appear.
        LinkedHashMap<Integer, List<Integer>> wanted = new LinkedHashMap<>();
        int n = segments.index().size();
        for (int k = 0; k < chunk.size(); k++) {
            int r = chunk.requestId(k);
            int b = chunk.blockIndex(k);
            if (r >= 0 && r < n && b >= 0 && b < segments.index().entry(r).count()) {
                wanted.computeIfAbsent(r, x -> new ArrayList<>()).add(b);
            }
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            boolean added = false;
            for (Map.Entry<Integer, List<Integer>> m : wanted.entrySet()) {
                int r = m.getKey();
                List<Integer> blocks = m.getValue();
                blocks.sort(null);
                int last = blocks.get(blocks.size() - 1);
                Extent current = null;
                for (int b : blocks) {
                    if (current == null || !current.covers(b)) {
                        current = find(r, b);
                        if (current == null) {
                            if (hintQueue.size() >= maxPending || queued >= maxPending) {
                                counters.hintsDropped.increment();
                                break;
                            }
                            // One read from here to the response's last wanted block, as far as read-ahead allows.
                            current = newExtent(r, b, last + 1);
                            hintQueue.addLast(current);
                            added = true;
                        }
                    }
                    current.hinted++;
                }
            }
            if (added) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Records that {@code slots} announced slots of {@code e} were fetched. Lock held. */
    private void consumeHints(Extent e, int slots) {
        if (e.hinted > 0) {
            e.hinted = Math.max(0, e.hinted - slots);
            if (e.hinted == 0 && !hintQueue.isEmpty()) {
                work.signal();
            }
        }
    }

    /** Creates a QUEUED extent from {@code block}, never overlapping an existing one. Lock held. */
    private Extent newExtent(int request, int block, int limit) {
        int count = segments.index().entry(request).count();
        int to = Math.min(Math.min(count, limit), block + readAheadBlocks);
        List<Extent> list = byRequest.computeIfAbsent(request, x -> new ArrayList<>(2));
        for (Extent other : list) {
            if (other.from > block && other.from < to) {
                to = other.from;
            }
        }
        to = Math.max(to, block + 1);
        Extent e = new Extent(request, block, to, segments.diskPosition(request, block));
        list.add(e);
        queued++;
        return e;
    }

    private Extent find(int request, int block) {
        List<Extent> list = byRequest.get(request);
        if (list != null) {
            for (Extent e : list) {
                if (e.covers(block)) {
                    return e;
                }
            }
        }
        return null;
    }

    private void ioLoop() {
        while (true) {
            Extent e;
            lock.lock();
            try {
                e = null;
                while (e == null) {
                    if (closed) {
                        return;
                    }
                    e = takeNext();
                    if (e == null) {
                        work.awaitUninterruptibly();
                    }
                }
            } finally {
                lock.unlock();
            }
            load(e);
        }
    }

    /**
     * Picks the next extent to read and gives it memory, or returns null if there is nothing to
     * do now. Demand reads go first, in elevator order from the last read position; hinted reads
     * follow in schedule order, but only into memory not holding other unconsumed hints. Lock held.
     */
    private Extent takeNext() {
        if (!demandQueue.isEmpty()) {
            Map.Entry<Long, Extent> next = demandQueue.ceilingEntry(head);
            if (next == null) {
                next = demandQueue.firstEntry();
            }
            BuddyPool.Allocation memory = acquire(next.getValue(), true);
            if (memory == null) {
                return null;
            }
            demandQueue.remove(next.getKey());
            return start(next.getValue(), memory);
        }
        while (!hintQueue.isEmpty() && prefetchesInFlight == 0) {
            Extent e = hintQueue.peekFirst();
            if (e.state != State.QUEUED || e.demanded) {
                hintQueue.pollFirst();
                continue;
            }
            if (e.hinted == 0) {
                // Every slot that wanted it has been fetched (or re-planned) already: not worth a read.
                hintQueue.pollFirst();
                drop(e);
                continue;
            }
            BuddyPool.Allocation memory = acquire(e, false);
            if (memory == null) {
                return null;
            }
            hintQueue.pollFirst();
            e.prefetching = true;
            prefetchesInFlight++;
            return start(e, memory);
        }
        return null;
    }

    private Extent start(Extent e, BuddyPool.Allocation memory) {
        e.state = State.LOADING;
        e.memory = memory;
        queued--;
        head = segments.diskPosition(e.request, e.to);
        return e;
    }

    /**
     * Memory for {@code e}'s read: a free block of the pool, made by evicting least recently used
     * READY extents that are not being copied from (and, for a hinted read, that hold no
     * announced-but-unfetched blocks), or null if that is not possible now. Lock held.
     */
    private BuddyPool.Allocation acquire(Extent e, boolean demand) {
        int bytes = (int) segments.readLength(e.request, e.from, e.to);
        while (true) {
            BuddyPool.Allocation a = pool.allocate(bytes);
            if (a != null) {
                return a;
            }
            Extent victim = null;
            for (Extent r : ready) {
                if (r.pins == 0 && r.hinted == 0) {
                    victim = r;
                    break;
                }
            }
            if (victim == null && demand) {
                for (Extent r : ready) {
                    if (r.pins == 0) {
                        victim = r;
                        break;
                    }
                }
            }
            if (victim == null) {
                return null;
            }
            ready.remove(victim);
            byRequest.get(victim.request).remove(victim);
            cleanup(victim.request);
            pool.free(victim.memory);
            victim.memory = null;
        }
    }

    private void drop(Extent e) {
        List<Extent> list = byRequest.get(e.request);
        if (list != null) {
            list.remove(e);
            cleanup(e.request);
        }
        if (e.state == State.QUEUED) {
            queued--;
        }
    }

    private void cleanup(int request) {
        List<Extent> list = byRequest.get(request);
        if (list != null && list.isEmpty()) {
            byRequest.remove(request);
        }
    }

    private void load(Extent e) {
        IOException failure = null;
        try {
            e.dataStart = segments.read(e.request, e.from, e.to, e.memory.buffer());
            counters.readCalls.increment();
            counters.bytesRead.add(segments.readLength(e.request, e.from, e.to));
        } catch (IOException | RuntimeException ex) {
            failure = new IOException("reading blocks " + e.from + ".." + (e.to - 1) + " of request " + e.request
                    + " from " + segments.path(e.request) + " failed: " + ex, ex);
        }
        List<Waiter> waiters;
        lock.lock();
        try {
            waiters = e.waiters;
            if (e.prefetching) {
                e.prefetching = false;
                prefetchesInFlight--;
                if (!hintQueue.isEmpty()) {
                    work.signal();
                }
            }
            e.waiters = new ArrayList<>(0);
            if (failure != null || closed) {
                drop(e);
                pool.free(e.memory);
                e.memory = null;
                work.signal();
            } else {
                e.state = State.READY;
                ready.add(e);
                e.pins++;
                consumeHints(e, waiters.size());
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            for (Waiter w : waiters) {
                w.future.completeExceptionally(failure);
            }
            return;
        }
        if (e.state != State.READY) {
            return;
        }
        for (Waiter w : waiters) {
            serve(e, w.block, w.future);
        }
        unpin(e);
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
            if (--e.pins == 0) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long allocatedBytes() {
        return pool.capacityBytes();
    }

    @Override
    public long peakBytes() {
        lock.lock();
        try {
            return pool.peakBytes();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long capacityBytes() {
        return pool.capacityBytes();
    }

    /** Test view: bytes of the pool holding or awaiting data (never more than its capacity). */
    long bytesInUse() {
        lock.lock();
        try {
            return pool.usedBytes();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        List<Waiter> orphans = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (List<Extent> list : byRequest.values()) {
                for (Extent e : list) {
                    if (e.state != State.READY) {
                        orphans.addAll(e.waiters);
                        e.waiters = new ArrayList<>(0);
                    }
                }
            }
            demandQueue.clear();
            hintQueue.clear();
            work.signalAll();
        } finally {
            lock.unlock();
        }
        for (Waiter w : orphans) {
            w.future.completeExceptionally(BlockReader.closedError(name, w.request, w.block));
        }
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == Thread.currentThread()) {
                continue;
            }
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        lock.lock();
        try {
            ready.clear();
            byRequest.clear();
        } finally {
            lock.unlock();
        }
    }
}
