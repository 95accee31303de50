package dev.khameleon.store;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Coverage-guided fuzz tests of the store's on-disk format readers: whatever the bytes, parsing
 * ends in a valid result or an {@link IOException}, never an {@link OutOfMemoryError} or another
 * runtime exception. {@code mvn verify} replays the committed inputs under
 * {@code src/test/resources/dev/khameleon/store/StoreFormatFuzzTestInputs/}; to fuzz (one
 * method per run), see {@code docs/file-store.md}.
 */
class StoreFormatFuzzTest {
    private static final Path INDEX = Path.of("fuzz", StoreIndex.INDEX_FILE);
    private static final Path SEGMENT = Path.of("fuzz", StoreIndex.segmentName(1));
    /** Every fuzzed segment claims this size, so offsets past it exercise the extent check. */
    private static final long SEGMENT_BYTES = 1 << 20;

    /**
     * Index bytes with a valid trailing CRC32C (the input's last four bytes are replaced), so the
     * fuzzer explores the fields behind the checksum as a crafted file would. A parsed index must
     * satisfy what the readers rely on, and its extents are checked against 1 MiB segments.
     */
    @FuzzTest(maxDuration = "10s")
    void indexParse(byte[] data) {
        byte[] bytes = CraftedFiles.withValidCrc(data.clone());
        StoreIndex index;
        try {
            index = StoreIndex.parse(INDEX, bytes);
        } catch (IOException expected) {
            return;
        }
        for (int r = 0; r < index.size(); r++) {
            StoreIndex.Entry e = index.entry(r);
            boolean sound = e.count() >= 1 && e.crcs().length == e.count() && e.offset() >= StoreIndex.ALIGNMENT
                    && e.offset() % StoreIndex.ALIGNMENT == 0 && e.segment() >= 1 && e.segment() <= index.generation
                    && e.lastPadding() >= 0 && e.lastPadding() <= index.blockSize
                    && e.offset() + (long) e.count() * index.blockSize <= StoreIndex.MAX_SEGMENT_BYTES;
            if (!sound) {
                throw new AssertionError("parse accepted an unsound entry for response " + r + ": " + e);
            }
        }
        long[] generations = index.segments();
        Path[] paths = new Path[generations.length];
        Arrays.fill(paths, SEGMENT);
        long[] sizes = new long[generations.length];
        Arrays.fill(sizes, SEGMENT_BYTES);
        try {
            Segments.checkExtents(index, generations, paths, sizes);
        } catch (IOException expected) {
            // A response past the end of its segment.
        }
    }

    /**
     * The first bytes of a segment file of generation 1 in a store with 1024-byte blocks; the
     * file is as long as the input plus 4096 bytes, or shorter than a header when the input is
     * shorter than 16 bytes.
     */
    @FuzzTest(maxDuration = "10s")
    void segmentHeader(byte[] data) {
        long fileSize = data.length < 16 ? data.length : data.length + (long) StoreIndex.ALIGNMENT;
        try {
            Segments.checkHeader(SEGMENT, ByteBuffer.wrap(data), fileSize, 1024, 1);
        } catch (IOException expected) {
            // Not a segment of this store.
        }
    }
}
