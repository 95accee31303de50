package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bandwidth estimator and the pacer, on injected time. */
class PacingTest {

    @Test
    void estimator_isHarmonicMeanOfLastFiveNonZeroReports() {
        BandwidthEstimator e = new BandwidthEstimator(100_000, Double.POSITIVE_INFINITY, 0);
        assertEquals(100_000, e.bytesPerSecond(), "initial estimate before any report");
        e.report(0);
        assertEquals(100_000, e.bytesPerSecond(), "a zero report is ignored");
        e.report(10_000);
        e.report(40_000);
        assertEquals(2 / (1 / 10_000.0 + 1 / 40_000.0), e.bytesPerSecond(), 1e-6);
        for (int i = 0; i < 5; i++) {
            e.report(50_000);
        }
        assertEquals(50_000, e.bytesPerSecond(), 1e-6, "old reports leave the window");
        assertEquals(5, e.reportCount());
    }

    /** Regression: a report of 5e-324 made the estimate 0 and the slot infinite; the session died with 1011. */
    @Test
    void estimator_tinyReportCountsAsTheFloorNeverZero() {
        BandwidthEstimator e = new BandwidthEstimator(100_000, Double.POSITIVE_INFINITY, 0);
        e.report(Double.MIN_VALUE);
        assertEquals(BandwidthEstimator.MIN_BYTES_PER_SECOND, e.bytesPerSecond());
        e.report(1e-300);
        e.report(0.5);
        assertEquals(BandwidthEstimator.MIN_BYTES_PER_SECOND, e.bytesPerSecond());
        e.report(3 * BandwidthEstimator.MIN_BYTES_PER_SECOND);
        assertTrue(e.bytesPerSecond() > BandwidthEstimator.MIN_BYTES_PER_SECOND, "a real report still counts");
    }

    @Test
    void estimator_respectsCapAndFixedRate() {
        BandwidthEstimator capped = new BandwidthEstimator(1000, 300, 0);
        assertEquals(300, capped.bytesPerSecond());
        capped.report(10_000);
        assertEquals(300, capped.bytesPerSecond());
        BandwidthEstimator fixed = new BandwidthEstimator(1000, Double.POSITIVE_INFINITY, 42);
        fixed.report(10_000);
        assertEquals(42, fixed.bytesPerSecond());
    }

    @Test
    void pacer_admitsBytesAtItsRateOverTime() {
        long t = 0;
        Pacer p = new Pacer(1_000_000, 2000, t);
        long sent = 0;
        // Ask for 1000-byte frames over one simulated second, advancing time as the pacer says.
        while (t < 1_000_000_000L) {
            long wait = p.tryAcquire(1000, t);
            if (wait == 0) {
                sent += 1000;
            } else {
                t += wait;
            }
        }
        assertTrue(Math.abs(sent - 1_000_000) <= 3000, "sent " + sent + " bytes in one second at 1 MB/s");
    }

    @Test
    void pacer_waitIsTheTimeToEarnTheMissingTokens() {
        Pacer p = new Pacer(1000, 100, 0);
        assertEquals(0, p.tryAcquire(100, 0));
        long wait = p.tryAcquire(100, 0);
        assertEquals(100_000_000L, wait, 1000, "100 bytes at 1000 B/s take 100 ms");
        assertEquals(0, p.tryAcquire(100, wait));
    }

    @Test
    void pacer_onCredit_takesAFrameAtOnceUpToTheDebtLimit_andTheDebtIsRepaidBeforeTheNextFrame() {
        Pacer p = new Pacer(1000, 100, 0);
        assertEquals(0, p.tryAcquire(100, 0), "the initial burst");
        assertTrue(p.tryAcquire(100, 0) > 0, "the bucket is empty");
        assertEquals(0, p.acquireOnCredit(100, 200, 0), "on credit: one frame into debt");
        assertEquals(0, p.acquireOnCredit(100, 200, 0), "a second frame: 200 bytes of debt, the limit");
        long wait = p.acquireOnCredit(100, 200, 0);
        assertEquals(100_000_000L, wait, 1000, "beyond the limit: wait until 100 bytes of debt are repaid");
        assertEquals(300_000_000L, p.tryAcquire(100, 0), 1000, "a paced frame waits out the debt and its own tokens");
        assertEquals(0, p.tryAcquire(100, 300_000_000L));
    }
}
