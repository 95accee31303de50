package dev.khameleon.simulator;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The simulator's workload as a block source, for the simulator's push engine and the live
 * replay's server alike: every request's response cut into blocks of one size, the last one
 * padded. Payloads are zero bytes (one shared, never written array): only sizes and counts
 * matter to the push. Thread-safe; fetches complete at once.
 */
public final class ZeroBlockSource implements BlockSource {
    private final int requestCount;
    private final int blockBytes;
    private final byte[] zeros;
    private final int count;
    private final int lastPadding;

    /**
     * Every request's image of {@link Workload#imageBytes()} in {@link Workload#blocksPerResponse()}
     * blocks of {@link Workload#blockBytes()}.
     */
    public ZeroBlockSource(Workload workload) {
        this(workload.requestCount(), workload.blockBytes(), workload.blocksPerResponse(),
                (int) ((long) workload.blocksPerResponse() * workload.blockBytes() - workload.imageBytes()));
    }

    /**
     * {@code requestCount} responses of {@code count} blocks of {@code blockBytes}, the last one
     * with {@code lastPadding} bytes of padding.
     */
    public ZeroBlockSource(int requestCount, int blockBytes, int count, int lastPadding) {
        this.requestCount = requestCount;
        this.blockBytes = blockBytes;
        this.zeros = new byte[blockBytes];
        this.count = count;
        this.lastPadding = lastPadding;
    }

    @Override
    public int requestCount() {
        return requestCount;
    }

    @Override
    public int blockSize() {
        return blockBytes;
    }

    @Override
    public int blockCount(int requestId) {
        return count;
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return CompletableFuture.completedFuture(Block.wrap(requestId, blockIndex, count, zeros,
                blockIndex == count - 1 ? lastPadding : 0));
    }

    @Override
    public boolean fetchesImmediately() {
        return true;
    }
}
