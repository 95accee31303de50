package dev.khameleon.loadtest.store;

import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.store.ImportSummary;
import dev.khameleon.store.StoreWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A generated corpus: {@code n} responses of seeded pseudo-random bytes whose block counts are
 * uniform in {@code [mean/4, 7·mean/4]} with the mean chosen so the corpus has about
 * {@code totalBytes}; imported through {@link ProgressiveEncoder#fixedBlocks} and a
 * {@link StoreWriter}, exactly like real responses. Random bytes because the store neither
 * compresses nor interprets them.
 */
final class BenchCorpus {
    private final int[] counts;
    private final int blockSize;

    BenchCorpus(int responses, int blockSize, long totalBytes, long seed) {
        this.blockSize = blockSize;
        this.counts = new int[responses];
        double mean = Math.max(1.0, (double) totalBytes / ((double) responses * blockSize));
        SplittableRandom rnd = new SplittableRandom(seed);
        int lo = Math.max(1, (int) Math.round(mean / 4));
        int hi = Math.max(lo, (int) Math.round(7 * mean / 4));
        for (int i = 0; i < responses; i++) {
            counts[i] = lo + rnd.nextInt(hi - lo + 1);
        }
    }

    int blockCount(int request) {
        return counts[request];
    }

    long bytes() {
        long b = 0;
        for (int c : counts) {
            b += (long) c * blockSize;
        }
        return b;
    }

    /** Writes the corpus into a fresh store at {@code dir} (deleting what was there) and returns the import summary. */
    ImportSummary importInto(Path dir, long seed) throws IOException {
        deleteRecursively(dir);
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(blockSize);
        try (StoreWriter writer = StoreWriter.open(dir, blockSize)) {
            for (int r = 0; r < counts.length; r++) {
                SplittableRandom rnd = new SplittableRandom(seed ^ (r * 0x9E3779B97F4A7C15L));
                // A response that ends mid-block, as real ones do (the last block records its padding).
                int length = counts[r] * blockSize - rnd.nextInt(blockSize);
                ByteBuffer bytes = ByteBuffer.allocate((length + 7) & ~7);
                while (bytes.hasRemaining()) {
                    bytes.putLong(rnd.nextLong());
                }
                writer.add(r, java.util.Arrays.copyOf(bytes.array(), length), encoder);
            }
            return writer.commit();
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
