package dev.khameleon.store;

/**
 * A snapshot of a {@link FileBlockStore}'s counters since it was opened. Values are read without
 * a common lock, so they are individually exact but not mutually consistent under load.
 *
 * @param strategy the read strategy in use
 * @param directIo whether reads bypass the page cache ({@code O_DIRECT})
 * @param readCalls positional read calls issued to the file system
 * @param bytesRead bytes those calls read (aligned envelopes included)
 * @param blocksServed fetches completed successfully
 * @param blocksFromMemory of those, fetches served from already-read pool memory
 * @param corruptBlocks fetches that failed a checksum
 * @param hintsDropped prefetch hints ignored because the hint queue was full
 * @param poolCapacityBytes the configured bound on read buffer memory
 * @param poolAllocatedBytes read buffer memory allocated now (pools are allocated when the store opens)
 * @param poolPeakBytes the most read buffer memory that held or awaited data at once
 */
public record StoreStats(ReadStrategy strategy, boolean directIo, long readCalls, long bytesRead, long blocksServed,
        long blocksFromMemory, long corruptBlocks, long hintsDropped, long poolCapacityBytes, long poolAllocatedBytes,
        long poolPeakBytes) {
}
