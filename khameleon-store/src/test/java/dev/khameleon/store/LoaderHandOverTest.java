package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loader hands a read's blocks to the waiting fetches without the store lock: a fetch that
 * arrives after the hand-over but before the extent is published READY copies its block itself,
 * on its own thread, and the extent is still published and evictable afterwards.
 */
class LoaderHandOverTest {
    private static final int BLOCK = 4096;

    @Test
    void aFetchBetweenHandOverAndPublish_isServedFromTheLoadedBytes(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(21, 6, BLOCK, 8 * BLOCK);
        corpus.importInto(dir);
        int r = 0;
        while (corpus.count(r) < 3) {
            r++;
        }
        int request = r;
        CountDownLatch handedOver = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        // A pool of eight 4-block reads, smaller than the corpus: the extent read below must be
        // published and evictable, or the later reads find no memory.
        try (FileBlockStore store = FileBlockStore.builder(dir).readAheadBytes(4 * BLOCK).poolBytes(8L * 4 * BLOCK)
                .ioThreads(1).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            reader.afterHandOverForTesting(() -> {
                handedOver.countDown();
                try {
                    proceed.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            store.prefetch(ScheduleChunk.of(0, new int[] {request, request, request}, new int[] {0, 1, 2}));
            CompletableFuture<Block> first = store.fetch(request, 0).toCompletableFuture();
            assertTrue(handedOver.await(10, TimeUnit.SECONDS), "the read was never handed over");
            long fromMemory = store.stats().blocksFromMemory();
            // The loader is parked between hand-over and publish: this fetch must not wait for it.
            CompletableFuture<Block> second = store.fetch(request, 1).toCompletableFuture();
            assertTrue(second.isDone(), "a fetch of a sealed extent waited for its loader");
            assertEquals(corpus.block(request, 1), second.get());
            assertEquals(fromMemory + 1, store.stats().blocksFromMemory());
            reader.afterHandOverForTesting(null);
            proceed.countDown();
            assertEquals(corpus.block(request, 0), first.get(10, TimeUnit.SECONDS));
            assertEquals(corpus.block(request, 2), store.fetch(request, 2).toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(1, store.stats().readCalls(), "blocks 0..2 came from one read");
            // Every other response now needs memory: the published extent must be evictable.
            for (int other = 0; other < corpus.size(); other++) {
                for (int b = 0; b < corpus.count(other); b++) {
                    assertEquals(corpus.block(other, b), store.fetch(other, b).toCompletableFuture().get(10, TimeUnit.SECONDS));
                }
            }
            assertTrue(reader.bytesInUse() <= store.stats().poolCapacityBytes());
        }
    }
}
