package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;

import java.util.Arrays;

/**
 * A session's bandwidth estimate and the pace its sender keeps: the estimate follows the client's
 * receive-rate reports ({@link BandwidthEstimator}), the pace is the estimate × the pacing gain,
 * never above the per-session cap, a {@link Pacer} holds each frame to it and an
 * {@link InFlightLimit} bounds the frames on their way.
 *
 * <p><b>Phases.</b> A session starts by doubling: it paces at {@value #STARTUP_GAIN} × the
 * largest report so far, so the estimate reaches the link's rate within a few reports rather
 * than growing by the pacing gain per estimator window. Once {@value #FULL_PIPE_REPORTS} reports
 * in a row have not grown the largest by {@value #FULL_PIPE_GROWTH}×, the link is full: the
 * estimator's window is filled with the largest report and the session cruises, its frames in
 * flight bounded to {@code inFlightGain} round trips at the largest of the last
 * {@value #MAX_FILTER_REPORTS} reports, so the queue the start left drains and no new one
 * builds. The bound uses the largest report, not the harmonic mean, because a sender held to
 * its own estimate can only report less than it: a mean that dips under the link's rate would
 * hold the sender under it for good. Reports come in cycles of {@value #CYCLE} intervals: one
 * probes with {@value #PROBE_GAIN}× the bound, so a link that got faster shows in its report;
 * the next drains with {@value #DRAIN_GAIN}× the bound, so whatever queue the probe or a
 * report above the link's rate built is gone, and only that interval's round trip counts as
 * the path's (a lower one always does). Its report, which shows the drain and not the link,
 * feeds neither estimate. (The shape is BBR's start-up, probe, drain and cruise, at the
 * granularity of the client's reports.) A fixed rate skips the start.
 *
 * <p><b>Threading.</b> Confined to the session's thread; time is passed in, in nanoseconds.
 */
final class SessionPace {
    static final double STARTUP_GAIN = 2.0;
    static final int FULL_PIPE_REPORTS = 3;
    static final double FULL_PIPE_GROWTH = 1.1;
    static final int CYCLE = 4;
    static final double PROBE_GAIN = 1.25;
    static final double DRAIN_GAIN = 0.9;
    static final int MAX_FILTER_REPORTS = 5;

    private final ServerConfig config;
    private final int frameBytes;
    private final SessionCounters counters;
    private final BandwidthEstimator bandwidth;
    private final Pacer pacer;
    /** Null when the server does not bound its frames in flight. */
    private final InFlightLimit inFlight;
    private boolean startup;
    /** The largest report of the start, bytes per second. */
    private double startupMax;
    private int flatReports;
    /** Reports since the start ended: the interval after report {@code k·CYCLE − 2} probes, the next drains. */
    private long cruiseReports;
    /** The last reports that showed the link (not a drain), bytes per second, for the bound. */
    private final double[] recent = new double[MAX_FILTER_REPORTS];
    private int recentNext;
    /** The largest of {@link #recent}, kept per report so that no frame's check scans them. */
    private double recentMax;

    SessionPace(ServerConfig config, int frameBytes, SessionCounters counters, long nowNanos) {
        this.config = config;
        this.frameBytes = frameBytes;
        this.counters = counters;
        this.bandwidth = new BandwidthEstimator(config.initialBytesPerSecond(), config.maxBytesPerSecond(),
                config.fixedBytesPerSecond());
        this.inFlight = config.inFlightGain() > 0 ? new InFlightLimit() : null;
        this.startup = config.fixedBytesPerSecond() == 0;
        this.pacer = new Pacer(paceFor(estimate()), 2 * frameBytes, nowNanos);
        counters.rates(estimate(), pacer.rate());
    }

    /** The bandwidth estimate, bytes per second: during the start, the largest report if higher. */
    private double estimate() {
        double e = bandwidth.bytesPerSecond();
        return startup ? Math.max(e, Math.min(startupMax, config.maxBytesPerSecond())) : e;
    }

    /** The pace for a bandwidth estimate: estimate × gain, but never above the per-session cap. */
    private double paceFor(double estimate) {
        double gain = startup ? Math.max(STARTUP_GAIN, config.pacingGain()) : config.pacingGain();
        return Math.min(estimate * gain, config.maxBytesPerSecond());
    }

    private boolean probing() {
        return !startup && cruiseReports % CYCLE == CYCLE - 2;
    }

    private boolean draining() {
        return !startup && cruiseReports % CYCLE == CYCLE - 1;
    }

    /** The bound on frames in flight, in round trips at {@link #boundRate()}. */
    double inFlightGain() {
        double g = config.inFlightGain();
        return startup ? Math.max(STARTUP_GAIN, g) : probing() ? g * PROBE_GAIN : draining() ? g * DRAIN_GAIN : g;
    }

    /** The rate the bound and the deliveries between reports are reckoned at, bytes per second. */
    private double boundRate() {
        return Math.max(estimate(), Math.min(recentMax, config.maxBytesPerSecond()));
    }

    /**
     * A receive-rate report: the estimate and the pace follow it from {@code nowNanos}, and the
     * frames in flight from its {@code nextSeq} ({@link ControlMessage.RateReport#NO_SEQ} if none).
     */
    void report(double bytesPerSecond, long nextSeq, long nowNanos) {
        boolean drained = draining();
        if (inFlight != null && nextSeq != ControlMessage.RateReport.NO_SEQ) {
            inFlight.report(nextSeq, nowNanos, drained);
        }
        if (!drained) {
            bandwidth.report(bytesPerSecond);
            if (bytesPerSecond > 0 && Double.isFinite(bytesPerSecond) && config.fixedBytesPerSecond() == 0) {
                recent[recentNext] = bytesPerSecond;
                recentNext = (recentNext + 1) % MAX_FILTER_REPORTS;
                recentMax = Arrays.stream(recent).max().orElse(0);
            }
        }
        if (startup) {
            endStartupIfFull(bytesPerSecond);
        } else {
            cruiseReports++;
        }
        pacer.setRate(paceFor(estimate()), nowNanos);
        counters.rates(estimate(), pacer.rate());
    }

    private void endStartupIfFull(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            return;     // nothing was sent: the report says nothing about the link
        }
        if (bytesPerSecond >= startupMax * FULL_PIPE_GROWTH) {
            flatReports = 0;
        } else if (++flatReports >= FULL_PIPE_REPORTS) {
            startup = false;
            bandwidth.fill(Math.max(startupMax, bytesPerSecond));
        }
        startupMax = Math.max(startupMax, bytesPerSecond);
    }

    /** How long one frame takes at the pace, in nanoseconds. */
    double slotNanos() {
        return frameBytes / pacer.rate() * 1e9;
    }

    /** How long one frame takes at the estimate, in milliseconds: the scheduler's slot. */
    double estimatedSlotMillis() {
        return frameBytes / estimate() * 1e3;
    }

    /**
     * Takes one frame's tokens: 0 if taken, else the nanoseconds to wait, for the frames in flight
     * to fall under their bound or for the pacer (see {@link Pacer#tryAcquire}).
     */
    long acquire(long nowNanos) {
        long wait = inFlightWait(nowNanos);
        return wait > 0 ? wait : pacer.tryAcquire(frameBytes, nowNanos);
    }

    /**
     * Takes one frame's tokens on credit up to {@code maxDebtBytes} (see {@link Pacer#acquireOnCredit}).
     * The frames in flight get no credit: a standing excess over their bound would be a queue that
     * every round-trip sample includes, and the bound would grow by it each window.
     */
    long acquireOnCredit(double maxDebtBytes, long nowNanos) {
        long wait = inFlightWait(nowNanos);
        return wait > 0 ? wait : pacer.acquireOnCredit(frameBytes, maxDebtBytes, nowNanos);
    }

    /** Frame {@code seq} was written at {@code nowNanos}. */
    void sent(long seq, long nowNanos) {
        if (inFlight != null) {
            inFlight.sent(seq, nowNanos);
        }
    }

    /** The most frames in flight now, or {@code +∞} while unbounded. */
    double inFlightLimitFrames() {
        return inFlight == null ? Double.POSITIVE_INFINITY : inFlight.limit(boundRate() / frameBytes, inFlightGain());
    }

    private long inFlightWait(long nowNanos) {
        return inFlight == null ? 0 : inFlight.waitNanos(nowNanos, boundRate() / frameBytes, inFlightGain());
    }

    /** The pacer's smallest burst, in bytes. */
    int minBurstBytes() {
        return pacer.minBurstBytes();
    }
}
