package dev.khameleon.tiers;

import dev.khameleon.testing.LogCapture;
import dev.khameleon.testing.RedisProcess;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The object-store tier against a real S3 API (S3Proxy, in-memory backend) on 127.0.0.1. */
@Timeout(120)
class ObjectStoreTierTest {
    private static final String BUCKET = "khameleon-blocks";
    private S3Proxy proxy;
    private BlobStoreContext blobs;
    private S3Client s3;
    private final List<TieredBlockSource> nodes = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        blobs = ContextBuilder.newBuilder("transient").credentials("access", "secret").build(BlobStoreContext.class);
        proxy = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0")).build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!"STARTED".equals(proxy.getState())) {
            assertTrue(System.nanoTime() < deadline, "S3Proxy started");
            Thread.sleep(10);
        }
        s3 = S3Client.builder().endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
                .region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("access", "secret")))
                // S3-compatible stores other than AWS need the checksums only where the API requires them.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
        s3.createBucket(b -> b.bucket(BUCKET));
    }

    @AfterEach
    void stop() throws Exception {
        nodes.forEach(TieredBlockSource::close);
        if (s3 != null) {
            s3.close();
        }
        if (proxy != null) {
            proxy.stop();
        }
        if (blobs != null) {
            blobs.close();
        }
    }

    private TieredBlockSource node(CountingOrigin origin) {
        TieredBlockSource s = TieredBlockSource.builder(origin).memoryBytes(0).namespace("objects")
                .objectStore(s3, BUCKET).retryInterval(Duration.ofMillis(200)).build();
        nodes.add(s);
        return s;
    }

    private static void awaitObjects(S3Client s3, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s3.listObjectsV2(b -> b.bucket(BUCKET)).keyCount() < n) {
            assertTrue(System.nanoTime() < deadline, n + " objects stored");
            Thread.sleep(10);
        }
    }

    @Test
    void responseStoredByOneNode_isReadByAnother_withoutOriginComputation() throws Exception {
        CountingOrigin originA = new CountingOrigin(8, 3, 256, 0);
        CountingOrigin originB = new CountingOrigin(8, 3, 256, 0);
        TieredBlockSource a = node(originA);
        for (int r = 0; r < 8; r++) {
            a.fetch(r, 0).toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
        awaitObjects(s3, 8);
        TieredBlockSource b = node(originB);
        for (int r = 0; r < 8; r++) {
            for (int i = 0; i < 3; i++) {
                assertEquals(originB.expected(r, r, i), b.fetch(r, i).toCompletableFuture().get(20, TimeUnit.SECONDS));
            }
        }
        assertEquals(0, originB.computations.get());
        assertEquals(24, b.stats().objectStoreHits(), "memory tier off: every fetch read its object");
    }

    @Test
    void responseEvictedFromRedis_isReadFromTheObjectStore_andPutBackInRedis() throws Exception {
        try (RedisProcess redis = RedisProcess.start("32mb")) {
            try {
                CountingOrigin originA = new CountingOrigin(4, 2, 128, 0);
                CountingOrigin originB = new CountingOrigin(4, 2, 128, 0);
                TieredBlockSource a = TieredBlockSource.builder(originA).namespace("objects").redis(redis.uri())
                        .objectStore(s3, BUCKET).build();
                nodes.add(a);
                a.fetch(2, 0).toCompletableFuture().get(20, TimeUnit.SECONDS);
                awaitObjects(s3, 1);
                assertEquals("+OK", redis.command("FLUSHALL"));  // as if LRU had evicted it
                TieredBlockSource b = TieredBlockSource.builder(originB).namespace("objects").redis(redis.uri())
                        .objectStore(s3, BUCKET).build();
                nodes.add(b);
                assertEquals(originB.expected(2, 2, 1), b.fetch(2, 1).toCompletableFuture().get(20, TimeUnit.SECONDS));
                assertEquals(0, originB.computations.get());
                assertEquals(1, b.stats().objectStoreHits());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!":1".equals(redis.command("EXISTS", "objects:r:2"))) {
                    assertTrue(System.nanoTime() < deadline, "the response is back in Redis");
                    Thread.sleep(10);
                }
            } finally {
                // Before the Redis server stops: a tier whose server vanished under it would try to
                // reconnect while it closes.
                nodes.forEach(TieredBlockSource::close);
                nodes.clear();
            }
        }
    }

    @Test
    void badBucketName_isRefusedNamingTheSetting() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> TieredBlockSource.builder(new CountingOrigin(1, 1, 8, 0)).objectStore(s3, "Bad_Bucket"));
        assertTrue(e.getMessage().contains("bucket"), e.getMessage());
        IllegalStateException noNamespace = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> TieredBlockSource.builder(new CountingOrigin(1, 1, 8, 0)).objectStore(s3, BUCKET).build());
        assertTrue(noNamespace.getMessage().contains("namespace"), noNamespace.getMessage());
    }

    @Test
    void damagedObject_isRefusedAndRecomputed() throws Exception {
        CountingOrigin origin = new CountingOrigin(4, 2, 64, 0);
        byte[] value = StoredResponse.of(1, 64, List.of(origin.expected(1, 1, 0), origin.expected(1, 1, 1))).encode();
        value[40] ^= 1;
        s3.putObject(p -> p.bucket(BUCKET).key("objects/r/1"), RequestBody.fromBytes(value));
        TieredBlockSource s = node(origin);
        try (LogCapture refused = LogCapture.warnings(TieredBlockSource.class, "refused the object objects/r/1")) {
            assertEquals(origin.expected(1, 1, 1), s.fetch(1, 1).toCompletableFuture().get(20, TimeUnit.SECONDS));
            assertEquals(List.of("refused the object objects/r/1 (checksum mismatch); computing the response again"),
                    refused.messages());
        }
        assertEquals(1, s.stats().corruptValues());
        assertEquals(1, origin.computations.get());
    }

    @Test
    void objectStoreDown_degradesToTheOrigin() throws Exception {
        CountingOrigin origin = new CountingOrigin(6, 2, 64, 0);
        TieredBlockSource s = node(origin);
        try (LogCapture down = LogCapture.warnings(ObjectStoreTier.class, "unavailable (HttpHostConnectException")) {
            proxy.stop();
            for (int r = 0; r < 6; r++) {
                assertEquals(origin.expected(r, r, 1), s.fetch(r, 1).toCompletableFuture().get(30, TimeUnit.SECONDS));
            }
            assertEquals(1, down.messages().size(), "one warning for the outage: " + down.messages());
        }
        assertEquals(6, origin.computations.get(), "each response computed from the origin");
        assertTrue(s.stats().objectStoreFailures() >= 1);
    }
}
