package dev.khameleon.server;

/**
 * A session's bandwidth estimate and the pace its sender keeps: the estimate follows the client's
 * receive-rate reports ({@link BandwidthEstimator}), the pace is the estimate × the pacing gain,
 * never above the per-session cap, and a {@link Pacer} holds each frame to it.
 *
 * <p><b>Threading.</b> Confined to the session's thread; time is passed in, in nanoseconds.
 */
final class SessionPace {
    private final ServerConfig config;
    private final int frameBytes;
    private final SessionCounters counters;
    private final BandwidthEstimator bandwidth;
    private final Pacer pacer;

    SessionPace(ServerConfig config, int frameBytes, SessionCounters counters, long nowNanos) {
        this.config = config;
        this.frameBytes = frameBytes;
        this.counters = counters;
        this.bandwidth = new BandwidthEstimator(config.initialBytesPerSecond(), config.maxBytesPerSecond(),
                config.fixedBytesPerSecond());
        this.pacer = new Pacer(paceFor(bandwidth.bytesPerSecond()), 2 * frameBytes, nowNanos);
        counters.rates(bandwidth.bytesPerSecond(), pacer.rate());
    }

    /** The pace for a bandwidth estimate: estimate × gain, but never above the per-session cap. */
    private double paceFor(double estimate) {
        return Math.min(estimate * config.pacingGain(), config.maxBytesPerSecond());
    }

    /** A receive-rate report: the estimate and the pace follow it from {@code nowNanos}. */
    void report(double bytesPerSecond, long nowNanos) {
        bandwidth.report(bytesPerSecond);
        double estimate = bandwidth.bytesPerSecond();
        pacer.setRate(paceFor(estimate), nowNanos);
        counters.rates(estimate, pacer.rate());
    }

    /** How long one frame takes at the pace, in nanoseconds. */
    double slotNanos() {
        return frameBytes / pacer.rate() * 1e9;
    }

    /** How long one frame takes at the estimate, in milliseconds: the scheduler's slot. */
    double estimatedSlotMillis() {
        return frameBytes / bandwidth.bytesPerSecond() * 1e3;
    }

    /** Takes one frame's tokens: 0 if taken, else the nanoseconds to wait (see {@link Pacer#tryAcquire}). */
    long acquire(long nowNanos) {
        return pacer.tryAcquire(frameBytes, nowNanos);
    }

    /** Takes one frame's tokens on credit up to {@code maxDebtBytes} (see {@link Pacer#acquireOnCredit}). */
    long acquireOnCredit(double maxDebtBytes, long nowNanos) {
        return pacer.acquireOnCredit(frameBytes, maxDebtBytes, nowNanos);
    }

    /** The pacer's smallest burst, in bytes. */
    int minBurstBytes() {
        return pacer.minBurstBytes();
    }
}
