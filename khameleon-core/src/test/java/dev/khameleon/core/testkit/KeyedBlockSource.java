package dev.khameleon.core.testkit;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A block source for tests of per-session request scopes: every request and every content key
 * has {@code blocksPerRequest} blocks whose payload says what they answer (bytes 0..7 the content
 * key, big-endian, bytes 8..11 the block index), so a test can tell old content from new by
 * {@link #contentKeyOf}. A request's default content has its id as key. Optionally, fetches of
 * default content are held back until a gate completes, to put blocks of an old binding on the
 * wire after a rebind. Thread-safe; fetches never block.
 */
public final class KeyedBlockSource implements BlockSource {
    private final int requestCount;
    private final int blocksPerRequest;
    private final int blockSize;
    private final CompletableFuture<Void> firstFetch = new CompletableFuture<>();
    private volatile CompletionStage<?> defaultContentGate = CompletableFuture.completedFuture(null);

    /** {@code requestCount} requests of {@code blocksPerRequest} blocks of {@code blockSize >= 12} bytes. */
    public KeyedBlockSource(int requestCount, int blocksPerRequest, int blockSize) {
        if (blockSize < 12) {
            throw new IllegalArgumentException("blockSize must be >= 12 to hold the key and index, was " + blockSize);
        }
        this.requestCount = requestCount;
        this.blocksPerRequest = blocksPerRequest;
        this.blockSize = blockSize;
    }

    /** Holds back every fetch of a request's default content until {@code gate} completes; returns this. */
    public KeyedBlockSource holdDefaultContentUntil(CompletionStage<?> gate) {
        this.defaultContentGate = gate;
        return this;
    }

    /** Completes when the first fetch is asked for (the server has planned something). */
    public CompletionStage<Void> firstFetch() {
        return firstFetch;
    }

    /** The content key a block of this source answers. */
    public static long contentKeyOf(Block block) {
        return ByteBuffer.wrap(block.payloadBytes()).getLong();
    }

    @Override
    public int requestCount() {
        return requestCount;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int blockCount(int requestId) {
        return blocksPerRequest;
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return fetch(requestId, requestId, blockIndex);
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        firstFetch.complete(null);
        byte[] p = new byte[blockSize];
        ByteBuffer.wrap(p).putLong(contentKey).putInt(blockIndex);
        Block b = Block.wrap(requestId, blockIndex, blocksPerRequest, p, 0);
        return contentKey == requestId ? defaultContentGate.thenApply(v -> b) : CompletableFuture.completedFuture(b);
    }
}
