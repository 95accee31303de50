package dev.khameleon.tiers;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The shared tier: responses in a Redis every node of the fleet uses. A value found there is served; a
 * miss is loaded once across the fleet ({@link ComputeLock}) and published for the other nodes. While
 * Redis fails or times out the tier is passed over for the retry interval ({@link RedisConnection}), so
 * an outage costs a lookup a flag check. Thread-safe; never blocks.
 */
final class RedisTier implements Tier {
    private final RedisConnection redis;
    private final RedisValues values;
    private final ComputeLock lock;
    private final TierCounters counters;

    /**
     * The tier on {@code redis}, which it closes, holding responses of {@code blockSize}-byte blocks
     * under {@code keys}; locks last {@code lockTime}, and a node waits at most {@code maxWait} for another.
     */
    RedisTier(RedisConnection redis, KeySpace keys, int blockSize, PollTimer timer, Duration lockTime,
              Duration maxWait, TierCounters counters) {
        this.redis = redis;
        this.values = new RedisValues(redis, keys, blockSize, counters);
        this.lock = new ComputeLock(redis, values, keys, timer, lockTime, maxWait, counters);
        this.counters = counters;
    }

    /** The response from Redis, or from the tiers below once the fleet agreed who loads it; then kept in Redis. */
    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        if (!redis.usable()) {
            return chain.proceed(chain.lookup());
        }
        return values.read(chain.lookup().contentKey()).handle((r, e) -> {
            if (e != null) {
                redis.commandFailed(e);
                return chain.proceed(chain.lookup());
            }
            redis.succeeded();
            if (r != null) {
                counters.redisHits.increment();
                return CompletableFuture.completedFuture(r);
            }
            return lock.load(chain);
        }).thenCompose(Function.identity());
    }

    /** Closes the Redis connection, which the origin permits borrow too. */
    @Override
    public void close() {
        redis.close();
    }
}
