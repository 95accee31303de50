package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ManifestRun;

import java.util.Arrays;
import java.util.List;

/**
 * The client's block cache: a FIFO ring of {@code C} one-block slots in which the block with
 * sequence number {@code s} goes to slot {@code s mod C}, evicting whatever was there. The
 * behaviour is deterministic so that the server can simulate it exactly and knows, when it
 * plans a block, which block that block will evict.
 *
 * <p>An index from request id to the blocks present answers every lookup in O(1) (plus the
 * length of the answer); nothing scans the ring. The usable answer for a request is its
 * longest prefix of blocks {@code 0..j}: a progressive decoder cannot use block {@code j+1}
 * without block {@code j}.
 *
 * <p><b>Threading.</b> Single writer, many readers: {@link #put} and {@link #reset} must be
 * called by one thread at a time (the connection's receiving thread, or the simulator), in
 * increasing sequence order. Every read ({@link #prefix}, {@link #prefixLength},
 * {@link #contains}, …) and {@link #markUsed} may be called from any thread at any time and sees
 * a consistent state; results are immutable snapshots. Internally every method holds one short
 * lock, so readers never see a half-applied {@code put}.
 *
 * <p><b>Untrusted input.</b> Blocks come from the network. A block that contradicts what the
 * cache holds (a different block count for the same request) or a sequence number that goes
 * backwards is refused with a {@code false} status, never an exception, and never corrupts
 * the index.
 */
public final class RingBufferCache {
    private static final int NOT_PRESENT = -1;

    private final Object lock = new Object();
    private final int capacity;
    private final Block[] slots;
    private final boolean[] used;
    /** (requestId, blockIndex) → the slot holding the newest copy of that block. */
    private final LongIntMap index;
    /** requestId → what is present of that request; only requests with ≥ 1 block present. Not boxed: read for every block. */
    private final IntObjectMap<Present> requests;
    private long nextSeq;
    private int occupied;
    /** This cache seen through {@link CacheView} only: a caller cannot cast it back to a writer. */
    private final CacheView view = new ReadOnly();

    /**
     * Creates an empty cache of {@code capacity} slots whose next expected sequence number is 0.
     *
     * @throws IllegalArgumentException if {@code capacity < 1}
     */
    public RingBufferCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("cacheBlocks must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        this.slots = new Block[capacity];
        this.used = new boolean[capacity];
        this.index = new LongIntMap(capacity);
        this.requests = new IntObjectMap<>(Math.min(capacity, 1 << 16));
    }

    /** A read-only view of this cache, for applications; always the same instance. */
    public CacheView view() {
        return view;
    }

    /** {@code C}: the number of one-block slots. */
    public int capacity() {
        return capacity;
    }

    /**
     * Stores {@code block}, which the server sent with sequence number {@code seq}, in slot
     * {@code seq mod C}, evicting that slot's previous block. Sequence numbers skipped since
     * the last put (a block the server could not send) clear their slots, so the cache never
     * holds more than the server believes it does. Writer thread only.
     *
     * @return {@code true} if stored; {@code false} if refused because {@code seq} is below
     *     {@link #nextSeq()} (stale or duplicate), or because the block's count contradicts the
     *     count of blocks of the same request already present (the slot is then cleared, as the
     *     server believes it overwrote it)
     */
    public boolean put(long seq, Block block) {
        if (block == null) {
            throw new NullPointerException("block");
        }
        synchronized (lock) {
            if (seq < nextSeq) {
                return false;
            }
            long skipFrom = Math.max(nextSeq, seq - capacity + 1);
            for (long s = skipFrom; s < seq; s++) {
                evict(slotOf(s));
            }
            int slot = slotOf(seq);
            evict(slot);
            nextSeq = seq + 1;
            Present present = requests.get(block.requestId());
            if (present != null && present.count != block.count()) {
                return false;
            }
            if (present == null) {
                present = new Present(block.count());
                requests.put(block.requestId(), present);
            }
            slots[slot] = block;
            used[slot] = false;
            occupied++;
            long key = key(block.requestId(), block.index());
            boolean duplicate = index.get(key, NOT_PRESENT) != NOT_PRESENT;
            index.put(key, slot);
            if (!duplicate) {
                present.distinct++;
                if (block.index() == present.prefix) {
                    advancePrefix(block.requestId(), present);
                }
            }
            return true;
        }
    }

    /**
     * Takes the frame with sequence number {@code seq} without storing its block (a block the
     * client refuses, e.g. one answering an old binding of its request): the frame's slot and any
     * slots skipped before it are cleared, as the server believes they were overwritten. Writer
     * thread only.
     *
     * @return {@code false} if {@code seq} is below {@link #nextSeq()} (nothing changes)
     */
    public boolean skip(long seq) {
        synchronized (lock) {
            if (seq < nextSeq) {
                return false;
            }
            for (long s = Math.max(nextSeq, seq - capacity + 1); s <= seq; s++) {
                evict(slotOf(s));
            }
            nextSeq = seq + 1;
            return true;
        }
    }

    /**
     * Drops every block of {@code requestId} present (its meaning changed): its slots become
     * empty and it has no prefix until new blocks arrive. Writer thread only.
     *
     * @return how many blocks were dropped
     */
    public int invalidate(int requestId) {
        synchronized (lock) {
            Present present = requests.get(requestId);
            if (present == null) {
                return 0;
            }
            int dropped = 0;
            // Only the newest copy of each block is indexed; older copies are already invisible.
            for (int b = 0; b < present.count && present.distinct > 0; b++) {
                int slot = index.get(key(requestId, b), NOT_PRESENT);
                if (slot != NOT_PRESENT) {
                    evict(slot);
                    dropped++;
                }
            }
            return dropped;
        }
    }

    /**
     * Empties the cache and makes {@code firstSeq} the next expected sequence number: what a
     * client does when a (re)connected server announces where its stream starts. Writer thread
     * only.
     *
     * @throws IllegalArgumentException if {@code firstSeq < 0}
     */
    public void reset(long firstSeq) {
        if (firstSeq < 0) {
            throw new IllegalArgumentException("firstSeq must be >= 0, was " + firstSeq);
        }
        synchronized (lock) {
            Arrays.fill(slots, null);
            Arrays.fill(used, false);
            index.clear();
            requests.clear();
            occupied = 0;
            nextSeq = firstSeq;
        }
    }

    /**
     * What the ring holds, for resuming a session ({@code docs/protocol.md}, section 8): the
     * {@code min(nextSeq, C)} slots before {@link #nextSeq()}, oldest first, as runs of
     * consecutive blocks of one request ({@link ManifestRun#EMPTY} for empty slots). At most
     * {@code C} runs; an immutable snapshot. Any thread.
     */
    public List<ManifestRun> manifest() {
        synchronized (lock) {
            List<ManifestRun> runs = new java.util.ArrayList<>();
            long first = Math.max(0, nextSeq - capacity);
            int runId = 0;
            int runFirst = 0;
            int runCount = 0;
            for (long s = first; s < nextSeq; s++) {
                Block b = slots[slotOf(s)];
                int id = b == null ? ManifestRun.EMPTY : b.requestId();
                int index = b == null ? 0 : b.index();
                boolean continues = runCount > 0 && id == runId
                        && (id == ManifestRun.EMPTY || index == runFirst + runCount);
                if (continues) {
                    runCount++;
                } else {
                    if (runCount > 0) {
                        runs.add(new ManifestRun(runId, runFirst, runCount));
                    }
                    runId = id;
                    runFirst = index;
                    runCount = 1;
                }
            }
            if (runCount > 0) {
                runs.add(new ManifestRun(runId, runFirst, runCount));
            }
            return List.copyOf(runs);
        }
    }

    /**
     * Marks the blocks {@code 0..prefixLength-1} of {@code requestId} currently present as used
     * in an upcall, for the over-push metric. Any thread (the cache manager calls it from its
     * upcall executor).
     *
     * @return how many of them had not been marked before
     */
    public int markUsed(int requestId, int prefixLength) {
        synchronized (lock) {
            int newlyUsed = 0;
            for (int b = 0; b < prefixLength; b++) {
                int slot = index.get(key(requestId, b), NOT_PRESENT);
                if (slot == NOT_PRESENT) {
                    break;
                }
                if (!used[slot]) {
                    used[slot] = true;
                    newlyUsed++;
                }
            }
            return newlyUsed;
        }
    }

    /** The sequence number the next {@link #put} is expected to carry. */
    public long nextSeq() {
        synchronized (lock) {
            return nextSeq;
        }
    }

    /** How many slots hold a block. */
    public int size() {
        synchronized (lock) {
            return occupied;
        }
    }

    /** The length {@code j + 1} of the longest prefix {@code 0..j} of {@code requestId} present (0 if none). */
    public int prefixLength(int requestId) {
        synchronized (lock) {
            Present present = requests.get(requestId);
            return present == null ? 0 : present.prefix;
        }
    }

    /**
     * The usable answer for {@code requestId}: its longest prefix of blocks present, in block
     * order; empty if block 0 is absent. An immutable snapshot.
     */
    public List<Block> prefix(int requestId) {
        synchronized (lock) {
            Present present = requests.get(requestId);
            if (present == null || present.prefix == 0) {
                return List.of();
            }
            Block[] out = new Block[present.prefix];
            for (int b = 0; b < out.length; b++) {
                out[b] = slots[index.get(key(requestId, b), NOT_PRESENT)];
            }
            return List.of(out);
        }
    }

    /** Whether block {@code blockIndex} of {@code requestId} is present. */
    public boolean contains(int requestId, int blockIndex) {
        if (blockIndex < 0) {
            return false;
        }
        synchronized (lock) {
            return index.get(key(requestId, blockIndex), NOT_PRESENT) != NOT_PRESENT;
        }
    }

    /** How many distinct blocks of {@code requestId} are present, prefix or not. */
    public int presentCount(int requestId) {
        synchronized (lock) {
            Present present = requests.get(requestId);
            return present == null ? 0 : present.distinct;
        }
    }

    /** How many blocks the full response of {@code requestId} has, or 0 if none of its blocks is present. */
    public int blockCount(int requestId) {
        synchronized (lock) {
            Present present = requests.get(requestId);
            return present == null ? 0 : present.count;
        }
    }

    /** How many distinct requests have at least one block present. */
    public int requestsPresent() {
        synchronized (lock) {
            return requests.size();
        }
    }

    private void evict(int slot) {
        Block old = slots[slot];
        if (old == null) {
            return;
        }
        slots[slot] = null;
        used[slot] = false;
        occupied--;
        long key = key(old.requestId(), old.index());
        if (index.get(key, NOT_PRESENT) != slot) {
            return; // a newer copy of the same block lives in another slot
        }
        index.remove(key);
        Present present = requests.get(old.requestId());
        present.distinct--;
        if (present.distinct == 0) {
            requests.remove(old.requestId());
        } else if (old.index() < present.prefix) {
            present.prefix = old.index();
        }
    }

    private void advancePrefix(int requestId, Present present) {
        while (present.prefix < present.count
                && index.get(key(requestId, present.prefix), NOT_PRESENT) != NOT_PRESENT) {
            present.prefix++;
        }
    }

    private int slotOf(long seq) {
        return (int) (seq % capacity);
    }

    private static long key(int requestId, int blockIndex) {
        return ((long) requestId << 32) | (blockIndex & 0xFFFF_FFFFL);
    }

    /** What is present of one request. */
    private static final class Present {
        final int count;
        int distinct;
        int prefix;

        Present(int count) {
            this.count = count;
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "RingBufferCache[capacity=" + capacity + ", occupied=" + occupied + ", requests=" + requests.size()
                    + ", nextSeq=" + nextSeq + "]";
        }
    }

    /** Forwards the reads, and only the reads, to this cache. */
    private final class ReadOnly implements CacheView {
        @Override
        public int capacity() {
            return RingBufferCache.this.capacity();
        }

        @Override
        public long nextSeq() {
            return RingBufferCache.this.nextSeq();
        }

        @Override
        public int size() {
            return RingBufferCache.this.size();
        }

        @Override
        public int prefixLength(int requestId) {
            return RingBufferCache.this.prefixLength(requestId);
        }

        @Override
        public List<Block> prefix(int requestId) {
            return RingBufferCache.this.prefix(requestId);
        }

        @Override
        public boolean contains(int requestId, int blockIndex) {
            return RingBufferCache.this.contains(requestId, blockIndex);
        }

        @Override
        public int presentCount(int requestId) {
            return RingBufferCache.this.presentCount(requestId);
        }

        @Override
        public int blockCount(int requestId) {
            return RingBufferCache.this.blockCount(requestId);
        }

        @Override
        public int requestsPresent() {
            return RingBufferCache.this.requestsPresent();
        }

        @Override
        public String toString() {
            return RingBufferCache.this.toString();
        }
    }
}
