package dev.khameleon.core.testkit;

import dev.khameleon.core.Rect;
import dev.khameleon.core.spi.Layout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every {@link Layout} promises: each request's region maps back to that request. */
public abstract class LayoutContract {

    /** The layout under test. */
    protected abstract Layout layout();

    @Test
    void requestAt_centreOfEachRegion_isThatRequest() {
        Layout layout = layout();
        int n = layout.requestCount();
        assertTrue(n >= 1, "requestCount must be >= 1");
        SplittableRandom rnd = new SplittableRandom(1);
        for (int k = 0; k < Math.min(n, 10_000); k++) {
            int id = n <= 10_000 ? k : rnd.nextInt(n);
            Rect r = layout.bounds(id);
            assertEquals(id, layout.requestAt(r.centerX(), r.centerY()), "centre of " + r);
        }
    }

    @Test
    void requestAt_isInRangeOrMinusOne() {
        Layout layout = layout();
        SplittableRandom rnd = new SplittableRandom(2);
        for (int k = 0; k < 10_000; k++) {
            double x = rnd.nextDouble(-5_000, 5_000);
            double y = rnd.nextDouble(-5_000, 5_000);
            int id = layout.requestAt(x, y);
            assertTrue(id == -1 || (id >= 0 && id < layout.requestCount()), "requestAt(" + x + ", " + y + ") = " + id);
            if (id >= 0) {
                assertTrue(layout.bounds(id).contains(x, y), "(" + x + ", " + y + ") is not inside " + layout.bounds(id));
            }
        }
    }
}
