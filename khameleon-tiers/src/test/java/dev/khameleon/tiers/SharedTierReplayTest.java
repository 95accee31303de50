package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.testing.BalabitTraces;
import dev.khameleon.testing.RedisProcess;
import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three nodes replaying real pointer traces (Balabit sessions over a 1920×1080 grid of 96 cells)
 * against an origin that encodes real photos (quarters of the Kodak suite) as progressive JPEGs:
 * how many encodings the shared Redis tier saves, and what a response costs from each tier.
 * Prints the tables of docs/benchmarks.md; asserts the counts, never the times.
 */
@Timeout(600)
class SharedTierReplayTest {
    private static final GridLayout GRID = Layout.grid(8, 12, 0, 0, 160, 135);
    private static final int VISITS_PER_NODE = 200;
    private static final int BLOCK_SIZE = 4096;

    /** The shared data directory; skips the test, naming the path, without the Kodak images or Balabit traces. */
    private static Path data() {
        SharedData.requireDirectory("images/kodak", "Kodak images");
        BalabitTraces.directoryOrSkip();
        return SharedData.root();
    }

    /** Cell {@code i} shows quarter {@code i / 24} of Kodak photo {@code i % 24 + 1}. */
    private static List<BufferedImage> photos(Path data) throws IOException {
        List<BufferedImage> out = new ArrayList<>();
        for (int i = 0; i < GRID.requestCount(); i++) {
            BufferedImage img = ImageIO.read(data.resolve(String.format(Locale.ROOT, "images/kodak/kodim%02d.png",
                    i % 24 + 1)).toFile());
            int q = i / 24;
            int w = img.getWidth() / 2;
            int h = img.getHeight() / 2;
            out.add(img.getSubimage((q % 2) * w, (q / 2) * h, w, h));
        }
        return out;
    }

    /** The cells a session's pointer enters, in order (a cell entered again counts again). */
    private static List<Integer> visits(Path session, int max) {
        List<Integer> cells = new ArrayList<>();
        int last = -1;
        for (BalabitTraces.Sample s : BalabitTraces.read(session)) {
            if (cells.size() >= max) {
                break;
            }
            int cell = GRID.requestAt(s.x(), s.y());
            if (cell >= 0 && cell != last) {
                cells.add(cell);
                last = cell;
            }
        }
        return cells;
    }

    /** The first session of three different users: one per node. */
    private static List<List<Integer>> traces(Path data) throws IOException {
        List<List<Integer>> out = new ArrayList<>();
        for (String user : List.of("user12", "user15", "user16")) {
            out.add(visits(BalabitTraces.session(data.resolve("pointer/balabit"), user, 0), VISITS_PER_NODE));
        }
        return out;
    }

    /** Encodes a photo on its own threads each time it is computed: a cold origin, as an encoder is. */
    static final class EncodingOrigin implements BlockSource, AutoCloseable {
        final ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(BLOCK_SIZE).build();
        final List<BufferedImage> photos;
        final int[] counts;
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final ConcurrentHashMap<Long, Encoding> running = new ConcurrentHashMap<>();
        final AtomicInteger encodings = new AtomicInteger();

        EncodingOrigin(List<BufferedImage> photos, int[] counts) {
            this.photos = photos;
            this.counts = counts;
        }

        @Override
        public int requestCount() {
            return photos.size();
        }

        @Override
        public int blockSize() {
            return BLOCK_SIZE;
        }

        @Override
        public int blockCount(int requestId) {
            return counts[requestId];
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            // The blocks of one computation are asked for together: they share one encoding, kept
            // until each of them has been asked for (an encoding that finished before the last
            // block was asked for would otherwise be counted twice).
            Encoding[] mine = new Encoding[1];
            running.compute((long) requestId, (k, old) -> {
                Encoding cur = old;
                if (cur == null) {
                    encodings.incrementAndGet();
                    cur = new Encoding(CompletableFuture.supplyAsync(
                            () -> encoder.encode(requestId, photos.get(requestId)), pool), counts[requestId]);
                }
                mine[0] = cur;
                return --cur.unasked == 0 ? null : cur;
            });
            return mine[0].blocks.thenApply(blocks -> blocks.get(blockIndex));
        }

        /** One encoding and how many of its blocks are still to be asked for. */
        static final class Encoding {
            final CompletableFuture<List<Block>> blocks;
            int unasked;

            Encoding(CompletableFuture<List<Block>> blocks, int count) {
                this.blocks = blocks;
                this.unasked = count;
            }
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    private record Run(int encodings, long millis, int responses) {
    }

    /** Three nodes replay their traces at once, each fetching every block of every cell it enters. */
    private static Run replay(List<List<Integer>> traces, EncodingOrigin origin, List<TieredBlockSource> nodes,
                              List<List<Block>> reference) throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int k = 0; k < nodes.size(); k++) {
            TieredBlockSource node = nodes.get(k);
            List<Integer> trace = traces.get(k);
            runs.add(CompletableFuture.runAsync(() -> {
                for (int cell : trace) {
                    for (int b = 0; b < node.blockCount(cell); b++) {
                        Block got = node.fetch(cell, b).toCompletableFuture().join();
                        assertArrayEquals(reference.get(cell).get(b).payloadBytes(), got.payloadBytes());
                    }
                }
            }, Executors.newSingleThreadExecutor()));
        }
        for (CompletableFuture<Void> r : runs) {
            r.get(300, TimeUnit.SECONDS);
        }
        int responses = traces.stream().mapToInt(List::size).sum();
        return new Run(origin.encodings.get(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), responses);
    }

    @Test
    void threeNodesReplayingRealTraces_encodeEachResponseOnceWithRedis() throws Exception {
        Path data = data();
        List<BufferedImage> photos = photos(data);
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(BLOCK_SIZE).build();
        List<List<Block>> reference = new ArrayList<>();
        int[] counts = new int[photos.size()];
        for (int i = 0; i < photos.size(); i++) {
            reference.add(encoder.encode(i, photos.get(i)));
            counts[i] = reference.get(i).size();
        }
        List<List<Integer>> traces = traces(data);
        Set<Integer> union = new HashSet<>();
        int sumDistinct = 0;
        for (List<Integer> t : traces) {
            sumDistinct += new HashSet<>(t).size();
            union.addAll(t);
        }
        long totalBytes = Arrays.stream(counts).mapToLong(c -> (long) c * BLOCK_SIZE).sum();
        // A memory tier of a quarter of the content: each node evicts and comes back.
        long memory = totalBytes / 4;

        Run local;
        try (EncodingOrigin origin = new EncodingOrigin(photos, counts)) {
            List<TieredBlockSource> nodes = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                nodes.add(TieredBlockSource.builder(origin).memoryBytes(memory).build());
            }
            local = replay(traces, origin, nodes, reference);
            nodes.forEach(TieredBlockSource::close);
        }
        Run shared;
        try (RedisProcess redis = RedisProcess.start("256mb"); EncodingOrigin origin = new EncodingOrigin(photos, counts)) {
            List<TieredBlockSource> nodes = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                nodes.add(TieredBlockSource.builder(origin).memoryBytes(memory).redis(redis.uri())
                        .namespace("replay").nodeId("node" + k).build());
            }
            shared = replay(traces, origin, nodes, reference);
            nodes.forEach(TieredBlockSource::close);
        }
        System.out.printf(Locale.ROOT, "%n%d cells, %d visits per node (%d in all); %d distinct per node summed, %d"
                        + " distinct across nodes; content %.1f MB, memory tier %.1f MB per node%n",
                GRID.requestCount(), VISITS_PER_NODE, local.responses(), sumDistinct, union.size(), totalBytes / 1e6,
                memory / 1e6);
        System.out.println("| stack per node | encodings | replay wall time |");
        System.out.println("|---|---:|---:|");
        System.out.printf(Locale.ROOT, "| memory only | %d | %.1f s |%n", local.encodings(), local.millis() / 1e3);
        System.out.printf(Locale.ROOT, "| memory + shared Redis | %d | %.1f s |%n", shared.encodings(),
                shared.millis() / 1e3);
        assertTrue(local.encodings() >= sumDistinct, "without a shared tier each node encodes what it shows");
        assertEquals(union.size(), shared.encodings(), "with Redis (256 MB, no eviction) every response is encoded"
                + " once in the fleet");
    }

    @Test
    void latencyOfOneResponse_perTier() throws Exception {
        Path data = data();
        List<BufferedImage> photos = photos(data);
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(BLOCK_SIZE).build();
        int[] counts = new int[photos.size()];
        for (int i = 0; i < photos.size(); i++) {
            counts[i] = encoder.encode(i, photos.get(i)).size();
        }
        int n = photos.size();
        long[][] nanos = new long[3][n];
        try (RedisProcess redis = RedisProcess.start("256mb"); EncodingOrigin origin = new EncodingOrigin(photos, counts);
             TieredBlockSource first = TieredBlockSource.builder(origin).redis(redis.uri()).namespace("latency")
                     .build();
             TieredBlockSource second = TieredBlockSource.builder(origin).redis(redis.uri()).namespace("latency")
                     .build()) {
            for (int i = 0; i < n; i++) {
                nanos[0][i] = timeResponse(first, i);       // origin: encode, then publish to Redis
            }
            Thread.sleep(500);                              // let the last values land in Redis
            for (int i = 0; i < n; i++) {
                nanos[1][i] = timeResponse(second, i);      // Redis: another node, its memory empty
            }
            for (int i = 0; i < n; i++) {
                nanos[2][i] = timeResponse(second, i);      // memory
            }
            assertEquals(n, origin.encodings.get());
            assertEquals(n, second.stats().redisHits());
            assertEquals(0, second.stats().originComputations());
        }
        String[] tiers = {"origin (progressive JPEG encoding)", "Redis (another node's result)", "memory"};
        System.out.printf(Locale.ROOT, "%nOne whole response (%.1f blocks of %d bytes on average), %d responses per"
                + " tier:%n", Arrays.stream(counts).average().orElse(0), BLOCK_SIZE, n);
        System.out.println("| tier | p50 ms | p90 ms | max ms |");
        System.out.println("|---|---:|---:|---:|");
        for (int t = 0; t < 3; t++) {
            long[] s = nanos[t].clone();
            Arrays.sort(s);
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f |%n", tiers[t], s[n / 2] / 1e6,
                    s[(int) (n * 0.9)] / 1e6, s[n - 1] / 1e6);
        }
    }

    private static long timeResponse(TieredBlockSource s, int cell) throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<Block>> fs = new ArrayList<>();
        for (int b = 0; b < s.blockCount(cell); b++) {
            fs.add(s.fetch(cell, b).toCompletableFuture());
        }
        for (CompletableFuture<Block> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        return System.nanoTime() - start;
    }
}
