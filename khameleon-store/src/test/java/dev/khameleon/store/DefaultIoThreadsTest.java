package dev.khameleon.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How many I/O threads a schedule-aware store runs when none are configured, and what a fixed count means. */
class DefaultIoThreadsTest {
    private static final int BLOCK = 4096;

    @Test
    void default_adaptsUpToTheMaximum_startingFromItsFloor(@TempDir Path dir) throws Exception {
        Corpus.random(1, 4, BLOCK, 8 * BLOCK).importInto(dir);
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            assertEquals(FileBlockStore.ADAPTIVE_MAX_IO_THREADS, reader.ioThreads(), "no demand bursts by default");
            assertEquals(FileBlockStore.ADAPTIVE_MIN_READS, reader.readLimit());
        }
    }

    @Test
    void default_withASmallPool_usesFewerThreads_insteadOfRefusingToOpen(@TempDir Path dir) throws Exception {
        Corpus.random(2, 4, BLOCK, 8 * BLOCK).importInto(dir);
        // Reads of up to 64 KiB (16 page-aligned blocks); 4 of them fit.
        try (FileBlockStore store = FileBlockStore.builder(dir).readAheadBytes(16 * BLOCK).poolBytes(4 * 16 * BLOCK)
                .build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            assertEquals(3, reader.ioThreads(), "one read's memory stays free beside the threads' reads; none for bursts");
            assertTrue(reader.readLimit() <= 3);
        }
    }

    @Test
    void default_refusesAPoolThatHoldsOneRead(@TempDir Path dir) throws Exception {
        Corpus.random(3, 4, BLOCK, 8 * BLOCK).importInto(dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FileBlockStore.builder(dir)
                .readAheadBytes(16 * BLOCK).poolBytes(16 * BLOCK).build());
        assertTrue(e.getMessage().contains("poolBytes"), e.getMessage());
    }

    @Test
    void demandBurstReads_addThreads_andAreBounded(@TempDir Path dir) throws Exception {
        Corpus.random(5, 4, BLOCK, 8 * BLOCK).importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).demandBurstReads(8).build()) {
            assertEquals(FileBlockStore.ADAPTIVE_MAX_IO_THREADS + 8, ((ReadAheadReader) store.reader()).ioThreads());
        }
        try (FileBlockStore store = FileBlockStore.builder(dir).demandBurstReads(8).ioThreads(2).build()) {
            assertEquals(2, ((ReadAheadReader) store.reader()).ioThreads(), "a fixed count has no bursts");
        }
        assertThrows(IllegalArgumentException.class, () -> FileBlockStore.builder(dir).demandBurstReads(-1));
        assertThrows(IllegalArgumentException.class,
                () -> FileBlockStore.builder(dir).demandBurstReads(ReadAheadReader.MAX_DEMAND_BURST_READS + 1));
    }

    @Test
    void fixedIoThreads_neverAdapt(@TempDir Path dir) throws Exception {
        Corpus.random(4, 4, BLOCK, 8 * BLOCK).importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).ioThreads(2).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            assertEquals(2, reader.ioThreads());
            for (int r = 0; r < 4; r++) {
                store.fetch(r, 0).toCompletableFuture().get();
            }
            assertEquals(2, reader.readLimit());
        }
    }
}
