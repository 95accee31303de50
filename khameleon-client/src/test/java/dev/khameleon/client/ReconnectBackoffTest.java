package dev.khameleon.client;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reconnect back-off policy: growth, cap, jitter and what resets it. */
class ReconnectBackoffTest {
    private static final long SECOND_NANOS = 1_000_000_000L;
    /** A session that was welcomed but ended after 100 ms, well short of "healthy". */
    private static final long SHORT_SESSION = SECOND_NANOS / 10;

    private static ReconnectBackoff backoff(long seed) {
        return new ReconnectBackoff(100, 10_000, 5 * SECOND_NANOS, new SplittableRandom(seed));
    }

    @Test
    void shortSessions_delaysDoubleWithinJitterBounds_upToTheCap() {
        ReconnectBackoff b = backoff(1);
        long[] bases = {100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000};
        long previous = 0;
        for (int k = 0; k < bases.length; k++) {
            long d = b.nextDelayMillis(k % 2 == 0 ? SHORT_SESSION : -1);
            assertTrue(d >= bases[k] / 2 && d <= bases[k], "attempt " + k + ": " + d + " not in [" + bases[k] / 2
                    + ", " + bases[k] + "]");
            if (k > 0 && bases[k] == 2 * bases[k - 1]) {
                assertTrue(d >= previous, "attempt " + k + ": delay shrank from " + previous + " to " + d);
            }
            previous = d;
        }
    }

    @Test
    void welcomedButRejectedSessions_doNotResetTheBackoff() {
        ReconnectBackoff b = backoff(2);
        for (int k = 0; k < 5; k++) {
            b.nextDelayMillis(SHORT_SESSION);
        }
        long d = b.nextDelayMillis(SHORT_SESSION);
        assertTrue(d >= 1600, "the sixth attempt after short sessions waits at least 3200/2 ms, was " + d);
    }

    @Test
    void healthySession_resetsToTheInitialDelay() {
        ReconnectBackoff b = backoff(3);
        for (int k = 0; k < 6; k++) {
            b.nextDelayMillis(-1);
        }
        long d = b.nextDelayMillis(5 * SECOND_NANOS);
        assertTrue(d >= 50 && d <= 100, "after a session of 5 s the delay is back in [50, 100], was " + d);
        long next = b.nextDelayMillis(SHORT_SESSION);
        assertTrue(next >= 100 && next <= 200, "and grows again from there, was " + next);
    }

    @Test
    void jitter_spreadsOverHalfTheBase_andTheSeedReproducesIt() {
        ReconnectBackoff a = new ReconnectBackoff(1000, 1000, SECOND_NANOS, new SplittableRandom(4));
        ReconnectBackoff same = new ReconnectBackoff(1000, 1000, SECOND_NANOS, new SplittableRandom(4));
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 1000; i++) {
            long d = a.nextDelayMillis(-1);
            assertEquals(d, same.nextDelayMillis(-1), "draw " + i + " with the same seed");
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertTrue(min < 550 && max > 950, "1000 draws cover [500, 1000], got [" + min + ", " + max + "]");
        assertTrue(min >= 500 && max <= 1000, "and stay inside it, got [" + min + ", " + max + "]");
    }

    @Test
    void hugeAttemptCounts_stayAtTheCapWithoutOverflow() {
        ReconnectBackoff b = new ReconnectBackoff(1, Long.MAX_VALUE / 4, SECOND_NANOS, new SplittableRandom(5));
        long d = 0;
        for (int k = 0; k < 200; k++) {
            d = b.nextDelayMillis(-1);
            assertTrue(d > 0, "attempt " + k + " overflowed to " + d);
        }
        assertTrue(d >= Long.MAX_VALUE / 8, "capped at the maximum, was " + d);
    }

    @Test
    void constructor_rejectsMaxBelowInitial() {
        assertThrows(IllegalArgumentException.class,
                () -> new ReconnectBackoff(100, 50, SECOND_NANOS, new SplittableRandom(6)));
    }
}
