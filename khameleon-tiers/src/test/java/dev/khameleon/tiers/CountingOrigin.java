package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An origin of {@code n} requests of {@code blocks} blocks whose bytes are a function of (content
 * key, block, byte): it counts computations (fetches of block 0), tracks how many run at once, and
 * can take {@code delayMillis} per response, as an encoder or a database would.
 */
final class CountingOrigin implements BlockSource {
    final int n;
    final int blocks;
    final int blockSize;
    final long delayMillis;
    final AtomicInteger computations = new AtomicInteger();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger maxRunning = new AtomicInteger();
    final ConcurrentHashMap<Long, AtomicInteger> perKey = new ConcurrentHashMap<>();
    volatile boolean failing;
    /** While set, every computation waits for it to complete: a test's hold on work in flight. */
    volatile CompletableFuture<Void> gate;

    CountingOrigin(int n, int blocks, int blockSize, long delayMillis) {
        this.n = n;
        this.blocks = blocks;
        this.blockSize = blockSize;
        this.delayMillis = delayMillis;
    }

    static byte payloadByte(long contentKey, int index, int i) {
        return (byte) (contentKey * 31 + index * 7 + i * 13);
    }

    /** The block a correct stack returns for (request, content key, index). */
    Block expected(int requestId, long contentKey, int index) {
        byte[] p = new byte[blockSize];
        for (int i = 0; i < blockSize; i++) {
            p[i] = payloadByte(contentKey, index, i);
        }
        return Block.wrap(requestId, index, blocks, p, index == blocks - 1 ? 3 : 0);
    }

    @Override
    public int requestCount() {
        return n;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int blockCount(int requestId) {
        if (requestId < 0 || requestId >= n) {
            throw new IllegalArgumentException("request id " + requestId + " out of range");
        }
        return blocks;
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return fetch(requestId, requestId, blockIndex);
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        if (requestId < 0 || requestId >= n || blockIndex < 0 || blockIndex >= blocks) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no block " + blockIndex + " of "
                    + requestId));
        }
        if (failing) {
            return CompletableFuture.failedFuture(new IllegalStateException("origin down"));
        }
        if (blockIndex == 0) {
            computations.incrementAndGet();
            perKey.computeIfAbsent(contentKey, k -> new AtomicInteger()).incrementAndGet();
        }
        CompletableFuture<Void> held = gate;
        if (held != null) {
            return held.thenApply(x -> expected(requestId, contentKey, blockIndex));
        }
        if (delayMillis == 0) {
            return CompletableFuture.completedFuture(expected(requestId, contentKey, blockIndex));
        }
        // The first block's fetch stands for the whole response's computation.
        Executor later = CompletableFuture.delayedExecutor(blockIndex == 0 ? delayMillis : 0, TimeUnit.MILLISECONDS);
        if (blockIndex == 0) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        }
        return CompletableFuture.supplyAsync(() -> {
            if (blockIndex == 0) {
                running.decrementAndGet();
            }
            return expected(requestId, contentKey, blockIndex);
        }, later);
    }

    @Override
    public String toString() {
        return "CountingOrigin";
    }
}
