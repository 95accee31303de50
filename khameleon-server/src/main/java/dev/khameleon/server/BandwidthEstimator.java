package dev.khameleon.server;

import java.util.Arrays;

/**
 * A session's bandwidth estimate: the harmonic mean of the last {@value #WINDOW} non-zero
 * receive-rate reports, each raised to at least {@value #MIN_BYTES_PER_SECOND} bytes/s and the
 * mean bounded by a cap, or a fixed rate. The estimate is therefore always finite and at least
 * the floor (or the cap, if lower), so the slot duration derived from it is finite too.
 *
 * <p>The harmonic mean weighs low reports heavily, so one lucky burst does not make the server
 * overrun a slow link. Confined to the session's event loop.
 */
final class BandwidthEstimator {
    static final int WINDOW = 5;

    /**
     * The least rate a report counts as, bytes per second: a non-zero report below it (a client
     * on a link slower than this, or a hostile {@code 5e-324}) counts as this rate.
     */
    static final double MIN_BYTES_PER_SECOND = 1_000;

    private final double initial;
    private final double cap;
    private final double fixed;
    private final double[] reports = new double[WINDOW];
    private int count;
    private int next;

    /**
     * @param initial the estimate before any report, bytes per second, {@code > 0}
     * @param cap     the largest estimate, bytes per second ({@code +∞} for none)
     * @param fixed   a fixed rate that ignores reports, or {@code 0} to use reports
     */
    BandwidthEstimator(double initial, double cap, double fixed) {
        this.initial = initial;
        this.cap = cap;
        this.fixed = fixed;
    }

    /**
     * Records a report, raised to {@link #MIN_BYTES_PER_SECOND}; zero, negative, NaN and infinite
     * reports are ignored (the codec already rejects all but zero).
     */
    void report(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            return;
        }
        reports[next] = Math.max(MIN_BYTES_PER_SECOND, bytesPerSecond);
        next = (next + 1) % WINDOW;
        count = Math.min(WINDOW, count + 1);
    }

    /**
     * Fills the window with {@code bytesPerSecond}: what the reports of a sender that was
     * ramping up say about the link is their largest, not their mean.
     */
    void fill(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            return;
        }
        Arrays.fill(reports, Math.max(MIN_BYTES_PER_SECOND, bytesPerSecond));
        count = WINDOW;
        next = 0;
    }

    /** The current estimate in bytes per second, {@code > 0}. */
    double bytesPerSecond() {
        if (fixed > 0) {
            return fixed;
        }
        if (count == 0) {
            return Math.min(initial, cap);
        }
        double inverseSum = 0;
        for (int k = 0; k < count; k++) {
            inverseSum += 1.0 / reports[k];
        }
        return Math.min(count / inverseSum, cap);
    }

    /** The number of reports in the window. */
    int reportCount() {
        return count;
    }
}
