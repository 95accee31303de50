package dev.khameleon.tiers;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The fleet's bound on origin computations running at once: a Redis semaphore of expiring leases
 * ({@code <namespace>:origin-permits}), one held per computation and returned when it ends. A node
 * whose lease is never returned (it died) loses it when the lease time runs out. Without a limit, without
 * Redis, or while Redis is unusable or failing, computations run without a lease: the bound does not
 * hold then. Thread-safe; never blocks (waits for a permit are timer callbacks).
 */
final class OriginPermits {
    private final RedisConnection redis;
    private final KeySpace keys;
    private final int limit;
    private final long leaseMillis;
    private final long permitWaitNanos;
    private final PollTimer timer;
    private final TierCounters counters;

    /**
     * At most {@code limit} computations across the fleet ({@code 0}, or {@code redis} null: no bound),
     * each lease living {@code leaseTime}; a computation waits at most {@code permitWait} for one.
     */
    OriginPermits(RedisConnection redis, KeySpace keys, int limit, Duration leaseTime, Duration permitWait,
                  PollTimer timer, TierCounters counters) {
        this.redis = redis;
        this.keys = keys;
        this.limit = limit;
        this.leaseMillis = leaseTime.toMillis();
        this.permitWaitNanos = permitWait.toNanos();
        this.timer = timer;
        this.counters = counters;
    }

    /**
     * Runs {@code work} holding a permit when the bound holds, and returns the permit once the work
     * ends; fails with {@link IllegalStateException}, without running the work, when every permit
     * stayed busy for the permit wait. Closing the stack ends the waits (the memory tier fails their loads).
     */
    <T> CompletableFuture<T> withPermit(Supplier<CompletableFuture<T>> work) {
        if (limit == 0 || redis == null || !redis.usable()) {
            return work.get();
        }
        String leaseId = keys.nextLeaseId();
        return acquire(leaseId, timer.deadline(permitWaitNanos)).thenCompose(held -> {
            CompletableFuture<T> c = work.get();
            if (held) {
                c.whenComplete((r, e) -> counters.write(() -> redis.releaseLease(keys.permits(), leaseId),
                        redis::commandFailed));
            }
            return c;
        });
    }

    /** Completes with true once a lease is held, false if Redis failed (then the limit cannot hold). */
    private CompletableFuture<Boolean> acquire(String leaseId, long deadline) {
        return redis.tryAcquireLease(keys.permits(), limit, leaseMillis, leaseId).handle((ok, e) -> {
            if (e != null) {
                redis.commandFailed(e);
                return CompletableFuture.completedFuture(false);
            }
            if (ok) {
                return CompletableFuture.completedFuture(true);
            }
            if (timer.passed(deadline)) {
                return CompletableFuture.<Boolean>failedFuture(new IllegalStateException("all " + limit
                        + " origin permits of namespace " + keys.namespace() + " stayed busy for "
                        + TimeUnit.NANOSECONDS.toMillis(permitWaitNanos) + " ms"));
            }
            return timer.later().thenCompose(x -> acquire(leaseId, deadline));
        }).thenCompose(Function.identity());
    }
}
