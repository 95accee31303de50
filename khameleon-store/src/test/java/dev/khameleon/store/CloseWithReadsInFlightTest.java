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
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CloseWithReadsInFlightTest {

    @ParameterizedTest
    @EnumSource(ReadStrategy.class)
    void close_failsPendingFetchesClearlyAndLeavesNoThread(ReadStrategy strategy, @TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("closing-" + strategy.configName());
        Corpus corpus = Corpus.random(8, 50, 4096, 16 * 4096);
        corpus.importInto(dir);
        FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).ioThreads(2)
                .readAheadBytes(2 * 4096).poolBytes(1 << 20).build();
        List<CompletableFuture<Block>> futures = new ArrayList<>();
        for (int r = 0; r < corpus.size(); r++) {
            store.prefetch(ScheduleChunk.of(0, new int[] {r}, new int[] {corpus.count(r) - 1}));
            for (int b = 0; b < corpus.count(r); b++) {
                futures.add(store.fetch(r, b).toCompletableFuture());
            }
        }
        store.close();

        int failed = 0;
        for (CompletableFuture<Block> f : futures) {
            assertTrue(f.isDone(), "every fetch is complete once close returns");
            if (f.isCompletedExceptionally()) {
                ExecutionException e = assertThrows(ExecutionException.class, f::get);
                IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
                assertTrue(cause.getMessage().contains("was closed before block"), cause.getMessage());
                failed++;
            }
        }
        assertTrue(failed + store.stats().blocksServed() == futures.size(), "served or failed, nothing lost");
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertTrue(!t.getName().startsWith("khameleon-store-closing-" + strategy.configName()) || !t.isAlive(),
                    "thread left running: " + t.getName());
        }
        ExecutionException after = assertThrows(ExecutionException.class,
                () -> store.fetch(0, 0).toCompletableFuture().get());
        assertInstanceOf(IllegalStateException.class, after.getCause());
        store.close();
        assertEquals(futures.size(), failed + store.stats().blocksServed());
    }
}
