package com.example.charts;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ProgressiveEncoder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;

/**
 * Encodes each response the first time one of its blocks is asked for, on the given
 * executor, and keeps it. Block counts must be known up front: the scheduler plans with them.
 */
final class EncodingBlockSource<R> implements BlockSource {
    private final ProgressiveEncoder<R> encoder;
    private final IntFunction<R> loadResponse;
    private final int[] blockCounts;
    private final Executor executor;
    private final ConcurrentHashMap<Integer, CompletableFuture<List<Block>>> encoded = new ConcurrentHashMap<>();

    EncodingBlockSource(ProgressiveEncoder<R> encoder, IntFunction<R> loadResponse, int[] blockCounts,
                        Executor executor) {
        this.encoder = encoder;
        this.loadResponse = loadResponse;
        this.blockCounts = blockCounts.clone();
        this.executor = executor;
    }

    @Override
    public int requestCount() {
        return blockCounts.length;
    }

    @Override
    public int blockSize() {
        return encoder.blockSize();
    }

    @Override
    public int blockCount(int requestId) {
        return blockCounts[requestId];
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        if (requestId < 0 || requestId >= blockCounts.length
                || blockIndex < 0 || blockIndex >= blockCounts[requestId]) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "no block " + blockIndex + " of request " + requestId));
        }
        return encoded
                .computeIfAbsent(requestId, id -> CompletableFuture.supplyAsync(
                        () -> encoder.encode(id, loadResponse.apply(id)), executor))
                .thenApply(blocks -> blocks.get(blockIndex));
    }
}
