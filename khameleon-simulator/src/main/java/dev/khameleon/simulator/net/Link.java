package dev.khameleon.simulator.net;

/**
 * The bottleneck downlink from server to client: a first-in first-out byte pipe with a
 * capacity over time. One-way propagation latency is added by the caller, not by the link.
 *
 * <p>Stateful and not thread-safe: the simulator calls {@link #transmit} from its single event
 * loop, with non-decreasing {@code readyNanos}.
 */
public interface Link {

    /**
     * Queues {@code bytes} that are ready to send at {@code readyNanos} behind everything sent
     * before, and returns the virtual time (ns) at which their last byte has crossed the link.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    long transmit(long readyNanos, long bytes);

    /** The time (ns) at which everything queued so far has crossed the link. */
    long busyUntilNanos();

    /** The long-run capacity in bytes per second (for a trace, its mean over one loop). */
    double meanBytesPerSecond();

    /** A fresh link with the same capacity and nothing queued. */
    Link copy();

    /**
     * A link of fixed capacity.
     *
     * @throws IllegalArgumentException if {@code bytesPerSecond} is not finite and positive
     */
    static Link fixed(double bytesPerSecond) {
        return new FixedRateLink(bytesPerSecond);
    }

    /** A link that delivers exactly what the Mahimahi trace allows, looping it. */
    static Link mahimahi(MahimahiTrace trace) {
        return new MahimahiLink(trace);
    }
}
