package dev.khameleon.bench.live;

import dev.khameleon.bench.sim.Workload;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The simulator's workload as a block source: every request's image of
 * {@link Workload#imageBytes()} cut into {@link Workload#blocksPerResponse()} blocks of
 * {@link Workload#blockBytes()}, the last one padded. Payloads are zero bytes (one shared,
 * never written array): only sizes and counts matter to the push. Thread-safe; fetches complete
 * at once.
 */
final class ZeroBlockSource implements BlockSource {
    private final Workload workload;
    private final byte[] zeros;
    private final int count;
    private final int lastPadding;

    ZeroBlockSource(Workload workload) {
        this.workload = workload;
        this.zeros = new byte[workload.blockBytes()];
        this.count = workload.blocksPerResponse();
        this.lastPadding = (int) ((long) count * workload.blockBytes() - workload.imageBytes());
    }

    @Override
    public int requestCount() {
        return workload.requestCount();
    }

    @Override
    public int blockSize() {
        return workload.blockBytes();
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
