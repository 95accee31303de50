package dev.khameleon.core.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockCountsTest {

    @Test
    void summarize_usesMostFrequentCountAsDefault() {
        BlockCounts c = BlockCounts.summarize(10, id -> id == 3 ? 7 : (id == 8 ? 1 : 4), 100);
        assertEquals(4, c.defaultCount());
        assertEquals(2, c.exceptionCount());
        assertTrue(c.complete());
        for (int id = 0; id < 10; id++) {
            assertEquals(id == 3 ? 7 : (id == 8 ? 1 : 4), c.countOf(id));
        }
    }

    @Test
    void summarize_cutsExceptionsAtLimitAndSaysSo() {
        BlockCounts c = BlockCounts.summarize(100, id -> id % 3 == 0 ? 2 : 1, 5);
        assertEquals(1, c.defaultCount());
        assertEquals(5, c.exceptionCount());
        assertFalse(c.complete());
        assertEquals(2, c.countOf(12));
    }

    @Test
    void summarize_rejectsZeroCount() {
        assertThrows(IllegalArgumentException.class, () -> BlockCounts.summarize(3, id -> id - 1, 10));
    }

    @Test
    void of_rejectsUnsortedOrInvalidExceptions() {
        assertThrows(ProtocolException.class, () -> BlockCounts.of(1, new int[] {3, 2}, new int[] {2, 2}, true));
        assertThrows(ProtocolException.class, () -> BlockCounts.of(1, new int[] {1}, new int[] {0}, true));
        assertThrows(ProtocolException.class, () -> BlockCounts.of(0, new int[0], new int[0], true));
        assertThrows(ProtocolException.class, () -> BlockCounts.of(1, new int[] {1}, new int[0], true));
    }

    @Test
    void summarize_listsLazilyCountedRequestsAsRanges() {
        BlockCounts c = BlockCounts.summarize(10, id -> 8, id -> id <= 2 || id == 5 || id >= 8, 100);
        assertEquals(3, c.lazyRangeCount());
        assertEquals(0, c.lazyFirst(0));
        assertEquals(2, c.lazyLast(0));
        assertEquals(5, c.lazyFirst(1));
        assertEquals(5, c.lazyLast(1));
        assertEquals(8, c.lazyFirst(2));
        assertEquals(9, c.lazyLast(2));
        for (int id = 0; id < 10; id++) {
            assertEquals(id <= 2 || id == 5 || id >= 8, c.isBound(id), "request " + id);
        }
        assertEquals(0, BlockCounts.summarize(10, id -> 8, id -> false, 100).lazyRangeCount());
    }

    @Test
    void summarize_mergesLazyRangesBeyondTheLimitIntoOne() {
        BlockCounts c = BlockCounts.summarize(100, id -> 4, id -> id % 2 == 1, 5);
        assertEquals(1, c.lazyRangeCount());
        assertEquals(1, c.lazyFirst(0));
        assertEquals(99, c.lazyLast(0));
        assertTrue(c.isBound(50), "over-covering: an exact count listed as a bound is harmless");
        assertFalse(c.isBound(0));
    }

    @Test
    void withLazyRanges_rejectsOverlappingOrEmptyRanges() {
        BlockCounts c = BlockCounts.uniform(3);
        assertThrows(ProtocolException.class, () -> c.withLazyRanges(new int[] {0, 2}, new int[] {2, 4}));
        assertThrows(ProtocolException.class, () -> c.withLazyRanges(new int[] {3}, new int[] {2}));
        assertThrows(ProtocolException.class, () -> c.withLazyRanges(new int[] {-1}, new int[] {2}));
        assertThrows(ProtocolException.class, () -> c.withLazyRanges(new int[] {1}, new int[0]));
        assertTrue(c.withLazyRanges(new int[] {1, 3}, new int[] {1, 4}).isBound(4));
    }
}
