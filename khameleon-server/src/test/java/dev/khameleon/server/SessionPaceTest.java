package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A session's phases: a start that doubles, a cruise bounded to a round trip, a probe one interval in four. */
class SessionPaceTest {
    private static final int FRAME = 10_000;
    private static final long NO_SEQ = ControlMessage.RateReport.NO_SEQ;

    private static SessionPace pace(Consumer<KhameleonServer.Builder> settings) {
        KhameleonServer.Builder b = KhameleonServer.builder()
                .application(Application.builder("p").path("/p").blockSource(TestApps.inMemory(4, 2, 16)).build())
                .clock(() -> 0).initialBytesPerSecond(1e6);
        settings.accept(b);
        ServerRuntime rt = b.build().runtime();
        return new SessionPace(rt.config, FRAME, new SessionCounters(rt), 0);
    }

    /** The pace in bytes per second. */
    private static double paceOf(SessionPace p) {
        return FRAME / p.slotNanos() * 1e9;
    }

    @Test
    void theStart_pacesAtTwiceTheLargestReport_untilThreeReportsDoNotGrowItByATenth() {
        SessionPace p = pace(b -> { });
        assertEquals(2e6, paceOf(p), 1e-3, "twice the initial estimate");
        p.report(2e6, NO_SEQ, 1);
        assertEquals(4e6, paceOf(p), 1e-3);
        p.report(4e6, NO_SEQ, 2);
        p.report(0, NO_SEQ, 3);                 // an idle interval says nothing about the link
        assertEquals(8e6, paceOf(p), 1e-3);
        p.report(4.3e6, NO_SEQ, 4);             // under 1.1 × 4e6: the link is full once, ...
        p.report(4.2e6, NO_SEQ, 5);
        assertEquals(8.6e6, paceOf(p), 1e-3, "... twice, and the start goes on at the largest");
        p.report(4.35e6, NO_SEQ, 6);
        assertEquals(4.35e6 * 1.25, paceOf(p), 1e-3, "three times: cruising at the pacing gain");
        assertEquals(FRAME / 4.35e6 * 1e3, p.estimatedSlotMillis(), 1e-9, "the window holds the largest report");
    }

    /** A pace whose start has ended on reports of 1e6 bytes/s. */
    private static SessionPace cruising() {
        SessionPace p = pace(b -> { });
        for (int i = 0; i < 4; i++) {
            p.report(1e6, NO_SEQ, i);           // 1e6, then three that do not grow it
        }
        assertEquals(1.25e6, paceOf(p), 1e-3, "cruising");
        return p;
    }

    @Test
    void cruising_boundsARoundTrip_probesAQuarterHigher_thenDrainsUnderIt() {
        SessionPace p = cruising();
        double[] gains = new double[8];
        for (int i = 0; i < gains.length; i++) {
            gains[i] = p.inFlightGain();
            p.report(1e6, NO_SEQ, 10 + i);
        }
        assertArrayEquals(new double[] {1.0, 1.0, 1.25, 0.9, 1.0, 1.0, 1.25, 0.9}, gains, 1e-12);
    }

    @Test
    void theDrainsReport_feedsNoEstimate_andOnlyItsRoundTripReplacesAnOldOne() {
        SessionPace p = pace(b -> b.initialBytesPerSecond(1e6));      // 100 frames/s of 10 kB
        long ms = 1_000_000L;
        long[] seq = {0};
        java.util.function.LongBinaryOperator report = (at, rtt) -> {
            p.sent(seq[0], at);
            p.report(seq[0] == 7 ? 0.2e6 : 1e6, ++seq[0], at + rtt);
            return 0;
        };
        for (int i = 0; i < 4; i++) {
            report.applyAsLong(i * 500 * ms, 100 * ms);                // the start: round trips of 100 ms
        }
        long later = 30_000 * ms;                                       // the 100 ms windows have expired
        report.applyAsLong(later, 150 * ms);                            // cruise
        report.applyAsLong(later + 500 * ms, 150 * ms);                 // cruise
        report.applyAsLong(later + 1000 * ms, 150 * ms);                // the probe: its queue is not the path's
        report.applyAsLong(later + 1500 * ms, 120 * ms);                // the drain's report, at 0.2e6 bytes/s
        assertEquals(FRAME / 1e6 * 1e3, p.estimatedSlotMillis(), 1e-9, "the drain's rate is not the link's");
        assertEquals(10, p.inFlightLimitFrames(), 1e-9, "the window before still holds 100 ms");
        report.applyAsLong(later + 11_000 * ms, 150 * ms);              // cruise, a window on
        assertEquals(12, p.inFlightLimitFrames(), 1e-9, "100 frames/s × the drain's 120 ms, at a gain of 1");
    }

    @Test
    void aFixedRate_skipsTheStart() {
        SessionPace p = pace(b -> b.fixedBytesPerSecond(3e6).pacingGain(1.0));
        assertEquals(3e6, paceOf(p), 1e-3);
        assertEquals(1.0, p.inFlightGain());
    }

    @Test
    void withoutTheBound_nothingWaitsForFramesInFlight() {
        SessionPace p = pace(b -> b.inFlightGain(0).fixedBytesPerSecond(1e6));
        for (long s = 0; s < 50; s++) {
            p.sent(s, 0);
        }
        p.report(1e6, 1, 100_000_000L);
        // Only the pacer holds the sender: its burst is two frames.
        assertEquals(0, p.acquire(100_000_000L));
    }

    @Test
    void withTheBound_theSenderWaitsForFramesToLand() {
        SessionPace p = pace(b -> b.fixedBytesPerSecond(1e6));      // 100 frames/s
        for (long s = 0; s < 50; s++) {
            p.sent(s, 0);
        }
        p.report(1e6, 1, 100_000_000L);         // a round trip of 100 ms: 10 frames; 49 in flight
        assertEquals(400_000_000L, p.acquire(100_000_000L), 1_000, "40 frames have to land at 100 frames/s");
    }
}
