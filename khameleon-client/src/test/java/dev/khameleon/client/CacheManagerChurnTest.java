package dev.khameleon.client;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static dev.khameleon.client.Blocks.block;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Regression: a registration's prefix that grew while an upcall was pending, then shrank (blocks
 * evicted by a churning ring) before the upcall ran, was never delivered when it grew back: the
 * growth check compared with the size it had been promised, not with what it had been given, so
 * the client held the whole response and its application never heard of it.
 */
class CacheManagerChurnTest {
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    private final RingBufferCache cache = new RingBufferCache(5);
    private final CacheManager manager = CacheManager.builder(cache).upcallExecutor(pending::add).build();
    private long seq;

    private void arrive(int request, int index, int count) {
        manager.onBlock(seq++, block(request, index, count));
    }

    private void runUpcalls() {
        while (!pending.isEmpty()) {
            pending.poll().run();
        }
    }

    @Test
    void prefixThatShrankBeforeItsUpcallRan_isDeliveredWhenItGrowsBack() {
        List<Response> got = new ArrayList<>();
        arrive(0, 0, 4);                                   // slot 0
        arrive(0, 1, 4);                                   // slot 1
        manager.register(0, got::add);
        runUpcalls();
        assertEquals(2, got.get(0).blocks().size());
        arrive(0, 3, 4);                                   // slot 2
        arrive(0, 2, 4);                                   // slot 3: the prefix is 4, an upcall is queued
        arrive(1, 0, 1);                                   // slot 4
        arrive(2, 0, 1);                                   // slot 0: evicts block 0, the prefix is 0
        runUpcalls();                                      // finds nothing new to deliver
        arrive(0, 0, 4);                                   // slot 1: evicts block 1; prefix 1
        arrive(0, 1, 4);                                   // slot 2: evicts block 3; prefix 3
        arrive(0, 3, 4);                                   // slot 3: evicts block 2; prefix 2
        arrive(0, 2, 4);                                   // slot 4: every block present again
        runUpcalls();
        for (int b = 0; b < 4; b++) {
            assertTrue(cache.contains(0, b));
        }
        Response last = got.get(got.size() - 1);
        assertTrue(last.isComplete(), "the application got the complete response; last upcall had "
                + last.blocks().size() + " blocks after " + got.size() + " upcalls");
    }
}
