package dev.khameleon.tiers;

import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;

/**
 * An S3 API on a free 127.0.0.1 port (S3Proxy over its in-memory backend) with one empty bucket, and
 * a client for it configured as an S3-compatible store other than AWS needs.
 */
final class S3ProxyServer {
    final String bucket;
    final S3Client s3;
    private final BlobStoreContext blobs;
    private final S3Proxy proxy;

    private S3ProxyServer(String bucket, BlobStoreContext blobs, S3Proxy proxy, S3Client s3) {
        this.bucket = bucket;
        this.blobs = blobs;
        this.proxy = proxy;
        this.s3 = s3;
    }

    /** Starts the server (its start returns once it listens) and creates {@code bucket}. */
    static S3ProxyServer start(String bucket) throws Exception {
        BlobStoreContext blobs = ContextBuilder.newBuilder("transient").credentials("access", "secret")
                .build(BlobStoreContext.class);
        S3Proxy proxy = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .build();
        proxy.start();
        if (!"STARTED".equals(proxy.getState())) {
            throw new IllegalStateException("S3Proxy is " + proxy.getState() + " after its start");
        }
        S3Client s3 = S3Client.builder().endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
                .region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("access", "secret")))
                // S3-compatible stores other than AWS need the checksums only where the API requires them.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
        s3.createBucket(b -> b.bucket(bucket));
        return new S3ProxyServer(bucket, blobs, proxy, s3);
    }

    /** Stops the server (an outage): every call of the client fails from now on. */
    void stop() throws Exception {
        proxy.stop();
    }

    /** Closes the client and stops the server. */
    void close() throws Exception {
        s3.close();
        proxy.stop();
        blobs.close();
    }
}
