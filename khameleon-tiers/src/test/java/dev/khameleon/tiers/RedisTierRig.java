package dev.khameleon.tiers;

import dev.khameleon.testing.RedisProcess;
import io.lettuce.core.RedisURI;

import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The Redis parts of one node, without a stack around them: a throw-away redis-server
 * ({@link RedisProcess}, which skips the test when it is absent), a connection to it, a poll timer of
 * 1 ms on {@code clock} and the key names under {@code namespace}. Close a tier made here before the rig.
 */
final class RedisTierRig implements AutoCloseable {
    final RedisProcess redis;
    final RedisConnection connection;
    final PollTimer timer;
    final KeySpace keys;
    private final TierCounters counters;
    private boolean connectionOwnedByATier;

    private RedisTierRig(RedisProcess redis, String namespace, LongSupplier clock, TierCounters counters) {
        this.redis = redis;
        this.counters = counters;
        this.connection = new RedisConnection(RedisURI.create(redis.uri()), Duration.ofSeconds(2),
                Duration.ofSeconds(1), System::nanoTime, counters.redisFailures);
        this.timer = new PollTimer(Duration.ofMillis(1), clock);
        this.keys = new KeySpace(namespace, "node");
    }

    /** Starts a redis-server and connects to it. */
    static RedisTierRig start(String namespace, LongSupplier clock, TierCounters counters) throws Exception {
        return new RedisTierRig(RedisProcess.start("32mb"), namespace, clock, counters);
    }

    /** A Redis tier on the rig's connection, which closing the tier closes, for {@code blockSize}-byte blocks. */
    RedisTier tier(int blockSize, Duration maxWait) {
        connectionOwnedByATier = true;
        return new RedisTier(connection, keys, blockSize, timer, Duration.ofSeconds(10), maxWait, counters);
    }

    /** Origin permits on the rig's connection. */
    OriginPermits permits(int limit, Duration permitWait) {
        return new OriginPermits(connection, keys, limit, Duration.ofSeconds(30), permitWait, timer, counters);
    }

    /** Stops the timer and the server, and closes the connection unless a tier made here closed it. */
    @Override
    public void close() throws IOException {
        timer.close();
        if (!connectionOwnedByATier) {
            connection.close();
        }
        redis.close();
    }
}
