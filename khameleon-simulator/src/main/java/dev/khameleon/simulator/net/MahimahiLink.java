package dev.khameleon.simulator.net;

/**
 * A link that delivers exactly what a Mahimahi trace allows: the bytes queued on it form one
 * stream, each delivery opportunity carries the next {@value MahimahiTrace#PACKET_BYTES} bytes
 * of it, and an opportunity that finds nothing queued is lost (as in Mahimahi). A message may
 * end part-way through a packet; the next message fills the rest of that packet only if it was
 * queued by the time the packet went out.
 */
final class MahimahiLink implements Link {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final MahimahiTrace trace;
    /** Index of the next unused opportunity on the looped trace. */
    private long next;
    /** Bytes still free in the last, partly used packet, and the time it went out. */
    private int spare;
    private long spareAtNanos;
    private long busyUntil;

    MahimahiLink(MahimahiTrace trace) {
        this.trace = trace;
    }

    @Override
    public long transmit(long readyNanos, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, was " + bytes);
        }
        if (bytes == 0) {
            return Math.max(readyNanos, busyUntil);
        }
        long remaining = bytes;
        long end = busyUntil;
        if (spare > 0 && readyNanos <= spareAtNanos) {
            long used = Math.min(spare, remaining);
            spare -= (int) used;
            remaining -= used;
            end = spareAtNanos;
        } else {
            spare = 0;
        }
        if (remaining > 0) {
            long readyMillis = Math.floorDiv(readyNanos + NANOS_PER_MILLI - 1, NANOS_PER_MILLI);
            next = Math.max(next, trace.firstOpportunityAtOrAfter(readyMillis));
            long packets = (remaining + MahimahiTrace.PACKET_BYTES - 1) / MahimahiTrace.PACKET_BYTES;
            long last = next + packets - 1;
            end = trace.opportunityMillis(last) * NANOS_PER_MILLI;
            spare = (int) (packets * MahimahiTrace.PACKET_BYTES - remaining);
            spareAtNanos = end;
            next = last + 1;
        }
        busyUntil = Math.max(busyUntil, end);
        return end;
    }

    @Override
    public long busyUntilNanos() {
        return busyUntil;
    }

    @Override
    public double meanBytesPerSecond() {
        return trace.meanBytesPerSecond();
    }

    @Override
    public Link copy() {
        return new MahimahiLink(trace);
    }

    @Override
    public String toString() {
        return "MahimahiLink[" + trace.name() + "]";
    }
}
