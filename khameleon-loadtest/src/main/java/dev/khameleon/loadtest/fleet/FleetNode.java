package dev.khameleon.loadtest.fleet;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.ServerMetrics;
import dev.khameleon.tiers.TierStats;
import dev.khameleon.tiers.TieredBlockSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One node of the fleet rig, run as its own JVM: a {@link KhameleonServer} on 127.0.0.1 serving a
 * grid of cells over a canvas larger than one screen, with the default predictor
 * ({@link GaussianGridPredictor} over the grid), whose blocks come from a {@link TieredBlockSource}
 * (this node's memory, then the fleet's shared Redis, then optionally the fleet's S3 object store)
 * over an origin that computes each response after a fixed delay, as a database query would.
 *
 * <p>{@code FleetNode <redis-uri> <namespace> <bytes-per-second> <memory-bytes> [<s3-endpoint> <bucket>]}
 * prints
 * {@code port N} once it listens, answers each {@code stats} line on standard input with one
 * {@link NodeCounters} line, and exits when standard input ends, so a node never outlives the rig
 * that started it.
 */
public final class FleetNode {
    /** The canvas every session's screen is placed on: four 1920×1080 screens. */
    static final double CANVAS_WIDTH = 3840;
    /** The canvas's height in pixels. */
    static final double CANVAS_HEIGHT = 2160;
    /**
     * Cell edge in pixels: a 128 × 72 grid, 9,216 requests, 75 MB of responses: more than the rig's
     * sessions ask for in a run, so the origin keeps working through the measured window (the
     * predictor's residual mass sends blocks of cells all over the grid).
     */
    static final double CELL = 30;
    /** The requests: one per cell of the canvas. */
    static final GridLayout GRID = new GridLayout((int) (CANVAS_HEIGHT / CELL), (int) (CANVAS_WIDTH / CELL), 0, 0,
            CELL, CELL);
    /** Blocks per response. */
    static final int BLOCKS = 4;
    /** Bytes per block. */
    static final int BLOCK_SIZE = 2048;
    /** What one origin computation takes before its response exists, standing for a database query. */
    static final long ORIGIN_DELAY_MILLIS = 5;
    /** The application's name and path. */
    static final String APP = "fleet";

    private FleetNode() {
    }

    /** Runs a node; see the class comment for the arguments and the protocol on standard input. */
    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 6) {
            System.err.println("usage: FleetNode <redis-uri> <namespace> <bytes-per-second> <memory-bytes>"
                    + " [<s3-endpoint> <bucket>]");
            System.exit(2);
        }
        ComputingOrigin origin = new ComputingOrigin();
        TieredBlockSource.Builder builder = TieredBlockSource.builder(origin).memoryBytes(Long.parseLong(args[3]))
                .redis(URI.create(args[0])).namespace(args[1]);
        S3Client s3 = null;
        if (args.length == 6) {
            s3 = S3Client.builder().endpointOverride(URI.create(args[4])).region(Region.US_EAST_1).forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                            ObjectStoreServer.ACCESS_KEY, ObjectStoreServer.SECRET_KEY)))
                    // An S3-compatible store other than AWS: checksums only where the API requires them.
                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                    .build();
            builder.objectStore(s3, args[5]);
        }
        TieredBlockSource tiers = builder.build();
        CountingSource counted = new CountingSource(tiers);
        Application app = Application.builder(APP).blockSource(counted)
                .predictor(GaussianGridPredictor.builder(GRID).build()).build();
        // Every connection comes from the proxy's address: per-address limits are the proxy's job.
        KhameleonServer server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1)
                .fixedBytesPerSecond(Double.parseDouble(args[2])).maxConnectionsPerAddress(10_000)
                .maxHandshakesPerAddress(10_000).application(app).build().start();
        System.out.println("port " + server.port());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("stats")) {
                System.out.println(counters(server, tiers, counted).format());
                System.out.flush();
            }
        }
        server.close();
        tiers.close();
        if (s3 != null) {
            s3.close();
        }
        System.exit(0);
    }

    private static NodeCounters counters(KhameleonServer server, TieredBlockSource tiers, CountingSource counted) {
        ServerMetrics m = server.metrics();
        TierStats t = tiers.stats();
        long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new NodeCounters(System.nanoTime(), cpu, m.bytesPushed(), m.blocksPushed(), counted.reads.sum(),
                t.memoryHits(), t.redisHits(), t.originComputations(), m.activeSessions(), t.waitTimeouts(),
                t.redisFailures(), t.objectStoreHits(), t.uncoordinatedComputations() + t.redisValuesLost(),
                t.loadsInFlight() + t.writesInFlight());
    }

    /** The bytes of block {@code index} of content {@code key}: a function of both, so a mix-up would show. */
    static byte[] payload(long key, int index) {
        byte[] p = new byte[BLOCK_SIZE];
        new SplittableRandom(key * BLOCKS + index).nextBytes(p);
        return p;
    }

    /** The origin: computes each block after {@link #ORIGIN_DELAY_MILLIS}, off the caller's thread. */
    static final class ComputingOrigin implements BlockSource {
        private final Executor later = CompletableFuture.delayedExecutor(ORIGIN_DELAY_MILLIS, TimeUnit.MILLISECONDS);

        @Override
        public int requestCount() {
            return GRID.requestCount();
        }

        @Override
        public int blockSize() {
            return BLOCK_SIZE;
        }

        @Override
        public int blockCount(int requestId) {
            return BLOCKS;
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            return fetch(requestId, requestId, blockIndex);
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
            return CompletableFuture.supplyAsync(() -> Block.wrap(requestId, blockIndex, BLOCKS,
                    payload(contentKey, blockIndex), 0), later);
        }
    }

    /** Counts the server's block reads, then passes them on to the tier stack. */
    static final class CountingSource implements BlockSource {
        final LongAdder reads = new LongAdder();
        private final BlockSource next;

        CountingSource(BlockSource next) {
            this.next = next;
        }

        @Override
        public int requestCount() {
            return next.requestCount();
        }

        @Override
        public int blockSize() {
            return next.blockSize();
        }

        @Override
        public int blockCount(int requestId) {
            return next.blockCount(requestId);
        }

        @Override
        public boolean isBlockCountBound(int requestId) {
            return next.isBlockCountBound(requestId);
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            reads.increment();
            return next.fetch(requestId, blockIndex);
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
            reads.increment();
            return next.fetch(requestId, contentKey, blockIndex);
        }

        @Override
        public boolean fetchesImmediately() {
            return next.fetchesImmediately();
        }

        @Override
        public void prefetch(ScheduleChunk chunk) {
            next.prefetch(chunk);
        }
    }
}
