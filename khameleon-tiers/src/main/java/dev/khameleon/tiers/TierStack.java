package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.BlockSource;
import io.lettuce.core.RedisURI;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The working part of one {@link TieredBlockSource}: its tiers, assembled from the builder's settings,
 * and what they share (the counters, the poll timer, the key names, the Redis connection). The one
 * place the lookup order is written down, so a new tier is one class and one entry here. Turns a
 * fetch into a {@link Tier.Lookup} down the chain. Thread-safe; never blocks.
 */
final class TierStack {
    private final BlockSource origin;
    private final TierCounters counters = new TierCounters();
    private final PollTimer timer;
    private final MemoryTier memory;
    private final boolean fileTier;
    private final RedisConnection redis;
    private final boolean objectStore;
    private final TierChain chain;

    /**
     * Builds every tier {@code b} sets, connecting to Redis if one is set, as
     * {@link TieredBlockSource.Builder#build} describes.
     */
    TierStack(TieredBlockSource.Builder b) {
        this.origin = b.origin;
        int blockSize = origin.blockSize();
        this.timer = new PollTimer(b.pollInterval, b.nanoClock);
        this.memory = new MemoryTier(b.memoryBytes, counters);
        KeySpace keys = new KeySpace(b.namespace, b.nodeId);
        ObjectStoreTier objects = b.s3 == null ? null : new ObjectStoreTier(b.s3, b.bucket, b.objectStoreThreads,
                b.retryInterval, b.nanoClock, keys, blockSize, counters);
        this.redis = b.redis == null ? null : new RedisConnection(RedisURI.create(b.redis), b.redisTimeout,
                b.retryInterval, b.nanoClock, counters.redisFailures);
        this.fileTier = b.file != null;
        this.objectStore = objects != null;
        // The lookup order, fastest first: each tier asks the one below only for what it lacks.
        List<Tier> tiers = new ArrayList<>();
        tiers.add(memory);
        if (b.file != null) {
            tiers.add(new FileTier(b.file, counters));
        }
        if (redis != null) {
            tiers.add(new RedisTier(redis, keys, blockSize, timer, b.lockTime, b.maxWait, counters));
        }
        if (objects != null) {
            tiers.add(objects);
        }
        tiers.add(new OriginTier(b.origin, new OriginPermits(redis, keys, b.maxOriginConcurrency, b.leaseTime,
                b.permitWait, timer, counters), counters));
        this.chain = new TierChain(tiers);
    }

    /**
     * Block {@code blockIndex} of request {@code requestId}, from the response stored under
     * {@code contentKey} in the first tier that has it; fails as {@link TieredBlockSource#fetch(int, long, int)}
     * documents.
     */
    CompletableFuture<Block> fetch(int requestId, long contentKey, int blockIndex) {
        int n = origin.requestCount();
        if (requestId < 0 || requestId >= n) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "request id " + requestId + " out of range [0, " + n + ")"));
        }
        int count;
        try {
            count = origin.blockCount(requestId);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (blockIndex < 0 || blockIndex >= count) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "block index " + blockIndex + " out of range [0, " + count + ") for request " + requestId));
        }
        return chain.load(new Tier.Lookup(requestId, contentKey, count, false)).thenApply(r -> {
            if (r.count() != count) {
                throw new IllegalArgumentException("content " + contentKey + " has " + r.count()
                        + " blocks but request " + requestId + " has " + count
                        + ": every request bound to a content key must have its block count");
            }
            return r.block(requestId, blockIndex);
        });
    }

    /** Hands the hint to every tier; only the file tier reads ahead. */
    void prefetch(ScheduleChunk chunk) {
        chain.prefetch(chunk);
    }

    /** A snapshot of the counters. */
    TierStats stats() {
        return counters.snapshot(memory.bytes(), memory.loadsInFlight());
    }

    /** Whether the shared tier is configured and currently answering. */
    boolean sharedTierUp() {
        return redis != null && !redis.isDown() && redis.usable();
    }

    /** Stops the timer, then closes the tiers top down: loads in flight fail before the connections close. */
    void close() {
        timer.close();
        chain.close();
    }

    /** Which tiers the stack has, for {@link TieredBlockSource#toString()}. */
    @Override
    public String toString() {
        return "memory=" + memory.enabled() + ", file=" + fileTier + ", redis="
                + (redis == null ? "none" : redis.address()) + ", objectStore=" + objectStore;
    }
}
