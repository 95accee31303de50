package dev.khameleon.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Randomised, seeded, concurrent: many threads fetch and announce random blocks through a pool
 * far smaller than the corpus, so slabs are evicted and reused constantly; every block served
 * must be exactly the imported one.
 */
class ReadAheadConsistencyTest {
    private static final int BLOCK = 1024;
    @TempDir
    static Path dir;
    static Corpus corpus;
    static ExecutorService callers;

    @BeforeAll
    static void importCorpus() throws Exception {
        corpus = Corpus.random(99, 60, BLOCK, 40 * BLOCK);
        corpus.importInto(dir);
        callers = Executors.newFixedThreadPool(4);
    }

    @AfterAll
    static void stopCallers() throws InterruptedException {
        callers.shutdown();
        assertTrue(callers.awaitTermination(10, TimeUnit.SECONDS));
    }

    static Stream<Arguments> cases() {
        List<Arguments> args = new ArrayList<>();
        long seed = 1;
        for (ReadStrategy s : ReadStrategy.values()) {
            for (int threads : new int[] {1, 3}) {
                args.add(Arguments.of(s, threads, seed++));
                args.add(Arguments.of(s, threads, seed++));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0}, {1} I/O threads, seed {2}")
    @MethodSource("cases")
    void concurrentRandomFetches_neverServeAStaleOrWrongBlock(ReadStrategy strategy, int ioThreads, long seed)
            throws Exception {
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).ioThreads(ioThreads)
                .readAheadBytes(8 * BLOCK).poolBytes(5L * 16384).build()) {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                SplittableRandom rnd = new SplittableRandom(seed * 31 + w);
                workers.add(callers.submit(() -> RandomSessions.run(store, corpus, rnd, 400, 20, 4)));
            }
            int checked = 0;
            for (Future<Integer> f : workers) {
                checked += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(4 * 400, checked);
            StoreStats stats = store.stats();
            assertEquals(checked, stats.blocksServed());
            assertTrue(stats.poolPeakBytes() <= stats.poolCapacityBytes(), stats.toString());
        }
    }
}
