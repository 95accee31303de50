package dev.khameleon.client;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.khameleon.client.Blocks.block;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingBufferCacheTest {

    @Test
    void put_evictsInFifoOrder_slotIsSeqModCapacity() {
        RingBufferCache cache = new RingBufferCache(3);
        cache.put(0, block(1, 0, 4));
        cache.put(1, block(1, 1, 4));
        cache.put(2, block(2, 0, 1));
        assertEquals(3, cache.size());
        cache.put(3, block(3, 0, 1)); // slot 0: evicts request 1 block 0
        assertFalse(cache.contains(1, 0));
        assertTrue(cache.contains(1, 1));
        assertEquals(0, cache.prefixLength(1), "block 1 without block 0 is no usable answer");
        cache.put(4, block(3, 0, 1)); // slot 1: evicts request 1 block 1
        assertEquals(0, cache.presentCount(1));
        assertEquals(0, cache.blockCount(1));
        assertTrue(cache.contains(2, 0));
        assertEquals(3, cache.size());
    }

    @Test
    void prefix_isLongestRunFromBlockZero() {
        RingBufferCache cache = new RingBufferCache(10);
        cache.put(0, block(7, 0, 5));
        cache.put(1, block(7, 2, 5));
        assertEquals(1, cache.prefixLength(7));
        cache.put(2, block(7, 1, 5));
        assertEquals(3, cache.prefixLength(7));
        List<Block> prefix = cache.prefix(7);
        assertEquals(3, prefix.size());
        for (int b = 0; b < 3; b++) {
            assertEquals(b, prefix.get(b).index());
        }
        cache.put(3, block(7, 4, 5));
        assertEquals(3, cache.prefixLength(7));
        cache.put(4, block(7, 3, 5));
        assertEquals(5, cache.prefixLength(7));
        assertEquals(List.of(), cache.prefix(8));
    }

    @Test
    void duplicateBlock_survivesEvictionOfItsOlderCopy() {
        RingBufferCache cache = new RingBufferCache(3);
        cache.put(0, block(1, 0, 2));
        cache.put(1, block(1, 0, 2)); // a second copy, newer
        cache.put(2, block(2, 0, 1));
        cache.put(3, block(2, 0, 1)); // evicts the older copy (slot 0)
        assertTrue(cache.contains(1, 0));
        assertEquals(1, cache.prefixLength(1));
        cache.put(4, block(3, 0, 1)); // evicts the newer copy (slot 1)
        assertFalse(cache.contains(1, 0));
    }

    @Test
    void put_refusesStaleSequenceAndInconsistentCount() {
        RingBufferCache cache = new RingBufferCache(4);
        assertTrue(cache.put(5, block(1, 0, 3)));
        assertFalse(cache.put(5, block(1, 1, 3)), "a sequence number may not repeat");
        assertFalse(cache.put(2, block(1, 1, 3)), "nor go backwards");
        assertFalse(cache.put(6, block(1, 1, 9)), "a block count that contradicts the cache is refused");
        assertEquals(1, cache.prefixLength(1));
        assertEquals(7, cache.nextSeq());
    }

    @Test
    void skippedSequenceNumbers_clearTheirSlots() {
        RingBufferCache cache = new RingBufferCache(4);
        for (int s = 0; s < 4; s++) {
            cache.put(s, block(s, 0, 1));
        }
        cache.put(6, block(9, 0, 1)); // 4 and 5 never arrived: slots 0 and 1 are gone too
        assertFalse(cache.contains(0, 0));
        assertFalse(cache.contains(1, 0));
        assertTrue(cache.contains(3, 0));
        assertTrue(cache.contains(9, 0));
        assertEquals(2, cache.size());
    }

    @Test
    void reset_emptiesAndRestartsAtAnnouncedSequence() {
        RingBufferCache cache = new RingBufferCache(4);
        cache.put(0, block(1, 0, 1));
        cache.reset(1000);
        assertEquals(0, cache.size());
        assertEquals(0, cache.prefixLength(1));
        assertEquals(1000, cache.nextSeq());
        assertTrue(cache.put(1000, block(1, 0, 1)));
        assertThrows(IllegalArgumentException.class, () -> cache.reset(-1));
    }

    @Test
    void markUsed_countsEachReceivedBlockOnce() {
        RingBufferCache cache = new RingBufferCache(4);
        cache.put(0, block(1, 0, 3));
        cache.put(1, block(1, 1, 3));
        assertEquals(2, cache.markUsed(1, 2));
        assertEquals(0, cache.markUsed(1, 2));
        cache.put(2, block(1, 2, 3));
        assertEquals(1, cache.markUsed(1, 3));
    }

    /**
     * Random streams against a simple model (a plain array of the last C blocks, scanned): after
     * every put, every request's prefix, presence and counts agree, through many wrap-arounds.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void index_staysConsistentWithModel_underWrapAround(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int capacity = 1 + rnd.nextInt(40);
        int requests = 1 + rnd.nextInt(12);
        int[] counts = new int[requests];
        for (int q = 0; q < requests; q++) {
            counts[q] = 1 + rnd.nextInt(8);
        }
        RingBufferCache cache = new RingBufferCache(capacity);
        Block[] model = new Block[capacity];
        long seq = 0;
        for (int step = 0; step < 3000; step++) {
            seq += rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(3) : 0; // sometimes skip sequence numbers
            for (long s = Math.max(cache.nextSeq(), seq - capacity + 1); s < seq; s++) {
                model[(int) (s % capacity)] = null;
            }
            int q = rnd.nextInt(requests);
            Block b = block(q, rnd.nextInt(counts[q]), counts[q]);
            assertTrue(cache.put(seq, b));
            model[(int) (seq % capacity)] = b;
            seq++;
            checkAgainstModel(cache, model, requests);
        }
    }

    private static void checkAgainstModel(RingBufferCache cache, Block[] model, int requests) {
        Map<Integer, List<Integer>> present = new HashMap<>();
        int occupied = 0;
        for (Block b : model) {
            if (b != null) {
                occupied++;
                present.computeIfAbsent(b.requestId(), k -> new ArrayList<>()).add(b.index());
            }
        }
        assertEquals(occupied, cache.size());
        for (int request = 0; request < requests; request++) {
            int q = request;
            List<Integer> idx = present.getOrDefault(q, List.of());
            int prefix = 0;
            while (idx.contains(prefix)) {
                prefix++;
            }
            assertEquals(prefix, cache.prefixLength(q), () -> "prefix of request " + q);
            assertEquals(prefix, cache.prefix(q).size());
            assertEquals(idx.stream().distinct().count(), cache.presentCount(q), () -> "distinct blocks of " + q);
            for (int block = 0; block < 8; block++) {
                int b = block;
                assertEquals(idx.contains(b), cache.contains(q, b), () -> "block " + b + " of " + q);
            }
        }
    }

    @Test
    void constructor_rejectsNonPositiveCapacity() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RingBufferCache(0));
        assertTrue(e.getMessage().contains("cacheBlocks"));
    }

    @Test
    void invalidate_dropsEveryBlockOfTheRequest_andKeepsTheOthers() {
        RingBufferCache c = new RingBufferCache(6);
        c.put(0, Blocks.block(1, 0, 3));
        c.put(1, Blocks.block(2, 0, 1));
        c.put(2, Blocks.block(1, 1, 3));
        c.put(3, Blocks.block(1, 1, 3)); // a second copy of the same block
        assertEquals(2, c.invalidate(1));
        assertEquals(0, c.prefixLength(1));
        assertEquals(0, c.presentCount(1));
        assertEquals(1, c.prefixLength(2));
        assertEquals(0, c.invalidate(1));
        c.put(4, Blocks.block(1, 0, 3));
        assertEquals(1, c.prefixLength(1), "the older copy of block 1 left in slot 2 is not served");
    }

    @Test
    void skip_clearsTheSlotAndAdvances_butNeverGoesBack() {
        RingBufferCache c = new RingBufferCache(4);
        c.put(0, Blocks.block(1, 0, 1));
        c.put(1, Blocks.block(2, 0, 1));
        assertTrue(c.skip(4));
        assertEquals(0, c.prefixLength(1), "slot 0 belongs to frame 4 now");
        assertEquals(1, c.prefixLength(2));
        assertEquals(5, c.nextSeq());
        assertFalse(c.skip(3));
        assertEquals(5, c.nextSeq());
    }
}
