package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryPoolBoundTest {
    private static final int BLOCK = 4096;
    private static final int LARGEST = 32768;

    @ParameterizedTest
    @EnumSource(value = ReadStrategy.class, names = {"SERIALIZED_READAHEAD", "SCHEDULE_AWARE"})
    void poolNeverExceedsItsBound_underThousandsOfConcurrentFetches(ReadStrategy strategy, @TempDir Path dir)
            throws Exception {
        Corpus corpus = Corpus.random(5, 80, BLOCK, 24 * BLOCK);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).ioThreads(2)
                .readAheadBytes(4 * BLOCK).poolBytes(6L * LARGEST).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            SplittableRandom rnd = new SplittableRandom(77);
            List<CompletableFuture<Block>> futures = new ArrayList<>();
            int[] ids = new int[3000];
            int[] idx = new int[3000];
            for (int k = 0; k < ids.length; k++) {
                ids[k] = rnd.nextInt(corpus.size());
                idx[k] = rnd.nextInt(corpus.count(ids[k]));
            }
            // Hints far larger than the pool: prefetching must stall rather than overrun it.
            store.prefetch(ScheduleChunk.of(0, ids, idx));
            long maxSeen = 0;
            for (int k = 0; k < ids.length; k++) {
                futures.add(store.fetch(ids[k], idx[k]).toCompletableFuture());
                maxSeen = Math.max(maxSeen, reader.bytesInUse());
            }
            for (int k = 0; k < ids.length; k++) {
                assertEquals(corpus.block(ids[k], idx[k]), futures.get(k).get(30, TimeUnit.SECONDS));
                maxSeen = Math.max(maxSeen, reader.bytesInUse());
            }
            assertTrue(maxSeen <= 6L * LARGEST, "bytes in use " + maxSeen);
            StoreStats stats = store.stats();
            assertEquals(6L * LARGEST, stats.poolCapacityBytes());
            assertTrue(stats.poolPeakBytes() <= stats.poolCapacityBytes(), stats.toString());
            assertTrue(stats.bytesRead() > stats.poolCapacityBytes(), "the pool was reused, not grown: " + stats);
        }
    }

    @Test
    void buddyPool_splitsMergesAndRefusesWhenFull() {
        BuddyPool pool = new BuddyPool(4 * 16384, 16384);
        assertEquals(16384, pool.maxBlockBytes());
        List<BuddyPool.Allocation> small = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            BuddyPool.Allocation a = pool.allocate(4000);
            assertNotNull(a, "allocation " + i);
            assertEquals(0, a.offset() % 4096);
            assertEquals(4096, a.buffer().capacity());
            small.add(a);
        }
        assertNull(pool.allocate(1));
        assertEquals(pool.capacityBytes(), pool.usedBytes());
        for (BuddyPool.Allocation a : small) {
            pool.free(a);
        }
        assertEquals(0, pool.usedBytes());
        for (int i = 0; i < 4; i++) {
            assertNotNull(pool.allocate(16384), "buddies merged back into whole blocks");
        }
        assertNull(pool.allocate(4096));
        assertEquals(4L * 16384, pool.peakBytes());
    }
}
