package dev.khameleon.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** O_DIRECT support differs between file systems (tmpfs refuses it): the store must detect and cope. */
class DirectIoFallbackTest {

    @Test
    void auto_fallsBackToBufferedReadsWhenODirectIsRefused(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(31, 4, 4096, 3 * 4096);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).directIo(DirectIo.AUTO).refuseDirectForTesting()
                .build()) {
            assertFalse(store.directIo());
            assertFalse(store.stats().directIo());
            assertEquals(corpus.block(2, 1), store.fetch(2, 1).toCompletableFuture().get());
        }
    }

    @Test
    void required_failsToOpenWithErrorNamingTheFileWhenODirectIsRefused(@TempDir Path dir) throws Exception {
        Corpus.random(32, 2, 4096, 4096).importInto(dir);
        IOException e = assertThrows(IOException.class, () -> FileBlockStore.builder(dir)
                .directIo(DirectIo.REQUIRED).refuseDirectForTesting().build());
        assertTrue(e.getMessage().contains("O_DIRECT was required") && e.getMessage().contains("segment-"),
                e.getMessage());
    }

    @Test
    void auto_onTheRealFileSystem_readsCorrectlyWhicheverModeItGets(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(33, 4, 1000, 9000);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).directIo(DirectIo.AUTO).build()) {
            for (int r = 0; r < corpus.size(); r++) {
                for (int b = 0; b < corpus.count(r); b++) {
                    assertEquals(corpus.block(r, b), store.fetch(r, b).toCompletableFuture().get());
                }
            }
            assertEquals(store.directIo(), store.stats().directIo());
        }
    }
}
