package dev.khameleon.simulator.net;

/** A link of constant capacity: {@code bytes} take {@code bytes / rate} seconds once the link is free. */
final class FixedRateLink implements Link {
    private final double bytesPerSecond;
    private long busyUntil;

    FixedRateLink(double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("bandwidth must be finite and > 0 bytes/s, was " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
    }

    @Override
    public long transmit(long readyNanos, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, was " + bytes);
        }
        long start = Math.max(readyNanos, busyUntil);
        busyUntil = start + (long) Math.ceil(bytes * 1e9 / bytesPerSecond);
        return busyUntil;
    }

    @Override
    public long busyUntilNanos() {
        return busyUntil;
    }

    @Override
    public double meanBytesPerSecond() {
        return bytesPerSecond;
    }

    @Override
    public Link copy() {
        return new FixedRateLink(bytesPerSecond);
    }

    @Override
    public String toString() {
        return "FixedRateLink[" + bytesPerSecond + " B/s]";
    }
}
