package dev.khameleon.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crafted store files whose index checksum is valid: every field the reader uses is validated
 * against the format's limits and the files' sizes, and a bad one is an IOException naming the
 * file and the field, never an OutOfMemoryError or a runtime exception.
 */
class CraftedFileTest {
    private static final int BLOCK = 1024;

    private static Path store(Path dir) throws IOException {
        // Three responses of 1 to 3 blocks in one segment (generation 1).
        Corpus.random(31, 3, BLOCK, 3 * BLOCK).importInto(dir);
        return dir;
    }

    private static void assertRefused(Path dir, String file, String... fragments) {
        IOException e = assertThrows(IOException.class, () -> FileBlockStore.open(dir));
        assertTrue(e.getMessage().contains(dir.resolve(file).toString()), e.getMessage());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), "expected '" + f + "' in: " + e.getMessage());
        }
    }

    @Test
    void hugeResponseCount_isRefusedBeforeAnythingIsAllocated(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.INDEX_COUNT, Integer.MAX_VALUE);
        assertRefused(dir, "index", "response count", String.valueOf(Integer.MAX_VALUE));
    }

    @Test
    void negativeResponseCount_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.INDEX_COUNT, -1);
        assertRefused(dir, "index", "response count", "-1");
    }

    @Test
    void hugeBlockCount_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.ENTRY0_BLOCKS, Integer.MAX_VALUE);
        assertRefused(dir, "index", "block count for response 0");
    }

    @Test
    void zeroBlockCount_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.ENTRY0_BLOCKS, 0);
        assertRefused(dir, "index", "block count for response 0");
    }

    @Test
    void absurdBlockSizes_areRefused(@TempDir Path dir) throws Exception {
        store(dir);
        for (int bad : new int[] {0, -4096, StoreIndex.MAX_BLOCK_SIZE + 1, Integer.MAX_VALUE}) {
            CraftedFiles.indexInt(dir, CraftedFiles.INDEX_BLOCK_SIZE, bad);
            assertRefused(dir, "index", "block size", String.valueOf(bad));
        }
    }

    @Test
    void blockSizeThatDisagreesWithTheSegment_isRefusedNamingTheSegment(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.INDEX_BLOCK_SIZE, 2048);
        assertRefused(dir, StoreIndex.segmentName(1), "block size 1024", "index says 2048");
    }

    @Test
    void wrongAlignment_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.INDEX_ALIGNMENT, 512);
        assertRefused(dir, "index", "alignment", "512");
    }

    @Test
    void impossibleGenerations_areRefused(@TempDir Path dir) throws Exception {
        store(dir);
        for (long bad : new long[] {0, -1, Long.MAX_VALUE}) {
            CraftedFiles.indexLong(dir, CraftedFiles.INDEX_GENERATION, bad);
            assertRefused(dir, "index", "invalid generation", String.valueOf(bad));
        }
    }

    @Test
    void segmentGenerationOutsideTheIndexsHistory_isRefused(@TempDir Path dir) throws Exception {
        store(dir);
        for (long bad : new long[] {0, 2, Long.MIN_VALUE}) {
            CraftedFiles.indexLong(dir, CraftedFiles.ENTRY0_SEGMENT, bad);
            assertRefused(dir, "index", "segment generation for response 0", String.valueOf(bad));
        }
    }

    @Test
    void offsetsInTheHeaderUnalignedOrPastTheLimit_areRefused(@TempDir Path dir) throws Exception {
        store(dir);
        for (long bad : new long[] {0, 4097, -4096, StoreIndex.MAX_SEGMENT_BYTES + 4096, Long.MAX_VALUE}) {
            CraftedFiles.indexLong(dir, CraftedFiles.ENTRY0_OFFSET, bad);
            assertRefused(dir, "index", "offset for response 0", String.valueOf(bad));
        }
    }

    @Test
    void offsetPastTheSegmentsEnd_isRefusedNamingBothFiles(@TempDir Path dir) throws Exception {
        store(dir);
        long size = Files.size(dir.resolve(StoreIndex.segmentName(1)));
        CraftedFiles.indexLong(dir, CraftedFiles.ENTRY0_OFFSET, StoreIndex.alignUp(size));
        IOException e = assertThrows(IOException.class, () -> FileBlockStore.open(dir));
        assertTrue(e.getMessage().contains("response 0") && e.getMessage().contains(StoreIndex.segmentName(1))
                && e.getMessage().contains("has only " + size + " bytes"), e.getMessage());
    }

    @Test
    void truncatedSegment_isRefusedNamingIt(@TempDir Path dir) throws Exception {
        store(dir);
        Path segment = dir.resolve(StoreIndex.segmentName(1));
        StoreIndex.Entry last = StoreIndex.read(dir).entry(2);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(last.offset() + (long) last.count() * BLOCK - 1);
        }
        IOException e = assertThrows(IOException.class, () -> FileBlockStore.open(dir));
        assertTrue(e.getMessage().contains(segment.toString()) && e.getMessage().contains("has only"), e.getMessage());
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        assertRefused(dir, StoreIndex.segmentName(1), "truncated", "100 bytes");
    }

    @Test
    void paddingLargerThanABlock_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.indexInt(store(dir), CraftedFiles.ENTRY0_PADDING, BLOCK + 1);
        assertRefused(dir, "index", "padding for response 0", String.valueOf(BLOCK + 1));
    }

    @Test
    void segmentWithBadMagic_isRefusedNamingIt(@TempDir Path dir) throws Exception {
        CraftedFiles.segmentInt(store(dir), 1, 0, 0x4a554e4b);
        assertRefused(dir, StoreIndex.segmentName(1), "bad magic");
    }

    @Test
    void segmentOfAnotherVersion_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.segmentInt(store(dir), 1, CraftedFiles.SEGMENT_VERSION, 2);
        assertRefused(dir, StoreIndex.segmentName(1), "format version 2");
    }

    @Test
    void segmentHeaderWithOtherBlockSize_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.segmentInt(store(dir), 1, CraftedFiles.SEGMENT_BLOCK_SIZE, 4096);
        assertRefused(dir, StoreIndex.segmentName(1), "block size 4096", "index says 1024");
    }

    @Test
    void segmentHeaderWithOtherGeneration_isRefused(@TempDir Path dir) throws Exception {
        CraftedFiles.segmentLong(store(dir), 1, CraftedFiles.SEGMENT_GENERATION, 7);
        assertRefused(dir, StoreIndex.segmentName(1), "generation 7", "index says 1");
    }

    @Test
    void indexLargerThanTheLimit_isRefusedWithoutReadingIt(@TempDir Path dir) throws Exception {
        store(dir);
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("index").toFile(), "rw")) {
            f.setLength(StoreIndex.MAX_INDEX_BYTES + 1L); // sparse: costs no disk
        }
        assertRefused(dir, "index", "more than the limit of " + StoreIndex.MAX_INDEX_BYTES);
    }

    @Test
    void writer_refusesBlockSizesAboveTheLimit(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StoreWriter.open(dir, StoreIndex.MAX_BLOCK_SIZE + 1, Duration.ZERO));
        assertTrue(e.getMessage().contains("blockSize must be in [1, " + StoreIndex.MAX_BLOCK_SIZE + "]"),
                e.getMessage());
    }

    @Test
    void untouchedStore_opensAfterValidation(@TempDir Path dir) throws Exception {
        store(dir);
        try (FileBlockStore s = FileBlockStore.builder(dir).strategy(ReadStrategy.NAIVE).ioThreads(1).build()) {
            assertEquals(3, s.requestCount());
        }
    }
}
