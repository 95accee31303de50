package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Learning when announced slots are fetched. */
class SlotPaceTest {
    @Test
    void beforeEnoughSamples_usesTheInitialGuess() {
        SlotPace pace = new SlotPace(1_000);
        pace.sample(3, 50_000);
        assertEquals(1_000, pace.slotNanos());
        assertEquals(0, pace.leadNanos());
    }

    @Test
    void recoversPaceAndLead_fromNoisySamples() {
        SlotPace pace = new SlotPace(1_000);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        for (int i = 0; i < 20_000; i++) {
            int k = rnd.nextInt(100);
            long delay = 200_000_000L + k * 3_000_000L + rnd.nextLong(-1_000_000, 1_000_000);
            pace.sample(k, delay);
        }
        assertEquals(3_000_000, pace.slotNanos(), 100_000);
        assertEquals(200_000_000, pace.leadNanos(), 5_000_000);
    }

    @Test
    void neverNegative() {
        SlotPace pace = new SlotPace(1_000);
        for (int i = 0; i < 1_000; i++) {
            pace.sample(i % 100, 1_000_000_000L - (i % 100) * 1_000_000L);
        }
        assertEquals(0, pace.slotNanos());
    }
}
