package dev.khameleon.store;

import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How many reads each strategy issues for a given access pattern: the point of the strategies. */
class ReadMergingTest {
    private static final int BLOCK = 4096;

    @Test
    void serializedReadahead_missReadsTheRestOfTheResponseInOneCall(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(41, 3, BLOCK, 20 * BLOCK);
        corpus.importInto(dir);
        int r = 1;
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(ReadStrategy.SERIALIZED_READAHEAD)
                .readAheadBytes(64 * BLOCK).build()) {
            for (int b = 0; b < corpus.count(r); b++) {
                assertEquals(corpus.block(r, b), store.fetch(r, b).toCompletableFuture().get());
            }
            StoreStats stats = store.stats();
            assertEquals(1, stats.readCalls());
            assertEquals(corpus.count(r) - 1, stats.blocksFromMemory());
        }
    }

    @Test
    void scheduleAware_announcedBlocksOfAResponseAreReadInOneCall(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(42, 4, BLOCK, 20 * BLOCK);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(ReadStrategy.SCHEDULE_AWARE)
                .readAheadBytes(64 * BLOCK).build()) {
            // Interleaved, as a greedy schedule is: blocks 0..2 of request 2 and 0..1 of request 3.
            store.prefetch(ScheduleChunk.of(0, new int[] {2, 3, 2, 3, 2}, new int[] {0, 0, 1, 1, 2}));
            int[][] order = {{2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}};
            for (int[] rb : order) {
                assertEquals(corpus.block(rb[0], rb[1]), store.fetch(rb[0], rb[1]).toCompletableFuture().get());
            }
            assertEquals(2, store.stats().readCalls(), "one read per response");
            assertEquals(5L * BLOCK, store.stats().bytesRead(), "only the announced blocks");
        }
    }

    @Test
    void scheduleAware_unannouncedMissReadsOnlyItsBlock(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(43, 2, BLOCK, 20 * BLOCK);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(ReadStrategy.SCHEDULE_AWARE)
                .readAheadBytes(64 * BLOCK).build()) {
            assertEquals(corpus.block(0, 0), store.fetch(0, 0).toCompletableFuture().get());
            assertEquals(1, store.stats().readCalls());
            assertEquals(BLOCK, store.stats().bytesRead());
        }
    }

    @Test
    void naive_readsEachFetchedBlockSeparately(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(44, 2, BLOCK, 20 * BLOCK);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(ReadStrategy.NAIVE).ioThreads(2).build()) {
            for (int b = 0; b < corpus.count(1); b++) {
                store.fetch(1, b).toCompletableFuture().get();
            }
            assertEquals(corpus.count(1), store.stats().readCalls());
            assertEquals(0, store.stats().blocksFromMemory());
        }
    }
}
