package dev.khameleon.core.spi;

import dev.khameleon.core.Block;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** An immutable, validated, in-memory block source. */
final class InMemoryBlockSource implements BlockSource {
    private final int blockSize;
    private final Block[][] blocks;

    InMemoryBlockSource(int blockSize, List<List<Block>> responses) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        if (responses.isEmpty()) {
            throw new IllegalArgumentException("at least one response is required");
        }
        this.blockSize = blockSize;
        this.blocks = new Block[responses.size()][];
        for (int r = 0; r < blocks.length; r++) {
            List<Block> response = responses.get(r);
            if (response.isEmpty()) {
                throw new IllegalArgumentException("response " + r + " has no blocks");
            }
            blocks[r] = response.toArray(new Block[0]);
            for (int i = 0; i < blocks[r].length; i++) {
                Block b = blocks[r][i];
                if (b.requestId() != r || b.index() != i || b.count() != blocks[r].length) {
                    throw new IllegalArgumentException("response " + r + ", position " + i + ": expected block " + i
                            + "/" + blocks[r].length + " of request " + r + ", got " + b);
                }
                if (b.size() != blockSize) {
                    throw new IllegalArgumentException("response " + r + ", block " + i + " has " + b.size()
                            + " bytes, expected block size " + blockSize);
                }
            }
        }
    }

    @Override
    public int requestCount() {
        return blocks.length;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int blockCount(int requestId) {
        return blocks[requestId].length;
    }

    @Override
    public boolean fetchesImmediately() {
        return true;
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        if (requestId < 0 || requestId >= blocks.length) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "request id " + requestId + " out of range [0, " + blocks.length + ")"));
        }
        Block[] response = blocks[requestId];
        if (blockIndex < 0 || blockIndex >= response.length) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "block index " + blockIndex + " out of range [0, " + response.length + ") for request " + requestId));
        }
        return CompletableFuture.completedFuture(response[blockIndex]);
    }
}
