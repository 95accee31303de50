package dev.khameleon.tiers;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The object-store tier: one object per response in an S3-compatible bucket, read with a byte-range
 * GET bounded by the size the response must have, so a foreign or oversized object never costs
 * more than that. A response the tiers below yield after a miss is stored there; a damaged object is
 * refused and replaced. The S3 client is synchronous, so calls run on this tier's own bounded pool,
 * never on the caller's thread; a full pool counts as a failure and the lookup goes on without
 * the tier. Failures skip the tier for the retry interval with one log line per outage. Thread-safe.
 */
final class ObjectStoreTier implements Tier {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectStoreTier.class);
    /** A refused object is news about a lookup, logged with the stack's other lookup events. */
    private static final Logger LOOKUP_LOG = LoggerFactory.getLogger(TieredBlockSource.class);

    /** How long {@link #close} waits for the calls under way. */
    static final long CLOSE_WAIT_SECONDS = 2;

    private final S3Client s3;
    private final String bucket;
    private final ThreadPoolExecutor pool;
    private final Outage outage;
    private final KeySpace keys;
    private final int blockSize;
    private final TierCounters counters;
    private volatile boolean closed;

    /**
     * The tier on {@code bucket} through {@code s3} (the caller's to close), with {@code threads} for
     * its calls, holding responses of {@code blockSize}-byte blocks under {@code keys}.
     */
    ObjectStoreTier(S3Client s3, String bucket, int threads, Duration retryInterval, LongSupplier nanoClock,
                    KeySpace keys, int blockSize, TierCounters counters) {
        this.s3 = s3;
        this.bucket = bucket;
        this.outage = new Outage(retryInterval, nanoClock);
        this.keys = keys;
        this.blockSize = blockSize;
        this.counters = counters;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024), r -> {
            Thread t = new Thread(r, "khameleon-tiers-s3-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
    }

    /** The response read from the bucket, or the one from the tiers below, which is then stored there. */
    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        Lookup lookup = chain.lookup();
        if (outage.skipping()) {
            return chain.proceed(lookup);
        }
        String key = keys.object(lookup.contentKey());
        return get(key, StoredResponse.encodedLength(lookup.count(), blockSize)).handle((value, e) -> {
            if (e != null) {
                failed(e);
                return chain.proceed(lookup);
            }
            succeeded();
            if (value != null) {
                try {
                    StoredResponse r = StoredResponse.decode(value, lookup.contentKey(), blockSize);
                    counters.objectStoreHits.increment();
                    return CompletableFuture.completedFuture(r);
                } catch (StoredResponse.CorruptValueException ce) {
                    counters.corruptValues.increment();
                    LOOKUP_LOG.warn("refused the object {} ({}); computing the response again", key, ce.getMessage());
                }
            }
            return chain.proceed(lookup).thenApply(r -> {
                counters.write(() -> put(key, r.encode()), this::failed);
                return r;
            });
        }).thenCompose(Function.identity());
    }

    /**
     * Stops this tier's threads, letting the calls under way finish for up to {@link #CLOSE_WAIT_SECONDS}
     * seconds (a value computed just before close still reaches the store); the S3 client is the caller's.
     */
    @Override
    public void close() {
        closed = true;
        pool.shutdown();
        try {
            if (!pool.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** The object at {@code key}, at most {@code maxBytes} of it, or null if there is none. */
    private CompletableFuture<byte[]> get(String key, long maxBytes) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return s3.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key)
                            .range("bytes=0-" + (maxBytes - 1)).build()).asByteArray();
                } catch (NoSuchKeyException e) {
                    return null;
                }
            }, pool);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Stores {@code value} at {@code key}. */
    private CompletableFuture<Void> put(String key, byte[] value) {
        try {
            return CompletableFuture.runAsync(() -> s3.putObject(PutObjectRequest.builder().bucket(bucket).key(key)
                    .contentLength((long) value.length).build(), RequestBody.fromBytes(value)), pool);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Records a failed call: counted, and the tier is skipped for the retry interval; logs once per outage. */
    private void failed(Throwable cause) {
        if (closed) {
            // A call the close cut short, or one refused by the stopped pool: not an outage.
            LOG.debug("object-store tier (bucket {}) call ended by close: {}", bucket, Outage.rootCause(cause));
            return;
        }
        counters.objectStoreFailures.increment();
        if (outage.fail()) {
            LOG.warn("object-store tier (bucket {}) unavailable ({}); serving from the other tiers, retrying every"
                    + " {} ms", bucket, Outage.rootCause(cause), outage.retryMillis());
        }
    }

    /** Records a call that succeeded; logs once when the tier comes back. */
    private void succeeded() {
        if (outage.recover()) {
            LOG.info("object-store tier (bucket {}) answers again", bucket);
        }
    }
}
