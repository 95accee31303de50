package dev.khameleon.core.spi;

import dev.khameleon.core.Rect;
import dev.khameleon.core.testkit.LayoutContract;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class GridLayoutTest extends LayoutContract {

    @Override
    protected Layout layout() {
        return Layout.grid(7, 11, 10, 20, 16.5, 12);
    }

    @Test
    void requestAt_mapsRowMajor() {
        GridLayout g = Layout.grid(100, 100, 0, 0, 10, 8);
        assertEquals(0, g.requestAt(0, 0));
        assertEquals(1, g.requestAt(10, 0));
        assertEquals(100, g.requestAt(0, 8));
        assertEquals(9_999, g.requestAt(999.9, 799.9));
        assertEquals(-1, g.requestAt(1000, 0));
        assertEquals(-1, g.requestAt(-0.01, 0));
        assertEquals(-1, g.requestAt(Double.NaN, 0));
    }

    @Test
    void requestsIn_clipsToGrid() {
        GridLayout g = Layout.grid(3, 4, 0, 0, 10, 10);
        assertArrayEquals(new int[] {5, 6, 9, 10}, g.requestsIn(new Rect(15, 15, 10, 10)));
        assertArrayEquals(new int[] {0}, g.requestsIn(new Rect(-100, -100, 105, 105)));
        assertArrayEquals(new int[0], g.requestsIn(new Rect(40, 0, 10, 10)));
        assertArrayEquals(new int[] {11}, g.requestsIn(new Rect(35, 25, 1000, 1000)));
    }

    @Test
    void grid_rejectsBadGeometry() {
        assertThrows(IllegalArgumentException.class, () -> Layout.grid(0, 1, 0, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> Layout.grid(1, 1, 0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Layout.grid(1, 1, 0, 0, 1, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Layout.grid(100_000, 100_000, 0, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> Layout.grid(1, 1, Double.POSITIVE_INFINITY, 0, 1, 1));
    }
}
