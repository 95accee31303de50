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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The object-store tier: one object per response in an S3-compatible bucket, read with a byte-range
 * GET bounded by the size the response must have, so a foreign or oversized object never costs
 * more than that. The S3 client is synchronous, so calls run on this tier's own bounded pool,
 * never on the caller's thread; a full pool counts as a failure and the fetch goes on without
 * the tier. Failures skip the tier for the retry interval with one log line per outage. Thread-safe.
 */
final class ObjectStoreTier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectStoreTier.class);

    private final S3Client s3;
    private final String bucket;
    private final ThreadPoolExecutor pool;
    private final long retryNanos;
    private final LongSupplier nanoClock;
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile long downUntilNanos;

    ObjectStoreTier(S3Client s3, String bucket, int threads, Duration retryInterval, LongSupplier nanoClock) {
        this.s3 = s3;
        this.bucket = bucket;
        this.retryNanos = retryInterval.toNanos();
        this.nanoClock = nanoClock;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024), r -> {
            Thread t = new Thread(r, "khameleon-tiers-s3-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
    }

    /** Whether to use the tier now: not inside the back-off after a failure. */
    boolean usable() {
        return !(down.get() && nanoClock.getAsLong() - downUntilNanos < 0);
    }

    /** The object at {@code key}, at most {@code maxBytes} of it, or null if there is none. */
    CompletableFuture<byte[]> get(String key, long maxBytes) {
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
    CompletableFuture<Void> put(String key, byte[] value) {
        try {
            return CompletableFuture.runAsync(() -> s3.putObject(PutObjectRequest.builder().bucket(bucket).key(key)
                    .contentLength((long) value.length).build(), RequestBody.fromBytes(value)), pool);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Records a failed call: the tier is skipped for the retry interval; logs once per outage. */
    void failed(Throwable cause) {
        downUntilNanos = nanoClock.getAsLong() + retryNanos;
        if (down.compareAndSet(false, true)) {
            Throwable root = cause;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            LOG.warn("object-store tier (bucket {}) unavailable ({}: {}); serving from the other tiers, retrying every"
                    + " {} ms", bucket, root.getClass().getSimpleName(), root.getMessage(),
                    TimeUnit.NANOSECONDS.toMillis(retryNanos));
        }
    }

    /** Records a call that succeeded; logs once when the tier comes back. */
    void succeeded() {
        if (down.get() && down.compareAndSet(true, false)) {
            LOG.info("object-store tier (bucket {}) answers again", bucket);
        }
    }

    /** Stops this tier's threads; the S3 client is the caller's. */
    @Override
    public void close() {
        pool.shutdownNow();
    }
}
