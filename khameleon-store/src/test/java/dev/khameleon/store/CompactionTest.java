package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compaction moves live responses out of segments with dead bytes, crash-safely and while the store serves. */
class CompactionTest {
    private static final int BLOCK = 1024;
    private static final ProgressiveEncoder<byte[]> ENCODER = ProgressiveEncoder.fixedBlocks(BLOCK);
    private static final byte[] REPLACEMENT = {5, 4, 3, 2, 1};

    /** A store of 6 responses in segment 1, then response 2 replaced by an import into segment 2. */
    private static Corpus storeWithDeadBytes(Path dir) throws IOException {
        Corpus corpus = Corpus.random(61, 6, BLOCK, 8 * BLOCK);
        corpus.importInto(dir);
        try (StoreWriter w = StoreWriter.open(dir, BLOCK)) {
            w.add(2, REPLACEMENT, ENCODER);
            w.commit();
        }
        return corpus;
    }

    private static void assertServesEverything(FileBlockStore store, Corpus corpus) throws Exception {
        for (int r = 0; r < corpus.size(); r++) {
            if (r == 2) {
                Block b = store.fetch(2, 0).toCompletableFuture().get();
                assertEquals(ENCODER.encode(2, REPLACEMENT).get(0), b);
                continue;
            }
            for (int b = 0; b < corpus.count(r); b++) {
                assertEquals(corpus.block(r, b), store.fetch(r, b).toCompletableFuture().get(), r + "/" + b);
            }
        }
    }

    private static long segmentCount(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("segment-")).count();
        }
    }

    @Test
    void compact_movesLiveResponsesOutOfSegmentsWithDeadBytes_andDeletesThem(@TempDir Path dir) throws Exception {
        Corpus corpus = storeWithDeadBytes(dir);
        assertEquals(2, segmentCount(dir));
        long before = Files.size(dir.resolve(StoreIndex.segmentName(1)));

        ImportSummary summary = StoreWriter.compact(dir, Duration.ZERO);

        assertEquals(5, summary.responses(), "the five live responses of segment 1 moved");
        assertFalse(Files.exists(dir.resolve(StoreIndex.segmentName(1))), "segment 1 held dead bytes: deleted");
        assertTrue(Files.exists(dir.resolve(StoreIndex.segmentName(2))), "segment 2 held none: kept");
        assertTrue(Files.size(dir.resolve(StoreIndex.segmentName(3))) < before, "fewer bytes than before");
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertServesEverything(store, corpus);
        }
    }

    @Test
    void compact_withoutDeadBytes_writesNothing(@TempDir Path dir) throws Exception {
        Corpus.random(62, 4, BLOCK, 4 * BLOCK).importInto(dir);
        assertEquals(0, StoreWriter.compact(dir, Duration.ZERO).responses());
        assertEquals(1, segmentCount(dir));
    }

    @Test
    void compact_whileAStoreServes_leavesItsViewIntact(@TempDir Path dir) throws Exception {
        Corpus corpus = storeWithDeadBytes(dir);
        try (FileBlockStore serving = FileBlockStore.builder(dir).strategy(ReadStrategy.SCHEDULE_AWARE).build()) {
            assertServesEverything(serving, corpus);
            StoreWriter.compact(dir, Duration.ZERO);
            // Its segment 1 is deleted from the directory but still open: every block is still served.
            assertServesEverything(serving, corpus);
        }
    }

    @Test
    void crashInTheMiddle_leavesTheStoreAsItWas_andTheNextWriterCleansUp(@TempDir Path dir) throws Exception {
        Corpus corpus = storeWithDeadBytes(dir);
        StoreWriter writer = StoreWriter.open(dir, BLOCK);
        assertEquals(5, writer.compact());
        writer.crashAfterDataSync();
        assertEquals(3, segmentCount(dir), "the compacted copy is on disk, unpublished");
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertServesEverything(store, corpus);
        }
        ImportSummary again = StoreWriter.compact(dir, Duration.ZERO);
        assertEquals(5, again.responses());
        assertEquals(2, segmentCount(dir), "the crashed copy and segment 1 are gone");
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertServesEverything(store, corpus);
        }
    }

    @Test
    void corruptLiveBlock_failsTheCompaction_andPublishesNothing(@TempDir Path dir) throws Exception {
        storeWithDeadBytes(dir);
        Path segment = dir.resolve(StoreIndex.segmentName(1));
        StoreIndex index = StoreIndex.read(dir);
        long at = index.entry(0).offset();
        try (var ch = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) 0xFF, 0x00, 0x7F}), at);
        }
        long generation = index.generation;
        org.junit.jupiter.api.Assertions.assertThrows(BlockCorruptedException.class,
                () -> StoreWriter.compact(dir, Duration.ZERO));
        assertEquals(generation, StoreIndex.read(dir).generation, "nothing published");
        assertEquals(2, segmentCount(dir), "the abandoned copy was deleted");
    }
}
