package dev.khameleon.store;

import dev.khameleon.core.spi.ProgressiveEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CrashSafetyTest {
    private static final ProgressiveEncoder<byte[]> ENCODER = ProgressiveEncoder.fixedBlocks(1024);

    @Test
    void crashBetweenDataSyncAndIndexPublish_leavesTheImportInvisible(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(21, 3, 1024, 3000);
        corpus.importInto(dir);
        StoreWriter writer = StoreWriter.open(dir, 1024);
        writer.add(1, new byte[] {9, 9, 9}, ENCODER);
        writer.add(3, new byte[] {8, 8}, ENCODER);
        writer.crashAfterDataSync();
        assertEquals(2, segmentCount(dir), "the unpublished segment is on disk");

        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertEquals(3, store.requestCount());
            assertEquals(corpus.block(1, 0), store.fetch(1, 0).toCompletableFuture().get());
        }
        // The next writer cleans up what the crashed one left and imports normally.
        try (StoreWriter next = StoreWriter.open(dir, 1024)) {
            assertEquals(StoreIndex.ALIGNMENT, Files.size(dir.resolve(StoreIndex.segmentName(2))),
                    "the crashed import's data is gone; only the new writer's header is there");
            next.add(3, new byte[] {7}, ENCODER);
            next.commit();
        }
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertEquals(4, store.requestCount());
            assertEquals(7, store.fetch(3, 0).toCompletableFuture().get().content().get(0));
            assertEquals(corpus.block(1, 0), store.fetch(1, 0).toCompletableFuture().get());
        }
    }

    @Test
    void crashDuringFirstImport_leavesNoStore(@TempDir Path dir) throws Exception {
        StoreWriter writer = StoreWriter.open(dir, 1024);
        writer.add(0, new byte[] {1}, ENCODER);
        writer.crashAfterDataSync();
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> FileBlockStore.open(dir));
        assertTrue(e.getMessage().contains("no published store index"), e.getMessage());
    }

    @Test
    void partialTemporaryIndex_isIgnoredAndRemoved(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(22, 2, 1024, 3000);
        corpus.importInto(dir);
        Files.write(dir.resolve(StoreIndex.INDEX_TEMP), new byte[] {'K', 'H', 'S'});
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertEquals(corpus.block(1, 0), store.fetch(1, 0).toCompletableFuture().get());
        }
        StoreWriter.open(dir, 1024).close();
        assertFalse(Files.exists(dir.resolve(StoreIndex.INDEX_TEMP)));
    }

    @Test
    void abandonedWriter_leavesStoreUnchangedAndNoFiles(@TempDir Path dir) throws Exception {
        Corpus.random(23, 2, 1024, 3000).importInto(dir);
        try (StoreWriter writer = StoreWriter.open(dir, 1024)) {
            writer.add(2, new byte[] {1}, ENCODER);
        }
        assertEquals(1, segmentCount(dir));
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertEquals(2, store.requestCount());
        }
    }

    @Test
    void failedEncodingMidImport_publishesNothing(@TempDir Path dir) throws Exception {
        ProgressiveEncoder<byte[]> picky = ProgressiveEncoder.singleBlock(1024, bytes -> bytes);
        assertThrows(IllegalArgumentException.class, () -> FileBlockStore.importResponses(dir, picky, 0,
                java.util.List.of(new byte[10], new byte[2000])));
        assertThrows(NoSuchFileException.class, () -> FileBlockStore.open(dir));
        assertEquals(0, segmentCount(dir));
    }

    @Test
    void commitWithGap_isRefusedAndPublishesNothing(@TempDir Path dir) throws Exception {
        try (StoreWriter writer = StoreWriter.open(dir, 1024)) {
            writer.add(0, new byte[] {1}, ENCODER);
            writer.add(2, new byte[] {2}, ENCODER);
            IllegalStateException e = assertThrows(IllegalStateException.class, writer::commit);
            assertTrue(e.getMessage().contains("request 1 is missing"), e.getMessage());
        }
        assertFalse(Files.exists(dir.resolve(StoreIndex.INDEX_FILE)));
    }

    @Test
    void secondWriter_isRefusedWhileOneIsOpen(@TempDir Path dir) throws Exception {
        try (StoreWriter writer = StoreWriter.open(dir, 1024)) {
            IOException e = assertThrows(IOException.class, () -> StoreWriter.open(dir, 1024));
            assertTrue(e.getMessage().contains("another StoreWriter"), e.getMessage());
            assertEquals(1024, writer.blockSize());
        }
    }

    @Test
    void writer_rejectsOtherBlockSizeThanTheStores(@TempDir Path dir) throws Exception {
        Corpus.random(24, 1, 1024, 100).importInto(dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreWriter.open(dir, 512));
        assertTrue(e.getMessage().contains("blockSize 512"), e.getMessage());
    }

    private static long segmentCount(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("segment-")).count();
        }
    }
}
