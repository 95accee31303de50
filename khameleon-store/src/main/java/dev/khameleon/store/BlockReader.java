package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * One read strategy: how fetches of already-validated (request, block) pairs become disk reads.
 * Implementations are thread-safe; {@link #fetch} and {@link #prefetch} never block on I/O.
 */
interface BlockReader extends AutoCloseable {

    /** Fetches a block; ids are already range-checked by the store. */
    CompletableFuture<Block> fetch(int requestId, int blockIndex);

    /** A hint that {@code chunk}'s blocks will be fetched soon, in order. */
    void prefetch(ScheduleChunk chunk);

    /** Bytes of read buffers allocated now. */
    long allocatedBytes();

    /** The most bytes of read buffers that held data at once. */
    long peakBytes();

    /** The bound on read buffer bytes. */
    long capacityBytes();

    /**
     * Fails every fetch not yet completed with an {@link IllegalStateException} saying the store
     * was closed, stops accepting new ones, and waits for the I/O threads to finish their
     * current read and exit. Idempotent.
     */
    @Override
    void close();

    /** Counters shared by the store and its reader. */
    final class Counters {
        final LongAdder readCalls = new LongAdder();
        final LongAdder bytesRead = new LongAdder();
        final LongAdder blocksServed = new LongAdder();
        final LongAdder blocksFromMemory = new LongAdder();
        final LongAdder corruptBlocks = new LongAdder();
        final LongAdder hintsDropped = new LongAdder();
    }

    static IllegalStateException closedError(String storeName, int requestId, int blockIndex) {
        return new IllegalStateException("FileBlockStore " + storeName + " was closed before block " + blockIndex
                + " of request " + requestId + " was read");
    }
}
