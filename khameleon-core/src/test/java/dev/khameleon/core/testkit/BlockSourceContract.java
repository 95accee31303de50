package dev.khameleon.core.testkit;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link BlockSource} promises: fetched blocks are the ones asked for, of the
 * source's block size, and bad requests fail the returned stage instead of throwing. For a request
 * whose count is told lazily ({@link BlockSource#isBlockCountBound}), every block carries one exact
 * count, at least 1 and at most the bound.
 */
public abstract class BlockSourceContract {

    /** The source under test; it must have at least one request. */
    protected abstract BlockSource source();

    @Test
    void fetch_returnsTheBlockAskedFor() throws Exception {
        BlockSource source = source();
        int n = source.requestCount();
        assertTrue(n >= 1);
        SplittableRandom rnd = new SplittableRandom(3);
        for (int k = 0; k < Math.min(200, n * 4); k++) {
            int id = rnd.nextInt(n);
            int count = source.blockCount(id);
            assertTrue(count >= 1, "blockCount(" + id + ") = " + count);
            if (source.isBlockCountBound(id)) {
                count = exactCount(source, id);
            }
            int index = rnd.nextInt(count);
            Block b = source.fetch(id, index).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(id, b.requestId());
            assertEquals(index, b.index());
            assertEquals(count, b.count());
            assertEquals(source.blockSize(), b.size());
        }
    }

    @Test
    void fetch_outOfRange_failsTheStage() {
        BlockSource source = source();
        assertFailed(source.fetch(0, source.blockCount(0)));
        assertFailed(source.fetch(0, -1));
        assertFailed(source.fetch(source.requestCount(), 0));
        assertFailed(source.fetch(-1, 0));
    }

    @Test
    void lazyCounts_everyBlockCarriesTheSameCountWithinTheBound() throws Exception {
        BlockSource source = source();
        int n = source.requestCount();
        for (int id = 0; id < Math.min(n, 50); id++) {
            if (!source.isBlockCountBound(id)) {
                continue;
            }
            int count = exactCount(source, id);
            for (int index = 0; index < count; index++) {
                Block b = source.fetch(id, index).toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertEquals(count, b.count(), "block " + index + " of request " + id + " tells another count");
            }
        }
    }

    /** The exact count of a lazily counted request, as its block 0 tells it, checked against the bound. */
    private static int exactCount(BlockSource source, int id) throws Exception {
        int bound = source.blockCount(id);
        Block first = source.fetch(id, 0).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(first.count() >= 1 && first.count() <= bound, "request " + id + " has " + first.count()
                + " blocks, more than its bound " + bound);
        return first.count();
    }

    private static void assertFailed(CompletionStage<Block> stage) {
        assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
    }
}
