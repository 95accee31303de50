package dev.khameleon.client;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.khameleon.client.Blocks.block;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CacheManager#rebind} and block generations: a rebound request is never answered with an old block. */
class CacheManagerRebindTest {
    private final RingBufferCache cache = new RingBufferCache(8);
    private final CacheManager manager = CacheManager.builder(cache).build();

    @Test
    void rebind_dropsTheCachedBlocksOfThoseRequestsOnly() {
        manager.onBlock(0, block(1, 0, 2));
        manager.onBlock(1, block(2, 0, 2));
        manager.rebind(new int[] {1}, new int[] {1});
        assertEquals(0, cache.prefixLength(1));
        assertEquals(1, cache.prefixLength(2));
        assertEquals(1, manager.generation(1));
    }

    @Test
    void blockOfAnOtherGeneration_isRefusedAndItsSlotCleared_andTheNextSeqMovesOn() {
        manager.rebind(new int[] {1}, new int[] {3});
        manager.onBlock(0, block(2, 0, 1));
        assertFalse(manager.onBlock(8, block(1, 0, 2), 0), "generation 0 after the rebind to 3 is stale");
        assertEquals(0, cache.prefixLength(1));
        assertEquals(0, cache.prefixLength(2), "slot 0 was overwritten by the refused frame 8");
        assertEquals(9, cache.nextSeq());
        assertEquals(1, manager.staleBlocks());
        assertEquals(1, manager.metrics().blocksRefused());
        assertTrue(manager.onBlock(9, block(1, 0, 2), 3));
        assertEquals(1, cache.prefixLength(1));
    }

    @Test
    void rebindToGenerationZero_acceptsTheDefaultContentAgain() {
        manager.rebind(new int[] {1}, new int[] {2});
        manager.rebind(new int[] {1}, new int[] {0});
        assertTrue(manager.onBlock(0, block(1, 0, 2), 0));
        assertFalse(manager.onBlock(1, block(1, 1, 2), 2));
    }

    @Test
    void activeRegistration_startsOverWithTheNewContent() {
        List<Response> answers = new ArrayList<>();
        manager.onBlock(0, block(1, 0, 3));
        manager.onBlock(1, block(1, 1, 3));
        manager.register(1, answers::add);
        assertEquals(2, answers.get(0).blocks().size());
        manager.rebind(new int[] {1}, new int[] {1});
        manager.onBlock(2, block(1, 1, 3), 0);
        assertEquals(1, answers.size(), "an old block after the rebind answers nothing");
        Block fresh = Block.of(1, 0, 3, new byte[] {42}, 0);
        manager.onBlock(3, fresh, 1);
        assertEquals(2, answers.size(), "the new content's first block is delivered although 2 blocks were before");
        assertEquals(List.of(fresh), answers.get(1).blocks());
        assertEquals(1, manager.metrics().registrations());
    }

    @Test
    void reset_forgetsTheGenerations() {
        manager.rebind(new int[] {1}, new int[] {5});
        manager.reset(0);
        assertEquals(0, manager.generation(1));
        assertTrue(manager.onBlock(0, block(1, 0, 1), 0));
    }

    @Test
    void rebind_rejectsMismatchedOrNegativeInput() {
        assertThrows(IllegalArgumentException.class, () -> manager.rebind(new int[] {1, 2}, new int[] {1}));
        assertThrows(IllegalArgumentException.class, () -> manager.rebind(new int[] {1}, new int[] {-1}));
    }
}
