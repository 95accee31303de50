package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CloseWithReadsInFlightTest {
    private static final int IO_THREADS = 2;

    @ParameterizedTest
    @EnumSource(ReadStrategy.class)
    void close_failsEveryFetchInFlightClearlyAndLeavesNoThread(ReadStrategy strategy, @TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("closing-" + strategy.configName());
        Corpus corpus = Corpus.random(8, 50, 4096, 16 * 4096);
        corpus.importInto(dir);
        // Every I/O thread stops inside its first read until the test lets it go.
        CountDownLatch reading = new CountDownLatch(IO_THREADS);
        CountDownLatch release = new CountDownLatch(1);
        FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).ioThreads(IO_THREADS)
                .readAheadBytes(2 * 4096).poolBytes(1 << 20).beforeReadForTesting(() -> {
                    reading.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }).build();
        List<CompletableFuture<Block>> futures = new ArrayList<>();
        for (int r = 0; r < corpus.size(); r++) {
            store.prefetch(ScheduleChunk.of(0, new int[] {r}, new int[] {corpus.count(r) - 1}));
            for (int b = 0; b < corpus.count(r); b++) {
                futures.add(store.fetch(r, b).toCompletableFuture());
            }
        }
        assertTrue(reading.await(30, TimeUnit.SECONDS), "both I/O threads are inside a read");

        Thread closer = new Thread(store::close, "closer");
        closer.start();
        for (CompletableFuture<Block> f : futures) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
            IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(cause.getMessage().contains("was closed before block"), cause.getMessage());
        }
        release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(closer.isAlive(), "close returned once the reads in the kernel finished");

        // close() returns once the executors have terminated; a worker thread may still be a few
        // instructions from its end then, so give each one a moment to die rather than race it.
        // A thread that never ends still fails the test.
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("khameleon-store-closing-" + strategy.configName())) {
                t.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(t.isAlive(), "thread left running: " + t.getName());
            }
        }
        assertEquals(0, store.stats().blocksServed());
        ExecutionException after = assertThrows(ExecutionException.class,
                () -> store.fetch(0, 0).toCompletableFuture().get());
        assertInstanceOf(IllegalStateException.class, after.getCause());
        store.close();
    }
}
