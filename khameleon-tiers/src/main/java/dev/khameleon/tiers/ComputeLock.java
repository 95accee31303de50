package dev.khameleon.tiers;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Which node of the fleet computes a response that Redis lacks. The node that takes the key's lock
 * ({@code SET NX PX} for the lock time) loads the response from the tiers below while holding it,
 * publishes it and releases the lock; every other node polls Redis each poll interval until the value
 * appears (it reads it), the lock is free again (it tries to take it) or the bounded wait runs out (it
 * loads the response itself and publishes it). A Redis failure ends the coordination: the lookup goes
 * on below without the lock. Thread-safe; never blocks (waits are timer callbacks).
 */
final class ComputeLock {
    /** A wait that ran out is news about a lookup, logged with the stack's other lookup events. */
    private static final Logger LOG = LoggerFactory.getLogger(TieredBlockSource.class);

    private final RedisConnection redis;
    private final RedisValues values;
    private final KeySpace keys;
    private final PollTimer timer;
    private final long lockMillis;
    private final long maxWaitNanos;
    private final TierCounters counters;

    /** Locks of {@code lockTime} under {@code keys}; a node waits at most {@code maxWait} for another. */
    ComputeLock(RedisConnection redis, RedisValues values, KeySpace keys, PollTimer timer, Duration lockTime,
                Duration maxWait, TierCounters counters) {
        this.redis = redis;
        this.values = values;
        this.keys = keys;
        this.timer = timer;
        this.lockMillis = lockTime.toMillis();
        this.maxWaitNanos = maxWait.toNanos();
        this.counters = counters;
    }

    /**
     * The response to {@code chain.lookup()}, which Redis has just missed: read from Redis once another
     * node has stored it, or loaded from the tiers below, with the lock when this node holds it.
     */
    CompletableFuture<StoredResponse> load(Tier.Chain chain) {
        return lockOrWait(chain, timer.deadline(maxWaitNanos));
    }

    /**
     * Takes the key's lock and computes, or, if another node holds it, polls until its value is in
     * Redis, the lock is free again (then tries to take it) or {@code deadline} passes (then computes).
     */
    private CompletableFuture<StoredResponse> lockOrWait(Tier.Chain chain, long deadline) {
        String token = keys.nextLockToken();
        String lock = keys.lock(chain.lookup().contentKey());
        return redis.tryLock(lock, token, lockMillis).handle((got, e) -> {
            if (e != null) {
                redis.commandFailed(e);
                return chain.proceed(chain.lookup());
            }
            if (got) {
                return recheckThenLoad(chain, lock, token);
            }
            counters.lockBusy.increment();
            return timer.later().thenCompose(x -> poll(chain, deadline));
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<StoredResponse> poll(Tier.Chain chain, long deadline) {
        long contentKey = chain.lookup().contentKey();
        if (timer.passed(deadline)) {
            counters.waitTimeouts.increment();
            LOG.debug("waited {} ms for another node to compute content {}; computing it here",
                    TimeUnit.NANOSECONDS.toMillis(maxWaitNanos), contentKey);
            return chain.proceed(chain.lookup()).thenApply(r -> {
                values.publish(contentKey, r);
                return r;
            });
        }
        return values.read(contentKey).handle((r, e) -> {
            if (e != null) {
                redis.commandFailed(e);
                return chain.proceed(chain.lookup());
            }
            if (r != null) {
                counters.waitedForOtherNode.increment();
                return CompletableFuture.completedFuture(r);
            }
            return lockOrWait(chain, deadline);
        }).thenCompose(Function.identity());
    }

    /**
     * With the lock held, looks for the value once more before loading: another node may have
     * stored it and released the lock between this node's miss and its taking the lock.
     */
    private CompletableFuture<StoredResponse> recheckThenLoad(Tier.Chain chain, String lock, String token) {
        return values.read(chain.lookup().contentKey()).handle((r, e) -> {
            if (e != null) {
                redis.commandFailed(e);
            } else if (r != null) {
                counters.waitedForOtherNode.increment();
                release(lock, token);
                return CompletableFuture.completedFuture(r);
            }
            return loadAndPublish(chain, lock, token);
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<StoredResponse> loadAndPublish(Tier.Chain chain, String lock, String token) {
        Tier.Lookup lookup = chain.lookup();
        return chain.proceed(lookup.withLock()).whenComplete((r, e) -> {
            // One connection runs commands in order: the value is stored before the lock is released,
            // so a node that finds the lock free finds the value too.
            if (r != null) {
                values.publish(lookup.contentKey(), r);
            }
            release(lock, token);
        });
    }

    private void release(String lock, String token) {
        counters.write(() -> redis.unlock(lock, token), redis::commandFailed);
    }
}
