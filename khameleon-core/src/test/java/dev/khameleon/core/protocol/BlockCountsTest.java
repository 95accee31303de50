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
}
