package dev.khameleon.client;

import dev.khameleon.core.Block;

import java.util.List;

/**
 * What an application may ask of the client's block cache: which blocks of which requests are
 * present. Read-only: blocks are put, skipped and the ring reset by the connection alone, so the
 * cache stays what the server believes it is. Every method may be called from any thread and
 * answers from one consistent state; results are immutable snapshots.
 */
public interface CacheView {
    /** {@code C}: the number of one-block slots. */
    int capacity();

    /** The sequence number the next block from the server is expected to carry. */
    long nextSeq();

    /** How many slots hold a block. */
    int size();

    /** The length {@code j + 1} of the longest prefix {@code 0..j} of {@code requestId} present (0 if none). */
    int prefixLength(int requestId);

    /**
     * The usable answer for {@code requestId}: its longest prefix of blocks present, in block
     * order; empty if block 0 is absent.
     */
    List<Block> prefix(int requestId);

    /** Whether block {@code blockIndex} of {@code requestId} is present. */
    boolean contains(int requestId, int blockIndex);

    /** How many distinct blocks of {@code requestId} are present, prefix or not. */
    int presentCount(int requestId);

    /** How many blocks the full response of {@code requestId} has, or 0 if none of its blocks is present. */
    int blockCount(int requestId);

    /** How many distinct requests have at least one block present. */
    int requestsPresent();
}
