package dev.khameleon.loadtest.fleet;

import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

import java.io.InputStream;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The fleet rig's S3-compatible object store, run as its own JVM: S3Proxy on 127.0.0.1 over
 * jclouds' in-memory ({@code transient}) backend, with one bucket. It checks no signature (it is
 * on loopback and throw-away); the nodes sign with {@link #ACCESS_KEY} and {@link #SECRET_KEY} all the
 * same. Its content lives only as long as the process.
 *
 * <p>{@code ObjectStoreServer <bucket>} creates the bucket, prints {@code port N} once it listens,
 * and exits when standard input ends, so it never outlives the rig that started it.
 */
public final class ObjectStoreServer {
    /** The access key the nodes sign with. */
    static final String ACCESS_KEY = "fleet";
    /** The secret key the nodes sign with. */
    static final String SECRET_KEY = "fleet-secret";

    private ObjectStoreServer() {
    }

    /** Runs the store; see the class comment for the argument and the protocol on standard input. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ObjectStoreServer <bucket>");
            System.exit(2);
        }
        BlobStoreContext blobs = ContextBuilder.newBuilder("transient").credentials(ACCESS_KEY, SECRET_KEY)
                .build(BlobStoreContext.class);
        blobs.getBlobStore().createContainerInLocation(null, args[0]);
        S3Proxy proxy = S3Proxy.builder().blobStore(blobs.getBlobStore())
                .endpoint(URI.create("http://127.0.0.1:0")).build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                System.err.println("S3Proxy did not start within 30 s (state " + proxy.getState() + ")");
                System.exit(1);
            }
            Thread.sleep(10);
        }
        System.out.println("port " + proxy.getPort());
        System.out.flush();
        InputStream in = System.in;
        while (in.read() != -1) {
            // Only the end of standard input matters.
        }
        proxy.stop();
        blobs.close();
        System.exit(0);
    }
}
