package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads for waiting senders beyond the adaptive limit ("bursts"): they start at once when memory
 * nobody announced is free, never take announced data's memory, and under many concurrent callers
 * every block served is still exactly the imported one.
 */
class DemandBurstTest {
    private static final int BLOCK = 4096;

    @Test
    void missesBeyondTheLimit_areReadAtOnce_whenFreeMemoryAllows(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(11, 40, BLOCK, 4 * BLOCK);
        corpus.importInto(dir);
        int misses = FileBlockStore.ADAPTIVE_MIN_READS + 8;
        CountDownLatch allStarted = new CountDownLatch(misses);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        try (FileBlockStore store = FileBlockStore.builder(dir).demandBurstReads(8).beforeReadForTesting(() -> {
            peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            allStarted.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            concurrent.decrementAndGet();
        }).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            assertEquals(FileBlockStore.ADAPTIVE_MIN_READS, reader.readLimit());
            List<CompletableFuture<Block>> fetches = new ArrayList<>();
            for (int r = 0; r < misses; r++) {
                fetches.add(store.fetch(r, 0).toCompletableFuture());
            }
            boolean started = allStarted.await(10, TimeUnit.SECONDS);
            release.countDown();
            assertTrue(started, "only " + (misses - allStarted.getCount()) + " of " + misses + " reads started");
            for (int r = 0; r < misses; r++) {
                assertEquals(corpus.block(r, 0), fetches.get(r).get(10, TimeUnit.SECONDS));
            }
            assertEquals(misses, peak.get());
            assertEquals(misses - FileBlockStore.ADAPTIVE_MIN_READS, reader.burstReads());
        }
    }

    @Test
    void burstReads_neverEvictAnnouncedData(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(12, 40, BLOCK, 4 * BLOCK);
        corpus.importInto(dir);
        AtomicBoolean gate = new AtomicBoolean();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger gated = new AtomicInteger();
        // 16 pool blocks of one 4 KiB read each: the adaptive limit's 8 + 1 spare leave room for 7 bursts.
        try (FileBlockStore store = FileBlockStore.builder(dir).demandBurstReads(8).readAheadBytes(BLOCK).poolBytes(16L * BLOCK)
                .beforeReadForTesting(() -> {
                    if (gate.get()) {
                        gated.incrementAndGet();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).build()) {
            ReadAheadReader reader = (ReadAheadReader) store.reader();
            // Announce block 0 of responses 0..15 and wait until the prefetches have filled the pool.
            int[] ids = new int[16];
            for (int r = 0; r < 16; r++) {
                ids[r] = r;
            }
            store.prefetch(ScheduleChunk.of(0, ids, new int[16]));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (reader.bytesInUse() < 16L * BLOCK && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(16L * BLOCK, reader.bytesInUse(), "the announced blocks fill the pool");
            int limit = reader.readLimit();
            gate.set(true);
            List<CompletableFuture<Block>> fetches = new ArrayList<>();
            try {
                for (int r = 16; r < 16 + 12; r++) {
                    fetches.add(store.fetch(r, 0).toCompletableFuture());
                }
                // Misses within the limit may evict announced data; misses beyond it must wait.
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (gated.get() < limit && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                Thread.sleep(200);
                assertEquals(limit, gated.get(), "reads started while every free byte held announced data");
                assertEquals(0, reader.burstReads());
            } finally {
                release.countDown();
            }
            for (int k = 0; k < fetches.size(); k++) {
                assertEquals(corpus.block(16 + k, 0), fetches.get(k).get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void manyCallers_withTheDefaultConcurrency_alwaysGetTheImportedBytes(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(13, 80, BLOCK, 24 * BLOCK);
        corpus.importInto(dir);
        int callers = 16;
        int perCaller = 600;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        // A pool of 64 reads of up to 8 blocks: the adaptive limit's 8 plus 24 bursts plus cold data,
        // far smaller than the corpus, so memory is evicted and reused constantly.
        // Each read takes at least 1 ms, as on a disk, so misses queue beyond the limit.
        try (FileBlockStore store = FileBlockStore.builder(dir).demandBurstReads(8).readAheadBytes(8 * BLOCK)
                .poolBytes(64L * 8 * BLOCK).beforeReadForTesting(() -> LockSupport.parkNanos(1_000_000)).build()) {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int w = 0; w < callers; w++) {
                SplittableRandom rnd = new SplittableRandom(1000 + w);
                workers.add(pool.submit(() -> RandomSessions.run(store, corpus, rnd, perCaller, 24, 3)));
            }
            int checked = 0;
            for (Future<Integer> f : workers) {
                checked += f.get(120, TimeUnit.SECONDS);
            }
            assertEquals(callers * perCaller, checked);
            StoreStats stats = store.stats();
            assertEquals(checked, stats.blocksServed());
            assertTrue(stats.poolPeakBytes() <= stats.poolCapacityBytes(), stats.toString());
            assertTrue(((ReadAheadReader) store.reader()).burstReads() > 0, "the load never went beyond the limit");
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }
}
