package dev.khameleon.store;

import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A prefetch that may not take memory (the pool holds only announced data due sooner) must not keep
 * a sender's read waiting: regression test for a lost wake-up, where the I/O thread slept until
 * memory was released and a new demand read did not wake it, so every sender could end up waiting.
 */
class StalledPrefetchTest {
    private static final int BLOCK = 4096;

    @Test
    void demandRead_isServedWhileAPrefetchWaitsForMemory(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(17, 6, BLOCK, 4 * BLOCK);
        corpus.importInto(dir);
        // Room for exactly two one-block reads, one I/O thread.
        try (FileBlockStore store = FileBlockStore.builder(dir).ioThreads(1).readAheadBytes(BLOCK)
                .poolBytes(2L * BLOCK).build()) {
            store.prefetch(ScheduleChunk.of(0, new int[] {0, 1}, new int[] {0, 0}));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.stats().readCalls() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(2, store.stats().readCalls(), "both announced blocks were prefetched");
            Thread.sleep(20);
            // Due later than both: this prefetch may not evict them, so the I/O thread waits for memory.
            store.prefetch(ScheduleChunk.of(0, new int[] {2}, new int[] {0}));
            Thread.sleep(100);
            // Nobody announced this one; a sender's read may evict announced data, and must be served.
            assertEquals(corpus.block(3, 0), store.fetch(3, 0).toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
    }
}
