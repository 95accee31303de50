package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.store.FileBlockStore;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.Closeable;
import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * A {@link BlockSource} that answers from a stack of tiers in front of an origin source: this
 * node's memory (a byte-bounded cache), then an optional local {@link FileBlockStore}, then an
 * optional Redis shared by every node, then an optional S3-compatible object store, then the
 * origin (an encoder, a database query, ...). A
 * response found in a lower tier is kept in the tiers above it; one computed from the origin is
 * written to Redis so that every other node reads it instead of computing it again.
 *
 * <p><b>Keys.</b> Tiers store whole responses, one value per content key, under
 * {@code <namespace>:r:<contentKey>}. A value is written once and never changed (SET NX): the
 * namespace names the content, so it must change whenever the origin's answers change (put a
 * dataset version or hash in it). Every value carries its key, block size and a CRC32C; a value that
 * does not check out is refused, deleted and recomputed, never served.
 *
 * <p><b>Single flight.</b> On one node, concurrent fetches of one content key share one load. Across
 * nodes, the node that misses in Redis takes a lock ({@code <namespace>:lock:<key>}, SET NX PX with
 * {@link Builder#lockTime}) and computes; the others poll Redis every {@link Builder#pollInterval}
 * until the value appears or the lock is free again, and after {@link Builder#maxWait} compute it
 * themselves. {@link Builder#maxOriginConcurrency} bounds the origin computations running at once
 * across all nodes with a Redis semaphore of expiring leases.
 *
 * <p><b>Failures.</b> Every tier is optional. When Redis fails or times out the fetch goes on to the
 * origin and Redis is skipped for {@link Builder#retryInterval}, with one log line per outage; a local
 * file store that fails a read is passed over the same way. Only an origin failure fails a fetch.
 *
 * <p>Thread-safe. {@link #fetch} never blocks: it completes at once from memory, otherwise on a Redis
 * client thread, a timer thread or the origin's thread. {@link #close()} closes what the stack owns
 * (the Redis connection, its timer) but not the origin or the file store, which the caller owns.
 */
public final class TieredBlockSource implements BlockSource, Closeable {
    private final BlockSource origin;
    private final int blockSize;
    private final TierStack stack;
    private volatile boolean closed;

    private TieredBlockSource(Builder b) {
        this.origin = b.origin;
        this.blockSize = origin.blockSize();
        this.stack = new TierStack(b);
    }

    /** A builder for a stack in front of {@code origin}; with no other setting, a memory tier of 64 MiB. */
    public static Builder builder(BlockSource origin) {
        return new Builder(origin);
    }

    @Override
    public int requestCount() {
        return origin.requestCount();
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int blockCount(int requestId) {
        return origin.blockCount(requestId);
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return fetch(requestId, requestId, blockIndex);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Fails the stage with {@link IllegalArgumentException} for a request id or block index out of
     * range, or a stored response whose block count differs from {@code blockCount(requestId)}; with
     * {@link IllegalStateException} when closed or when no origin permit came free within
     * {@link Builder#permitWait}; and with the origin's error when the origin fails.
     */
    @Override
    public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("tiered block source is closed"));
        }
        return stack.fetch(requestId, contentKey, blockIndex);
    }

    /** Forwards the hint to the local file store, the only tier that reads ahead; the origin is not woken. */
    @Override
    public void prefetch(ScheduleChunk chunk) {
        stack.prefetch(chunk);
    }

    /** A snapshot of this stack's counters. */
    public TierStats stats() {
        return stack.stats();
    }

    /** Whether the shared tier is configured and currently answering. */
    public boolean sharedTierUp() {
        return stack.sharedTierUp();
    }

    /**
     * Closes the Redis connection and the timer and fails loads still in flight; the origin and the
     * file store stay open. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stack.close();
    }

    @Override
    public String toString() {
        return "TieredBlockSource[" + stack + ", origin=" + origin + "]";
    }

    /**
     * Settings for one {@link TieredBlockSource}. Each setter validates at once and names the setting
     * and the bad value; {@link #build()} checks the combination. Not thread-safe.
     */
    public static final class Builder {
        final BlockSource origin;
        long memoryBytes = 64L << 20;
        FileBlockStore file;
        URI redis;
        S3Client s3;
        String bucket;
        int objectStoreThreads = 8;
        String namespace;
        String nodeId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        Duration lockTime = Duration.ofSeconds(10);
        Duration maxWait = Duration.ofSeconds(5);
        Duration pollInterval = Duration.ofMillis(20);
        Duration redisTimeout = Duration.ofMillis(500);
        Duration retryInterval = Duration.ofSeconds(1);
        int maxOriginConcurrency;
        Duration leaseTime = Duration.ofSeconds(30);
        Duration permitWait = Duration.ofSeconds(10);
        LongSupplier nanoClock = System::nanoTime;

        private Builder(BlockSource origin) {
            this.origin = Objects.requireNonNull(origin, "origin");
        }

        /** The memory tier's bound in bytes of stored responses; 0 turns the tier off. Default 64 MiB. */
        public Builder memoryBytes(long memoryBytes) {
            if (memoryBytes < 0) {
                throw new IllegalArgumentException("memoryBytes must be >= 0, was " + memoryBytes);
            }
            this.memoryBytes = memoryBytes;
            return this;
        }

        /**
         * A local, read-only file store holding responses under their content keys (its request ids),
         * asked after memory and before Redis. Responses are not written to it: import them with
         * {@link FileBlockStore#importResponses}. Its block size must be the origin's.
         */
        public Builder fileStore(FileBlockStore store) {
            this.file = Objects.requireNonNull(store, "fileStore");
            return this;
        }

        /**
         * The shared Redis tier, {@code redis://host:port} (or {@code rediss://} for TLS, with
         * credentials in the URI if needed). Requires {@link #namespace}.
         */
        public Builder redis(URI uri) {
            Objects.requireNonNull(uri, "redis");
            if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
                throw new IllegalArgumentException("redis must be a redis:// or rediss:// URI, was " + uri);
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("redis URI has no host: " + uri);
            }
            this.redis = uri;
            return this;
        }

        /**
         * The shared object-store tier: {@code client} (configured with its endpoint, region and
         * credentials; it stays yours to close) and the bucket that holds one object per response,
         * under {@code <namespace>/r/<contentKey>}. Asked after Redis and before the origin; a
         * response computed from the origin is stored there too. Requires {@link #namespace}.
         */
        public Builder objectStore(S3Client client, String bucket) {
            Objects.requireNonNull(client, "objectStore client");
            Objects.requireNonNull(bucket, "bucket");
            if (bucket.length() < 3 || bucket.length() > 63 || !bucket.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]")) {
                throw new IllegalArgumentException("bucket must be an S3 bucket name (3-63 lower-case letters, digits,"
                        + " dots and hyphens), was \"" + bucket + "\"");
            }
            this.s3 = client;
            this.bucket = bucket;
            return this;
        }

        /** Threads that run the object store's (blocking) calls. Default 8. */
        public Builder objectStoreThreads(int threads) {
            if (threads < 1 || threads > 256) {
                throw new IllegalArgumentException("objectStoreThreads must be in [1, 256], was " + threads);
            }
            this.objectStoreThreads = threads;
            return this;
        }

        /**
         * The prefix of every Redis key: it names the content, so change it whenever the origin's
         * answers change (e.g. {@code "gallery:v3"}). 1 to 200 visible ASCII characters.
         */
        public Builder namespace(String namespace) {
            this.namespace = visibleAscii("namespace", namespace, 200);
            return this;
        }

        /** This node's name in lock tokens and leases (diagnostics only). Default: random. */
        public Builder nodeId(String nodeId) {
            this.nodeId = visibleAscii("nodeId", nodeId, 100);
            return this;
        }

        /** How long a node's compute lock lives if it never releases it (it died). Default 10 s. */
        public Builder lockTime(Duration lockTime) {
            this.lockTime = positive("lockTime", lockTime);
            return this;
        }

        /** How long a node waits for another node's computation before computing itself. Default 5 s. */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = positive("maxWait", maxWait);
            return this;
        }

        /** How often a waiting node polls Redis for the value, the lock or a permit. Default 20 ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = positive("pollInterval", pollInterval);
            return this;
        }

        /** How long one Redis command may take before the fetch skips the tier. Default 500 ms. */
        public Builder redisTimeout(Duration redisTimeout) {
            this.redisTimeout = positive("redisTimeout", redisTimeout);
            return this;
        }

        /** How long Redis is skipped after a failure before it is tried again. Default 1 s. */
        public Builder retryInterval(Duration retryInterval) {
            this.retryInterval = positive("retryInterval", retryInterval);
            return this;
        }

        /**
         * The most origin computations running at once across every node sharing the namespace; 0
         * (the default) for no limit. Needs Redis; while Redis is down the limit does not hold.
         */
        public Builder maxOriginConcurrency(int maxOriginConcurrency) {
            if (maxOriginConcurrency < 0) {
                throw new IllegalArgumentException("maxOriginConcurrency must be >= 0, was " + maxOriginConcurrency);
            }
            this.maxOriginConcurrency = maxOriginConcurrency;
            return this;
        }

        /** How long an origin permit lives if its node never returns it (it died). Default 30 s. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = positive("leaseTime", leaseTime);
            return this;
        }

        /** How long a computation waits for an origin permit before its fetch fails. Default 10 s. */
        public Builder permitWait(Duration permitWait) {
            this.permitWait = positive("permitWait", permitWait);
            return this;
        }

        /** The nanosecond clock of waits and back-offs (tests inject one). Default {@code System::nanoTime}. */
        Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /**
         * Builds the stack and connects to Redis if one is set, waiting at most {@link #redisTimeout};
         * a Redis that does not answer is logged and retried in the background while fetches use the
         * other tiers.
         *
         * @throws IllegalStateException if Redis is set without a namespace, the file store's
         *     block size differs from the origin's, or the origin tells a block count lazily
         *     ({@link BlockSource#isBlockCountBound})
         */
        public TieredBlockSource build() {
            if (redis != null && namespace == null) {
                throw new IllegalStateException("redis is set but namespace is not: the namespace names the content"
                        + " in Redis keys");
            }
            if (s3 != null && namespace == null) {
                throw new IllegalStateException("objectStore is set but namespace is not: the namespace names the"
                        + " content in object keys");
            }
            for (int i = 0, n = origin.requestCount(); i < n; i++) {
                if (origin.isBlockCountBound(i)) {
                    // Each tier stores and checks whole responses of blockCount(id) blocks.
                    throw new IllegalStateException("the origin tells the block count of request " + i
                            + " lazily (isBlockCountBound): a tiered stack needs exact counts");
                }
            }
            if (file != null && file.blockSize() != origin.blockSize()) {
                throw new IllegalStateException("fileStore block size " + file.blockSize()
                        + " differs from the origin's " + origin.blockSize());
            }
            return new TieredBlockSource(this);
        }

        private static String visibleAscii(String name, String value, int maxLength) {
            Objects.requireNonNull(value, name);
            if (value.isEmpty() || value.length() > maxLength || !value.chars().allMatch(c -> c > 32 && c < 127)) {
                throw new IllegalArgumentException(name + " must be 1-" + maxLength
                        + " visible ASCII characters, was \"" + value + "\"");
            }
            return value;
        }

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
