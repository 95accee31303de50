package dev.khameleon.tiers;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * The responses held in Redis, one write-once value per content key: reads that check each value and
 * refuse one that does not check out (counted, logged and deleted, never served), and stores that never
 * replace a value. Thread-safe; never blocks.
 */
final class RedisValues {
    /** A refused value is news about a lookup, logged with the stack's other lookup events. */
    private static final Logger LOG = LoggerFactory.getLogger(TieredBlockSource.class);

    private final RedisConnection redis;
    private final KeySpace keys;
    private final int blockSize;
    private final TierCounters counters;

    /** The values of responses of {@code blockSize}-byte blocks under {@code keys}. */
    RedisValues(RedisConnection redis, KeySpace keys, int blockSize, TierCounters counters) {
        this.redis = redis;
        this.keys = keys;
        this.blockSize = blockSize;
        this.counters = counters;
    }

    /**
     * The response stored for {@code contentKey}, or null if there is none or it was refused as
     * damaged; fails if Redis does (the caller records the failure).
     */
    CompletableFuture<StoredResponse> read(long contentKey) {
        String key = keys.value(contentKey);
        return redis.get(key).thenApply(value -> value == null ? null : decode(key, value, contentKey));
    }

    /**
     * Stores {@code r} for the other nodes unless Redis holds a value for it already or is not usable
     * now; returns at once, and a failure of the write marks Redis down.
     */
    void publish(long contentKey, StoredResponse r) {
        String key = keys.value(contentKey);
        if (!redis.usable()) {
            counters.redisValuesLost.increment();
            return;
        }
        counters.write(() -> redis.setIfAbsent(key, r.encode()), e -> {
            counters.redisValuesLost.increment();
            redis.commandFailed(e);
        });
    }

    private StoredResponse decode(String key, byte[] value, long contentKey) {
        try {
            return StoredResponse.decode(value, contentKey, blockSize);
        } catch (StoredResponse.CorruptValueException e) {
            counters.corruptValues.increment();
            LOG.warn("refused the value at Redis key {} ({}); deleting it and computing the response again", key,
                    e.getMessage());
            counters.write(() -> redis.delete(key));
            return null;
        }
    }
}
