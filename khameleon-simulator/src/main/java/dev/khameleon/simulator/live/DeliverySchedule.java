package dev.khameleon.simulator.live;

import dev.khameleon.simulator.net.MahimahiTrace;

/**
 * When a link may deliver: the times of its {@value MahimahiTrace#PACKET_BYTES}-byte delivery
 * opportunities, counted from when the link opens. A fixed rate {@code R} has one every
 * {@code 1500 / R} seconds; a Mahimahi trace has one per line (looping). Immutable and
 * thread-safe.
 */
interface DeliverySchedule {

    /** The time in ns of opportunity {@code k >= 0}; non-decreasing in {@code k}. */
    long opportunityNanos(long k);

    /** The index of the first opportunity at or after {@code nanos >= 0} (a lower bound is allowed). */
    long firstAtOrAfter(long nanos);

    /** The mean capacity in bytes per second. */
    double meanBytesPerSecond();

    /**
     * A fixed rate of {@code bytesPerSecond}: opportunity {@code k} at {@code k · 1500 / R}
     * seconds, so any interval carries its rate's bytes within one packet.
     *
     * @throws IllegalArgumentException if the rate is not finite and positive
     */
    static DeliverySchedule fixed(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("link rate must be finite and > 0 bytes/s, was " + bytesPerSecond);
        }
        double nanosPerPacket = MahimahiTrace.PACKET_BYTES * 1e9 / bytesPerSecond;
        return new DeliverySchedule() {
            @Override
            public long opportunityNanos(long k) {
                return (long) Math.ceil(k * nanosPerPacket);
            }

            @Override
            public long firstAtOrAfter(long nanos) {
                return Math.max(0, (long) Math.floor(nanos / nanosPerPacket) - 1);
            }

            @Override
            public double meanBytesPerSecond() {
                return bytesPerSecond;
            }
        };
    }

    /** The delivery opportunities of a Mahimahi trace (ms from the start, looping). */
    static DeliverySchedule mahimahi(MahimahiTrace trace) {
        return new DeliverySchedule() {
            @Override
            public long opportunityNanos(long k) {
                return trace.opportunityMillis(k) * 1_000_000L;
            }

            @Override
            public long firstAtOrAfter(long nanos) {
                // One opportunity early at worst (the loop's end/start share a millisecond); the
                // caller skips forward from here.
                return Math.max(0, trace.firstOpportunityAtOrAfter(nanos / 1_000_000L) - 1);
            }

            @Override
            public double meanBytesPerSecond() {
                return trace.meanBytesPerSecond();
            }
        };
    }
}
