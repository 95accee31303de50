package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** Block sources and applications for the server tests. */
final class TestApps {
    private TestApps() {
    }

    /** The payload byte {@code i} of block {@code index} of {@code request}: recognisable, deterministic. */
    static byte payloadByte(int request, int index, int i) {
        return (byte) (request * 31 + index * 7 + i);
    }

    static Block block(int request, int index, int count, int blockSize) {
        byte[] p = new byte[blockSize];
        for (int i = 0; i < blockSize; i++) {
            p[i] = payloadByte(request, index, i);
        }
        return Block.wrap(request, index, count, p, 0);
    }

    /** {@code n} requests of {@code blocksPerRequest} blocks of {@code blockSize} bytes, in memory. */
    static BlockSource inMemory(int n, int blocksPerRequest, int blockSize) {
        List<List<Block>> responses = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            List<Block> blocks = new ArrayList<>(blocksPerRequest);
            for (int b = 0; b < blocksPerRequest; b++) {
                blocks.add(block(r, b, blocksPerRequest, blockSize));
            }
            responses.add(blocks);
        }
        return BlockSource.inMemory(blockSize, responses);
    }

    /** How a test source answers a fetch. */
    @FunctionalInterface
    interface Fetch {
        CompletionStage<Block> fetch(int requestId, int blockIndex);
    }

    /** {@code delegate}'s requests and geometry, with fetches answered by {@code fetch}. */
    static BlockSource withFetch(BlockSource delegate, Fetch fetch) {
        return withFetch(delegate, fetch, false);
    }

    /**
     * {@code delegate}'s requests and geometry, with fetches answered by {@code fetch}, declaring
     * {@link BlockSource#fetchesImmediately()} as {@code immediately}.
     */
    static BlockSource withFetch(BlockSource delegate, Fetch fetch, boolean immediately) {
        return new BlockSource() {
            @Override
            public boolean fetchesImmediately() {
                return immediately;
            }

            @Override
            public int requestCount() {
                return delegate.requestCount();
            }

            @Override
            public int blockSize() {
                return delegate.blockSize();
            }

            @Override
            public int blockCount(int requestId) {
                return delegate.blockCount(requestId);
            }

            @Override
            public CompletionStage<Block> fetch(int requestId, int blockIndex) {
                return fetch.fetch(requestId, blockIndex);
            }
        };
    }

}
