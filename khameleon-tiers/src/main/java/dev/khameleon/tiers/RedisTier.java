package dev.khameleon.tiers;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
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
import java.util.function.LongSupplier;

/**
 * The shared tier's connection to Redis and the few commands the stack needs, all asynchronous.
 * Tracks whether Redis answers: after a failure the tier is skipped for {@code retryInterval}
 * (one log line when it goes down, one when it answers again), so an outage costs each fetch
 * nothing but a flag check. Commands are rejected rather than queued while disconnected and time
 * out after {@code commandTimeout}, so no fetch waits on a dead Redis. Thread-safe.
 */
final class RedisTier implements AutoCloseable {
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
    private final long retryNanos;
    private final LongSupplier nanoClock;
    private final AtomicBoolean connecting = new AtomicBoolean();
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile StatefulRedisConnection<byte[], byte[]> connection;
    private volatile long downUntilNanos;
    private volatile boolean closed;
    /** A background connection attempt, if one was started; close() waits for it. */
    private volatile CompletableFuture<?> pendingConnect;

    RedisTier(RedisURI uri, Duration commandTimeout, Duration retryInterval, LongSupplier nanoClock) {
        this.uri = uri;
        this.retryNanos = retryInterval.toNanos();
        this.nanoClock = nanoClock;
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
        if (down.get() && nanoClock.getAsLong() - downUntilNanos < 0) {
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

    /** Records a failed command: the tier is skipped for the retry interval; logs once per outage. */
    void failed(Throwable cause) {
        downUntilNanos = nanoClock.getAsLong() + retryNanos;
        if (down.compareAndSet(false, true) && !closed) {
            LOG.warn("Redis tier at {} unavailable ({}); serving from the other tiers, retrying every {} ms",
                    address(), rootMessage(cause), TimeUnit.NANOSECONDS.toMillis(retryNanos));
        }
    }

    /** Records a command that succeeded; logs once when the tier comes back. */
    void succeeded() {
        if (down.get() && down.compareAndSet(true, false)) {
            LOG.info("Redis tier at {} answers again", address());
        }
    }

    /** Whether the tier is in the back-off after a failure. */
    boolean isDown() {
        return down.get();
    }

    private RedisAsyncCommands<byte[], byte[]> cmd() {
        StatefulRedisConnection<byte[], byte[]> c = connection;
        if (c == null) {
            throw new IllegalStateException("not connected to Redis at " + address());
        }
        return c.async();
    }

    /** The value at {@code key}, or null if there is none. */
    CompletableFuture<byte[]> get(String key) {
        try {
            return cmd().get(bytes(key)).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Stores {@code value} at {@code key} unless a value is there already (values never change). */
    CompletableFuture<Boolean> setIfAbsent(String key, byte[] value) {
        try {
            return cmd().set(bytes(key), value, SetArgs.Builder.nx()).toCompletableFuture().thenApply("OK"::equals);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Deletes {@code key} (a value found damaged). */
    CompletableFuture<Void> delete(String key) {
        try {
            return cmd().del(bytes(key)).toCompletableFuture().thenApply(n -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Takes the lock {@code key} for {@code ttlMillis} as {@code token} if nobody holds it. */
    CompletableFuture<Boolean> tryLock(String key, String token, long ttlMillis) {
        try {
            return cmd().set(bytes(key), bytes(token), SetArgs.Builder.nx().px(ttlMillis)).toCompletableFuture()
                    .thenApply("OK"::equals);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Releases the lock {@code key} if {@code token} still holds it. */
    CompletableFuture<Void> unlock(String key, String token) {
        try {
            return cmd().<Long>eval(UNLOCK, ScriptOutputType.INTEGER, new byte[][] {bytes(key)}, bytes(token))
                    .toCompletableFuture().thenApply(n -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Takes one of {@code limit} leases of the semaphore {@code key} for {@code leaseMillis}; false if none is free. */
    CompletableFuture<Boolean> tryAcquireLease(String key, int limit, long leaseMillis, String leaseId) {
        try {
            return cmd().<Long>eval(ACQUIRE, ScriptOutputType.INTEGER, new byte[][] {bytes(key)},
                    bytes(Integer.toString(limit)), bytes(Long.toString(leaseMillis)), bytes(leaseId))
                    .toCompletableFuture().thenApply(n -> n == 1L);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Returns the lease {@code leaseId} of the semaphore {@code key}. */
    CompletableFuture<Void> releaseLease(String key, String leaseId) {
        try {
            return cmd().zrem(bytes(key), bytes(leaseId)).toCompletableFuture().thenApply(n -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
