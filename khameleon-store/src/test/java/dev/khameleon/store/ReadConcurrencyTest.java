package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How many reads the read-ahead strategies keep in flight. */
class ReadConcurrencyTest {
    private static void window(ReadConcurrency c, long latencyNanos) {
        for (int i = 0; i < ReadConcurrency.WINDOW; i++) {
            c.completed(latencyNanos);
        }
    }

    @Test
    void fixed_neverChanges() {
        ReadConcurrency c = ReadConcurrency.fixed(3);
        window(c, 100);
        window(c, 1_000_000);
        assertEquals(3, c.limit());
        assertEquals(3, c.max());
    }

    @Test
    void adaptive_growsWhileLatencyStaysNearTheBest_upToItsMax() {
        ReadConcurrency c = ReadConcurrency.adaptive(2, 5);
        window(c, 100_000);
        assertEquals(3, c.limit());
        for (int i = 0; i < 10; i++) {
            window(c, 150_000);
        }
        assertEquals(5, c.limit(), "bounded by its max");
    }

    @Test
    void adaptive_shrinksInProportionWhenTheDeviceQueues_neverBelowOne() {
        ReadConcurrency c = ReadConcurrency.adaptive(1, 8);
        for (int i = 0; i < 7; i++) {
            window(c, 100_000);
        }
        assertEquals(8, c.limit());
        window(c, 800_000); // 8x the best: reads are queueing in the device
        assertTrue(c.limit() <= 2, "limit " + c.limit());
        window(c, 100_000_000);
        assertEquals(1, c.limit());
    }

    @Test
    void adaptive_neverGoesBelowItsFloor() {
        ReadConcurrency c = ReadConcurrency.adaptive(4, 8);
        assertEquals(4, c.limit(), "starts at the floor");
        window(c, 100_000);
        assertEquals(5, c.limit());
        window(c, 100_000_000);
        assertEquals(4, c.limit());
    }

    @Test
    void adaptive_rejectsAFloorAboveTheMaximum() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> ReadConcurrency.adaptive(5, 4));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> ReadConcurrency.adaptive(0, 4));
    }

    @Test
    void adaptive_recoversAfterASlowPeriod() {
        ReadConcurrency c = ReadConcurrency.adaptive(4, 8);
        window(c, 100_000);
        for (int i = 0; i < 20; i++) {
            window(c, 1_000_000);
        }
        int low = c.limit();
        for (int i = 0; i < 200; i++) {
            window(c, 1_000_000);
        }
        assertTrue(c.limit() > low, "the best window ages, so a steady slower device is accepted again: "
                + low + " -> " + c.limit());
    }
}
