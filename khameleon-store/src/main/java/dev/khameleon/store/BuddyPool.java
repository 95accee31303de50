package dev.khameleon.store;

import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * A fixed arena of aligned direct memory handed out in power-of-two blocks (a buddy allocator),
 * so a read of any size up to {@link #maxBlockBytes()} gets one contiguous, 4096-aligned buffer
 * and small reads cost small memory. The arena is allocated once, up front.
 *
 * <p>Not thread-safe: the owner guards it with its own lock.
 */
final class BuddyPool {
    /** One handed-out block: {@code buffer} is a view of the arena from {@code offset}. */
    record Allocation(int offset, int order, ByteBuffer buffer) {
    }

    private static final int MIN_SHIFT = 12;

    private final ByteBuffer arena;
    private final int maxOrder;
    private final BitSet[] free;
    private final long capacity;
    private long used;
    private long peak;

    /**
     * An arena of {@code capacityBytes} rounded down to whole blocks of
     * {@code nextPowerOfTwo(maxAllocationBytes)}.
     *
     * @throws IllegalArgumentException if the arena would hold no block or exceed 1 GiB
     */
    BuddyPool(long capacityBytes, int maxAllocationBytes) {
        int maxBlock = 1 << MIN_SHIFT;
        while (maxBlock < maxAllocationBytes) {
            maxBlock <<= 1;
        }
        this.maxOrder = Integer.numberOfTrailingZeros(maxBlock) - MIN_SHIFT;
        long blocks = capacityBytes / maxBlock;
        if (blocks < 1 || capacityBytes > (1L << 30)) {
            throw new IllegalArgumentException("pool of " + capacityBytes + " bytes must hold at least one " + maxBlock
                    + "-byte block and at most 1 GiB");
        }
        this.capacity = blocks * maxBlock;
        this.arena = Segments.allocateAligned((int) capacity);
        this.free = new BitSet[maxOrder + 1];
        for (int k = 0; k <= maxOrder; k++) {
            free[k] = new BitSet((int) (capacity >> (MIN_SHIFT + k)));
        }
        free[maxOrder].set(0, (int) blocks);
    }

    int maxBlockBytes() {
        return 1 << (MIN_SHIFT + maxOrder);
    }

    long capacityBytes() {
        return capacity;
    }

    long usedBytes() {
        return used;
    }

    long peakBytes() {
        return peak;
    }

    /** The smallest order whose blocks hold {@code bytes}, or -1 if none does. */
    private int orderFor(int bytes) {
        int order = 0;
        while ((1 << (MIN_SHIFT + order)) < bytes) {
            order++;
            if (order > maxOrder) {
                return -1;
            }
        }
        return order;
    }

    /**
     * A block of at least {@code bytes}, or null if no free block is large enough now.
     *
     * @throws IllegalArgumentException if {@code bytes} exceeds {@link #maxBlockBytes()}
     */
    Allocation allocate(int bytes) {
        int order = orderFor(bytes);
        if (order < 0) {
            throw new IllegalArgumentException(bytes + " bytes exceed the pool's largest block " + maxBlockBytes());
        }
        int k = order;
        int index = -1;
        while (k <= maxOrder && (index = free[k].nextSetBit(0)) < 0) {
            k++;
        }
        if (index < 0) {
            return null;
        }
        free[k].clear(index);
        while (k > order) {
            // Split: keep the lower half, free the upper half one order down.
            k--;
            index <<= 1;
            free[k].set(index + 1);
        }
        int offset = index << (MIN_SHIFT + order);
        int size = 1 << (MIN_SHIFT + order);
        used += size;
        peak = Math.max(peak, used);
        return new Allocation(offset, order, arena.slice(offset, size));
    }

    /** Returns {@code a} to the pool, merging it with its free buddies. */
    void free(Allocation a) {
        int k = a.order();
        int index = a.offset() >> (MIN_SHIFT + k);
        used -= 1L << (MIN_SHIFT + k);
        while (k < maxOrder && free[k].get(index ^ 1)) {
            free[k].clear(index ^ 1);
            index >>= 1;
            k++;
        }
        free[k].set(index);
    }
}
