package dev.khameleon.tiers;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.store.FileBlockStore;
import io.lettuce.core.RedisURI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.Closeable;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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
    private static final Logger LOG = LoggerFactory.getLogger(TieredBlockSource.class);

    private final BlockSource origin;
    private final int blockSize;
    private final Cache<Long, StoredResponse> memory;
    private final FileBlockStore file;
    private final RedisTier redis;
    private final ObjectStoreTier objects;
    private final String namespace;
    private final String nodeId;
    private final long lockMillis;
    private final long maxWaitNanos;
    private final long pollMillis;
    private final int maxOriginConcurrency;
    private final long leaseMillis;
    private final long permitWaitNanos;
    private final LongSupplier nanoClock;
    private final ScheduledThreadPoolExecutor timer;
    private final SingleFlight<StoredResponse> loads = new SingleFlight<>();
    private final AtomicInteger writesInFlight = new AtomicInteger();
    private final AtomicLong sequence = new AtomicLong();
    private volatile boolean closed;

    private final LongAdder memoryHits = new LongAdder();
    private final LongAdder fileHits = new LongAdder();
    private final LongAdder redisHits = new LongAdder();
    private final LongAdder objectStoreHits = new LongAdder();
    private final LongAdder objectStoreFailures = new LongAdder();
    private final LongAdder originComputations = new LongAdder();
    private final LongAdder waitedForOtherNode = new LongAdder();
    private final LongAdder waitTimeouts = new LongAdder();
    private final LongAdder uncoordinatedComputations = new LongAdder();
    private final LongAdder corruptValues = new LongAdder();
    private final LongAdder redisFailures = new LongAdder();

    private TieredBlockSource(Builder b) {
        this.origin = b.origin;
        this.blockSize = origin.blockSize();
        this.memory = b.memoryBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(b.memoryBytes)
                .weigher((Long k, StoredResponse v) -> v.weight())
                .executor(Runnable::run)
                .build();
        this.file = b.file;
        this.namespace = b.namespace;
        this.nodeId = b.nodeId;
        this.lockMillis = b.lockTime.toMillis();
        this.maxWaitNanos = b.maxWait.toNanos();
        this.pollMillis = Math.max(1, b.pollInterval.toMillis());
        this.maxOriginConcurrency = b.maxOriginConcurrency;
        this.leaseMillis = b.leaseTime.toMillis();
        this.permitWaitNanos = b.permitWait.toNanos();
        this.nanoClock = b.nanoClock;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "khameleon-tiers-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        this.objects = b.s3 == null ? null
                : new ObjectStoreTier(b.s3, b.bucket, b.objectStoreThreads, b.retryInterval, b.nanoClock);
        this.redis = b.redis == null ? null
                : new RedisTier(RedisURI.create(b.redis), b.redisTimeout, b.retryInterval, b.nanoClock);
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
        if (memory != null) {
            StoredResponse r = memory.getIfPresent(contentKey);
            if (r != null && r.count() == count) {
                memoryHits.increment();
                return CompletableFuture.completedFuture(r.block(requestId, blockIndex));
            }
        }
        return load(requestId, contentKey, count).thenApply(r -> {
            if (r.count() != count) {
                throw new IllegalArgumentException("content " + contentKey + " has " + r.count()
                        + " blocks but request " + requestId + " has " + count
                        + ": every request bound to a content key must have its block count");
            }
            return r.block(requestId, blockIndex);
        });
    }

    /** Forwards the hint to the local file store, the only tier that reads ahead; the origin is not woken. */
    @Override
    public void prefetch(ScheduleChunk chunk) {
        if (file != null) {
            file.prefetch(chunk);
        }
    }

    /** A snapshot of this stack's counters. */
    public TierStats stats() {
        long bytes = memory == null ? 0 : memory.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
        return new TierStats(memoryHits.sum(), fileHits.sum(), redisHits.sum(), objectStoreHits.sum(),
                originComputations.sum(), uncoordinatedComputations.sum(), waitedForOtherNode.sum(), waitTimeouts.sum(),
                corruptValues.sum(), redisFailures.sum(), objectStoreFailures.sum(), bytes, loads.running(),
                writesInFlight.get());
    }

    /** Whether the shared tier is configured and currently answering. */
    public boolean sharedTierUp() {
        return redis != null && !redis.isDown() && redis.usable();
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
        timer.shutdownNow();
        IllegalStateException e = new IllegalStateException("tiered block source closed while loading");
        loads.failAll(e);
        if (redis != null) {
            redis.close();
        }
        if (objects != null) {
            objects.close();
        }
    }

    @Override
    public String toString() {
        return "TieredBlockSource[memory=" + (memory != null) + ", file=" + (file != null) + ", redis="
                + (redis == null ? "none" : redis.address()) + ", objectStore=" + (objects != null) + ", origin="
                + origin + "]";
    }

    // ---- loading ------------------------------------------------------------------------------

    /** One load per content key on this node at a time; the result goes into memory before it is shared. */
    private CompletableFuture<StoredResponse> load(int requestId, long contentKey, int count) {
        return loads.load(contentKey, () -> fromFile(requestId, contentKey, count), r -> {
            if (memory != null) {
                memory.put(contentKey, r);
            }
        });
    }

    private CompletableFuture<StoredResponse> fromFile(int requestId, long contentKey, int count) {
        if (file == null || contentKey < 0 || contentKey >= file.requestCount()
                || file.blockCount((int) contentKey) != count) {
            return fromShared(requestId, contentKey, count);
        }
        List<CompletableFuture<Block>> blocks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            blocks.add(file.fetch((int) contentKey, i).toCompletableFuture());
        }
        return gather(contentKey, blocks).handle((r, e) -> {
            if (e == null) {
                fileHits.increment();
                return CompletableFuture.completedFuture(r);
            }
            LOG.warn("file tier {} failed to read content {} ({}); trying the tiers below", file.directory(),
                    contentKey, e.getMessage());
            return fromShared(requestId, contentKey, count);
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<StoredResponse> fromShared(int requestId, long contentKey, int count) {
        if (redis == null || !redis.usable()) {
            return fromObjects(requestId, contentKey, count, false);
        }
        return sharedValue(contentKey).handle((r, e) -> {
            if (e != null) {
                redisFailed(e);
                return fromObjects(requestId, contentKey, count, false);
            }
            redis.succeeded();
            if (r != null) {
                redisHits.increment();
                return CompletableFuture.completedFuture(r);
            }
            return lockOrWait(requestId, contentKey, count, nanoClock.getAsLong() + maxWaitNanos);
        }).thenCompose(Function.identity());
    }

    /**
     * Takes the key's lock and computes, or, if another node holds it, polls until its value is in
     * Redis, the lock is free again (then tries to take it) or {@code deadline} passes (then computes).
     */
    private CompletableFuture<StoredResponse> lockOrWait(int requestId, long contentKey, int count, long deadline) {
        String token = nodeId + ":" + sequence.incrementAndGet();
        String lock = namespace + ":lock:" + contentKey;
        return redis.tryLock(lock, token, lockMillis).handle((got, e) -> {
            if (e != null) {
                redisFailed(e);
                return fromObjects(requestId, contentKey, count, false);
            }
            if (got) {
                return recheckThenCompute(requestId, contentKey, count, lock, token);
            }
            return later().thenCompose(x -> poll(requestId, contentKey, count, deadline));
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<StoredResponse> poll(int requestId, long contentKey, int count, long deadline) {
        if (nanoClock.getAsLong() - deadline > 0) {
            waitTimeouts.increment();
            LOG.debug("waited {} ms for another node to compute content {}; computing it here",
                    TimeUnit.NANOSECONDS.toMillis(maxWaitNanos), contentKey);
            return fromObjects(requestId, contentKey, count, false).thenApply(r -> {
                publish(valueKey(contentKey), r);
                return r;
            });
        }
        return sharedValue(contentKey).handle((r, e) -> {
            if (e != null) {
                redisFailed(e);
                return fromObjects(requestId, contentKey, count, false);
            }
            if (r != null) {
                waitedForOtherNode.increment();
                return CompletableFuture.completedFuture(r);
            }
            return lockOrWait(requestId, contentKey, count, deadline);
        }).thenCompose(Function.identity());
    }

    /**
     * With the lock held, looks for the value once more before computing: another node may have
     * stored it and released the lock between this node's miss and its taking the lock.
     */
    private CompletableFuture<StoredResponse> recheckThenCompute(int requestId, long contentKey, int count,
                                                                 String lock, String token) {
        return sharedValue(contentKey).handle((r, e) -> {
            if (e != null) {
                redisFailed(e);
            } else if (r != null) {
                waitedForOtherNode.increment();
                release(lock, token);
                return CompletableFuture.completedFuture(r);
            }
            return computeAndPublish(requestId, contentKey, count, lock, token);
        }).thenCompose(Function.identity());
    }

    /**
     * The response stored in Redis for {@code contentKey}, or null if there is none or it was
     * refused as damaged (see {@link #decode}); fails if Redis does.
     */
    private CompletableFuture<StoredResponse> sharedValue(long contentKey) {
        String key = valueKey(contentKey);
        return redis.get(key).thenApply(value -> value == null ? null : decode(key, value, contentKey));
    }

    private void release(String lock, String token) {
        write(() -> redis.unlock(lock, token)).whenComplete((x, ue) -> {
            if (ue != null) {
                redisFailed(ue);
            }
        });
    }

    private CompletableFuture<StoredResponse> computeAndPublish(int requestId, long contentKey, int count,
                                                                String lock, String token) {
        return fromObjects(requestId, contentKey, count, true).whenComplete((r, e) -> {
            // One connection runs commands in order: the value is stored before the lock is released,
            // so a node that finds the lock free finds the value too.
            if (r != null) {
                publish(valueKey(contentKey), r);
            }
            release(lock, token);
        });
    }

    private void publish(String key, StoredResponse r) {
        if (redis == null || !redis.usable()) {
            return;
        }
        write(() -> redis.setIfAbsent(key, r.encode())).whenComplete((x, e) -> {
            if (e != null) {
                redisFailed(e);
            }
        });
    }

    /**
     * Reads the response from the object store, or computes it and stores it there; without an
     * object store, computes it.
     */
    private CompletableFuture<StoredResponse> fromObjects(int requestId, long contentKey, int count, boolean locked) {
        if (objects == null || !objects.usable()) {
            return computeWithPermit(requestId, contentKey, count, locked);
        }
        String key = objectKey(contentKey);
        return objects.get(key, StoredResponse.encodedLength(count, blockSize)).handle((value, e) -> {
            if (e != null) {
                objectStoreFailures.increment();
                objects.failed(e);
                return computeWithPermit(requestId, contentKey, count, locked);
            }
            objects.succeeded();
            if (value != null) {
                try {
                    StoredResponse r = StoredResponse.decode(value, contentKey, blockSize);
                    objectStoreHits.increment();
                    return CompletableFuture.completedFuture(r);
                } catch (StoredResponse.CorruptValueException ce) {
                    corruptValues.increment();
                    LOG.warn("refused the object {} ({}); computing the response again", key, ce.getMessage());
                }
            }
            return computeWithPermit(requestId, contentKey, count, locked).thenApply(r -> {
                write(() -> objects.put(key, r.encode())).whenComplete((x, pe) -> {
                    if (pe != null) {
                        objectStoreFailures.increment();
                        objects.failed(pe);
                    }
                });
                return r;
            });
        }).thenCompose(Function.identity());
    }

    /** Computes from the origin holding one of the fleet's origin permits, when a limit is set. */
    private CompletableFuture<StoredResponse> computeWithPermit(int requestId, long contentKey, int count,
                                                              boolean locked) {
        if (maxOriginConcurrency == 0 || redis == null || !redis.usable()) {
            return compute(requestId, contentKey, count, locked);
        }
        String leaseId = nodeId + ":lease:" + sequence.incrementAndGet();
        return acquirePermit(leaseId, nanoClock.getAsLong() + permitWaitNanos).thenCompose(held -> {
            CompletableFuture<StoredResponse> c = compute(requestId, contentKey, count, locked);
            if (held) {
                c.whenComplete((r, e) -> write(() -> redis.releaseLease(semaphoreKey(), leaseId)).whenComplete((x, re) -> {
                    if (re != null) {
                        redisFailed(re);
                    }
                }));
            }
            return c;
        });
    }

    /** Completes with true once a lease is held, false if Redis failed (then the limit cannot hold). */
    private CompletableFuture<Boolean> acquirePermit(String leaseId, long deadline) {
        return redis.tryAcquireLease(semaphoreKey(), maxOriginConcurrency, leaseMillis, leaseId).handle((ok, e) -> {
            if (e != null) {
                redisFailed(e);
                return CompletableFuture.completedFuture(false);
            }
            if (ok) {
                return CompletableFuture.completedFuture(true);
            }
            if (nanoClock.getAsLong() - deadline > 0) {
                return CompletableFuture.<Boolean>failedFuture(new IllegalStateException("all "
                        + maxOriginConcurrency + " origin permits of namespace " + namespace + " stayed busy for "
                        + TimeUnit.NANOSECONDS.toMillis(permitWaitNanos) + " ms"));
            }
            return later().thenCompose(x -> acquirePermit(leaseId, deadline));
        }).thenCompose(Function.identity());
    }

    /** Computes from the origin; {@code locked}: this node holds the key's shared lock, no other computes it. */
    private CompletableFuture<StoredResponse> compute(int requestId, long contentKey, int count, boolean locked) {
        originComputations.increment();
        if (!locked) {
            uncoordinatedComputations.increment();
        }
        List<CompletableFuture<Block>> blocks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            try {
                blocks.add(origin.fetch(requestId, contentKey, i).toCompletableFuture());
            } catch (RuntimeException e) {
                blocks.add(CompletableFuture.failedFuture(e));
            }
        }
        return gather(contentKey, blocks);
    }

    private CompletableFuture<StoredResponse> gather(long contentKey, List<CompletableFuture<Block>> blocks) {
        return CompletableFuture.allOf(blocks.toArray(CompletableFuture[]::new)).thenApply(x -> {
            List<Block> list = new ArrayList<>(blocks.size());
            for (CompletableFuture<Block> f : blocks) {
                list.add(f.join());
            }
            return StoredResponse.of(contentKey, blockSize, list);
        });
    }

    private StoredResponse decode(String key, byte[] value, long contentKey) {
        try {
            return StoredResponse.decode(value, contentKey, blockSize);
        } catch (StoredResponse.CorruptValueException e) {
            corruptValues.increment();
            LOG.warn("refused the value at Redis key {} ({}); deleting it and computing the response again", key,
                    e.getMessage());
            write(() -> redis.delete(key));
            return null;
        }
    }

    private void redisFailed(Throwable e) {
        redisFailures.increment();
        redis.failed(e);
    }

    /**
     * Issues a write to a shared tier, counted in {@link TierStats#writesInFlight} until it ends, so
     * counters read once the count is zero see every value this node stored.
     */
    private <T> CompletableFuture<T> write(Supplier<CompletableFuture<T>> command) {
        writesInFlight.incrementAndGet();
        CompletableFuture<T> f;
        try {
            f = command.get();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return f.whenComplete((x, e) -> writesInFlight.decrementAndGet());
    }

    private CompletableFuture<Void> later() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            timer.schedule(() -> f.complete(null), pollMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            f.completeExceptionally(new IllegalStateException("tiered block source is closed", e));
        }
        return f;
    }

    private String valueKey(long contentKey) {
        return namespace + ":r:" + contentKey;
    }

    private String objectKey(long contentKey) {
        return namespace + "/r/" + contentKey;
    }

    private String semaphoreKey() {
        return namespace + ":origin-permits";
    }

    /**
     * Settings for one {@link TieredBlockSource}. Each setter validates at once and names the setting
     * and the bad value; {@link #build()} checks the combination. Not thread-safe.
     */
    public static final class Builder {
        private final BlockSource origin;
        private long memoryBytes = 64L << 20;
        private FileBlockStore file;
        private URI redis;
        private S3Client s3;
        private String bucket;
        private int objectStoreThreads = 8;
        private String namespace;
        private String nodeId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        private Duration lockTime = Duration.ofSeconds(10);
        private Duration maxWait = Duration.ofSeconds(5);
        private Duration pollInterval = Duration.ofMillis(20);
        private Duration redisTimeout = Duration.ofMillis(500);
        private Duration retryInterval = Duration.ofSeconds(1);
        private int maxOriginConcurrency;
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration permitWait = Duration.ofSeconds(10);
        private LongSupplier nanoClock = System::nanoTime;

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
            Objects.requireNonNull(namespace, "namespace");
            if (namespace.isEmpty() || namespace.length() > 200 || !namespace.chars().allMatch(c -> c > 32 && c < 127)) {
                throw new IllegalArgumentException(
                        "namespace must be 1-200 visible ASCII characters, was \"" + namespace + "\"");
            }
            this.namespace = namespace;
            return this;
        }

        /** This node's name in lock tokens and leases (diagnostics only). Default: random. */
        public Builder nodeId(String nodeId) {
            Objects.requireNonNull(nodeId, "nodeId");
            if (nodeId.isEmpty() || nodeId.length() > 100 || !nodeId.chars().allMatch(c -> c > 32 && c < 127)) {
                throw new IllegalArgumentException("nodeId must be 1-100 visible ASCII characters, was \"" + nodeId
                        + "\"");
            }
            this.nodeId = nodeId;
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

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
