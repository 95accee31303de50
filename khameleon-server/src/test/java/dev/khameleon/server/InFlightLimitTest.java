package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bound on frames in flight, on injected time: round trips from reports, waits from the bound. */
class InFlightLimitTest {
    private static final long MS = 1_000_000L;

    /** Sends frames {@code from .. to - 1} at {@code atNanos}. */
    private static void send(InFlightLimit l, long from, long to, long atNanos) {
        for (long s = from; s < to; s++) {
            l.sent(s, atNanos);
        }
    }

    @Test
    void withoutAReportThatCarriesASequenceNumber_nothingIsBounded() {
        InFlightLimit l = new InFlightLimit();
        send(l, 0, 10_000, 0);
        assertEquals(0, l.waitNanos(0, 100, 1.0));
        assertEquals(-1, l.minRttNanos());
    }

    @Test
    void theRoundTrip_isFromSendingTheLastCountedFrameToTheReport_andBoundsTheFramesInFlight() {
        InFlightLimit l = new InFlightLimit();
        send(l, 0, 10, 0);
        send(l, 10, 20, 20 * MS);
        l.report(10, 100 * MS, true);           // frame 9, sent at 0, counted in a report at 100 ms
        assertEquals(100 * MS, l.minRttNanos());
        // 100 frames/s × 100 ms: 10 frames; 20 sent, 10 counted, none delivered since: 10 in flight.
        assertEquals(10.0, l.inFlight(100 * MS, 100), 1e-9);
        assertEquals(10.0, l.limit(100, 1.0), 1e-9);
        assertEquals(10 * MS, l.waitNanos(100 * MS, 100, 1.0), "one frame has to land first");
        assertEquals(0, l.waitNanos(110 * MS, 100, 1.0), "at the estimate it has, 10 ms later");
        assertEquals(0, l.waitNanos(100 * MS, 100, 1.25), "a probe's bound of 12.5 frames admits it");
    }

    @Test
    void theBound_neverFallsUnderItsFloor() {
        InFlightLimit l = new InFlightLimit();
        send(l, 0, 3, 0);
        l.report(1, MS, true);
        assertEquals(InFlightLimit.MIN_FRAMES, l.limit(10, 1.0), 1e-9, "10 frames/s × 1 ms is far under a frame");
    }

    @Test
    void aReportThatGoesBackwards_orCountsFramesNeverSent_changesNothing() {
        InFlightLimit l = new InFlightLimit();
        send(l, 0, 20, 0);
        l.report(10, 100 * MS, true);
        l.report(25, 101 * MS, true);           // frames 20..24 were never sent
        l.report(5, 102 * MS, true);            // behind what was already counted
        l.report(Long.MAX_VALUE, 103 * MS, true);
        assertEquals(100 * MS, l.minRttNanos());
        assertEquals(10.0, l.inFlight(100 * MS, 100), 1e-9);
    }

    @Test
    void theRoundTrip_isTheLeastOfTwoWindows_cleanSamplesOnly_butALowerOneAlwaysCounts() {
        InFlightLimit l = new InFlightLimit();
        long w = InFlightLimit.MIN_RTT_WINDOW_SECONDS * 1000 * MS;
        long[] seq = {0};
        java.util.function.BiConsumer<Long, Long> sample = (at, rtt) -> {
            l.sent(seq[0], at);
            l.report(++seq[0], at + rtt, true);
        };
        sample.accept(0L, 100 * MS);
        sample.accept(w / 2, 300 * MS);         // one long sample (an idle link) is not the path's
        assertEquals(100 * MS, l.minRttNanos());
        sample.accept(w + MS, 140 * MS);        // a new window: the old one's least still counts
        assertEquals(100 * MS, l.minRttNanos());
        l.sent(seq[0], w + 2 * MS);
        l.report(++seq[0], w + 2 * MS + 150 * MS, false);   // behind a probe's queue: not counted
        sample.accept(2 * w + 2 * MS, 160 * MS);            // two windows on, the path got slower: followed
        assertEquals(140 * MS, l.minRttNanos());
        sample.accept(3 * w + 3 * MS, 170 * MS);
        assertEquals(160 * MS, l.minRttNanos(), "the unclean 150 ms was never the path's");
        l.sent(seq[0], 3 * w + 4 * MS);
        l.report(++seq[0], 3 * w + 4 * MS + 90 * MS, false); // lower, even if not clean
        assertEquals(90 * MS, l.minRttNanos());
    }

    @Test
    void aReportAboutAFrameOlderThanTheSendTimesKept_givesNoSample() {
        InFlightLimit l = new InFlightLimit();
        send(l, 0, InFlightLimit.SEND_TIMES + 10, 0);
        l.report(5, 100 * MS, true);
        assertEquals(-1, l.minRttNanos());
        assertEquals(InFlightLimit.SEND_TIMES + 5, l.inFlight(100 * MS, 100), 1e-9, "the count still follows it");
    }
}
