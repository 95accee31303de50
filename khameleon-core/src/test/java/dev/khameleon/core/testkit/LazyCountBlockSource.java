package dev.khameleon.core.testkit;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * A block source for tests of counts told lazily: every request declares the same upper bound
 * ({@link #isBlockCountBound} true for all) and has {@code exactCount(id)} blocks, which its blocks
 * carry. The payload of a block says what it is (byte 0 the request id, byte 1 the index, mod 256).
 * Optionally a request misreports its count: its blocks carry {@code misreport(id, index)} instead.
 * Counts every fetch of an index at or past the exact count ({@link #fetchesPastTheEnd()}), which
 * fails. Thread-safe; fetches complete at once.
 */
public final class LazyCountBlockSource implements BlockSource {
    private final int requestCount;
    private final int bound;
    private final int blockSize;
    private final IntUnaryOperator exactCount;
    private final boolean immediately;
    private final AtomicInteger pastTheEnd = new AtomicInteger();
    private final AtomicInteger fetches = new AtomicInteger();
    private volatile Misreport misreport = (id, index, count) -> count;

    /** What count block {@code index} of {@code requestId} carries, given its exact {@code count}. */
    @FunctionalInterface
    public interface Misreport {
        int count(int requestId, int index, int count);
    }

    /**
     * @param exactCount  each request's exact count, in {@code [1, bound]}
     * @param immediately what {@link #fetchesImmediately()} says
     */
    public LazyCountBlockSource(int requestCount, int bound, int blockSize, IntUnaryOperator exactCount,
                                boolean immediately) {
        this.requestCount = requestCount;
        this.bound = bound;
        this.blockSize = blockSize;
        this.exactCount = exactCount;
        this.immediately = immediately;
    }

    /** Makes blocks carry the counts {@code misreport} says; returns this. */
    public LazyCountBlockSource misreporting(Misreport misreport) {
        this.misreport = misreport;
        return this;
    }

    /** The exact count of {@code requestId}. */
    public int exactCount(int requestId) {
        return exactCount.applyAsInt(requestId);
    }

    /** How many fetches asked for a block index at or past the exact count. */
    public int fetchesPastTheEnd() {
        return pastTheEnd.get();
    }

    /** How many fetches were asked for. */
    public int fetches() {
        return fetches.get();
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
        return bound;
    }

    @Override
    public boolean isBlockCountBound(int requestId) {
        return true;
    }

    @Override
    public boolean fetchesImmediately() {
        return immediately;
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        fetches.incrementAndGet();
        if (requestId < 0 || requestId >= requestCount) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("request id " + requestId
                    + " out of range [0, " + requestCount + ")"));
        }
        int count = exactCount.applyAsInt(requestId);
        if (blockIndex < 0 || blockIndex >= count) {
            if (blockIndex >= count) {
                pastTheEnd.incrementAndGet();
            }
            return CompletableFuture.failedFuture(new IllegalArgumentException("block index " + blockIndex
                    + " out of range [0, " + count + ") for request " + requestId));
        }
        int told = misreport.count(requestId, blockIndex, count);
        byte[] payload = new byte[blockSize];
        payload[0] = (byte) requestId;
        payload[1] = (byte) blockIndex;
        return CompletableFuture.completedFuture(Block.wrap(requestId, blockIndex, Math.max(told, blockIndex + 1),
                payload, 0));
    }
}
