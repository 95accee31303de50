package dev.khameleon.tiers;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The shared tier's connection to Redis and the few commands the stack needs, all asynchronous.
 * Tracks whether Redis answers: after a failure the tier is skipped for {@code retryInterval}
 * (one log line when it goes down, one when it answers again), so an outage costs each fetch
 * nothing but a flag check. Commands are rejected rather than queued while disconnected and time
 * out after {@code commandTimeout}, so no fetch waits on a dead Redis. One connection runs its
 * commands in the order they were issued. Thread-safe.
 */
final class RedisConnection implements AutoCloseable {
    /** Outages are the Redis tier's news: they are logged under its name, where operators look for them. */
    private static final Logger LOG = LoggerFactory.getLogger(RedisTier.class);

    /** Deletes the lock only if this node still holds it: an expired lock may be someone else's. */
    private static final String UNLOCK = "if redis.call('GET', KEYS[1]) == ARGV[1] then "
            + "return redis.call('DEL', KEYS[1]) else return 0 end";

    /**
     * Takes one of {@code ARGV[1]} leases in the sorted set {@code KEYS[1]} (member: lease id,
     * score: expiry in Redis's own milliseconds, so nodes' clocks need not agree): drops expired
     * leases, then adds one if fewer than the limit remain. The set expires when unused.
     */
    private static final String ACQUIRE = "local t = redis.call('TIME') "
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
            + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) "
            + "if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then "
            + "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3]) "
            + "redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) return 1 end return 0";

    private final RedisURI uri;
    private final RedisClient client;
    private final Outage outage;
    private final LongAdder commandFailures;
    private final AtomicBoolean connecting = new AtomicBoolean();
    private volatile StatefulRedisConnection<byte[], byte[]> connection;
    private volatile boolean closed;
    /** A background connection attempt, if one was started; close() waits for it. */
    private volatile CompletableFuture<?> pendingConnect;

    /**
     * Connects to {@code uri}, waiting at most {@code commandTimeout}; a failed connection is logged and
     * retried in the background. {@link #commandFailed} counts in {@code commandFailures}.
     */
    RedisConnection(RedisURI uri, Duration commandTimeout, Duration retryInterval, LongSupplier nanoClock,
                    LongAdder commandFailures) {
        this.uri = uri;
        this.outage = new Outage(retryInterval, nanoClock);
        this.commandFailures = commandFailures;
        uri.setTimeout(commandTimeout);
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                // A host that drops packets must not hold up build() or a reconnection for long.
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .build());
        try {
            connection = client.connect(ByteArrayCodec.INSTANCE, uri);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** Where this tier connects, without credentials. */
    String address() {
        return uri.getHost() + ":" + uri.getPort();
    }

    /**
     * Whether to use Redis now: connected and not inside the back-off after a failure. Starts a
     * reconnection in the background when the first connection never succeeded.
     */
    boolean usable() {
        if (closed) {
            return false;
        }
        if (outage.skipping()) {
            return false;
        }
        if (connection == null) {
            if (connecting.compareAndSet(false, true)) {
                pendingConnect = client.connectAsync(ByteArrayCodec.INSTANCE, uri).whenComplete((c, e) -> {
                    if (e == null) {
                        connection = c;
                        if (closed) {
                            c.closeAsync();
                        }
                    } else {
                        failed(e);
                    }
                    connecting.set(false);
                }).toCompletableFuture();
            }
            return false;
        }
        return true;
    }

    /** Records a failure to reach Redis: the tier is skipped for the retry interval; logs once per outage. */
    void failed(Throwable cause) {
        if (outage.fail() && !closed) {
            LOG.warn("Redis tier at {} unavailable ({}); serving from the other tiers, retrying every {} ms",
                    address(), Outage.rootCause(cause), outage.retryMillis());
        }
    }

    /** Records a command that failed or timed out: counted in {@link TierStats#redisFailures}, then {@link #failed}. */
    void commandFailed(Throwable cause) {
        commandFailures.increment();
        failed(cause);
    }

    /** Records a command that succeeded; logs once when the tier comes back. */
    void succeeded() {
        if (outage.recover()) {
            LOG.info("Redis tier at {} answers again", address());
        }
    }

    /** Whether the tier is in the back-off after a failure. */
    boolean isDown() {
        return outage.isDown();
    }

    /** The value at {@code key}, or null if there is none. */
    CompletableFuture<byte[]> get(String key) {
        return call(c -> c.get(bytes(key)));
    }

    /** Stores {@code value} at {@code key} unless a value is there already (values never change). */
    CompletableFuture<Boolean> setIfAbsent(String key, byte[] value) {
        return call(c -> c.set(bytes(key), value, SetArgs.Builder.nx())).thenApply("OK"::equals);
    }

    /** Deletes {@code key} (a value found damaged). */
    CompletableFuture<Void> delete(String key) {
        return call(c -> c.del(bytes(key))).thenApply(n -> null);
    }

    /** Takes the lock {@code key} for {@code ttlMillis} as {@code token} if nobody holds it. */
    CompletableFuture<Boolean> tryLock(String key, String token, long ttlMillis) {
        return call(c -> c.set(bytes(key), bytes(token), SetArgs.Builder.nx().px(ttlMillis))).thenApply("OK"::equals);
    }

    /** Releases the lock {@code key} if {@code token} still holds it. */
    CompletableFuture<Void> unlock(String key, String token) {
        return call(c -> c.<Long>eval(UNLOCK, ScriptOutputType.INTEGER, new byte[][] {bytes(key)}, bytes(token)))
                .thenApply(n -> null);
    }

    /** Takes one of {@code limit} leases of the semaphore {@code key} for {@code leaseMillis}; false if none is free. */
    CompletableFuture<Boolean> tryAcquireLease(String key, int limit, long leaseMillis, String leaseId) {
        return call(c -> c.<Long>eval(ACQUIRE, ScriptOutputType.INTEGER, new byte[][] {bytes(key)},
                bytes(Integer.toString(limit)), bytes(Long.toString(leaseMillis)), bytes(leaseId)))
                .thenApply(n -> n == 1L);
    }

    /** Returns the lease {@code leaseId} of the semaphore {@code key}. */
    CompletableFuture<Void> releaseLease(String key, String leaseId) {
        return call(c -> c.zrem(bytes(key), bytes(leaseId))).thenApply(n -> null);
    }

    /** Closes the connection and the client; waits up to 2 s for a background connection attempt. */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<?> pending = pendingConnect;
        if (pending != null) {
            // A connection that opens after the client's resources are shut down would try to
            // reconnect on a stopped timer when it closes (a stack trace from Lettuce's thread).
            try {
                pending.get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // Failed or still pending: nothing to close, or shutdown closes it.
            }
        }
        StatefulRedisConnection<byte[], byte[]> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    /** Issues {@code command}; not being connected, or any other refusal, fails the future instead of throwing. */
    private <T> CompletableFuture<T> call(Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
        try {
            return command.apply(cmd()).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private RedisAsyncCommands<byte[], byte[]> cmd() {
        StatefulRedisConnection<byte[], byte[]> c = connection;
        if (c == null) {
            throw new IllegalStateException("not connected to Redis at " + address());
        }
        return c.async();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
