package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryPoolBoundTest {
    private static final int BLOCK = 4096;

    @ParameterizedTest
    @EnumSource(value = ReadStrategy.class, names = {"SERIALIZED_READAHEAD", "SCHEDULE_AWARE"})
    void poolNeverExceedsItsBound_underThousandsOfConcurrentFetches(ReadStrategy strategy, @TempDir Path dir)
            throws Exception {
        Corpus corpus = Corpus.random(5, 80, BLOCK, 24 * BLOCK);
        corpus.importInto(dir);
        int slab = Segments.envelopeBytes(BLOCK, 4);
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).ioThreads(2)
                .readAheadBytes(4 * BLOCK).poolBytes(6L * slab).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            assertEquals(6, reader.slabCount());
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
            int maxSeen = 0;
            for (int k = 0; k < ids.length; k++) {
                futures.add(store.fetch(ids[k], idx[k]).toCompletableFuture());
                maxSeen = Math.max(maxSeen, reader.slabsAllocated());
            }
            for (int k = 0; k < ids.length; k++) {
                assertEquals(corpus.block(ids[k], idx[k]), futures.get(k).get(30, TimeUnit.SECONDS));
                maxSeen = Math.max(maxSeen, reader.slabsAllocated());
            }
            assertTrue(maxSeen <= 6, "slabs allocated " + maxSeen);
            StoreStats stats = store.stats();
            assertEquals(6L * slab, stats.poolCapacityBytes());
            assertTrue(stats.poolPeakBytes() <= stats.poolCapacityBytes(), stats.toString());
            assertTrue(stats.readCalls() > 6, "the pool was reused, not grown: " + stats);
        }
    }
}
