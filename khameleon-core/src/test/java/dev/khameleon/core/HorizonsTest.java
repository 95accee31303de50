package dev.khameleon.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The horizons' rules and default, in the one place they live. */
class HorizonsTest {

    @Test
    void defaults_areThePapersFourHorizons() {
        assertArrayEquals(new long[] {50, 150, 250, 500}, Horizons.defaults().toArray());
        assertEquals(4, Horizons.defaults().size());
        assertEquals(500, Horizons.defaults().millis(3));
    }

    @Test
    void toArray_isACopy() {
        long[] a = Horizons.defaults().toArray();
        a[0] = 7;
        assertEquals(50, Horizons.defaults().millis(0));
    }

    @Test
    void of_copiesItsInput() {
        long[] in = {0, 10};
        Horizons h = Horizons.of(in);
        in[1] = 5;
        assertArrayEquals(new long[] {0, 10}, h.toArray());
        assertEquals(Horizons.of(0, 10), h);
        assertNotEquals(Horizons.of(0, 11), h);
        assertEquals("[0, 10]", h.toString());
    }

    @Test
    void check_rejectsEmptyNegativeAndNonIncreasing_namingTheSetting() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Horizons.check("horizonsMillis"))
                .getMessage().startsWith("horizonsMillis must have at least one entry"));
        assertThrows(IllegalArgumentException.class, () -> Horizons.of((long[]) null));
        assertEquals("horizons must be >= 0 and strictly increasing, was [-1, 5]",
                assertThrows(IllegalArgumentException.class, () -> Horizons.of(-1, 5)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Horizons.of(50, 50));
        assertThrows(IllegalArgumentException.class, () -> Horizons.of(150, 50));
    }
}
