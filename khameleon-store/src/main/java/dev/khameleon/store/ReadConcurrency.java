package dev.khameleon.store;

/**
 * How many reads may be in flight at once: a fixed number, or a limit that adapts to the device
 * between a floor and a maximum. The adaptive limit watches read latency in windows of
 * {@value #WINDOW} reads: while a window's mean stays within {@value #TOLERANCE}× of the best
 * window seen, more reads in flight still add throughput and the limit grows by one; beyond, the
 * device is queueing them and the limit shrinks in proportion, never below the floor (latency noise
 * from a shared CPU would otherwise drive it to one read in flight, which was measured to lose). The best window slowly ages
 * ({@value #AGING} per window), so the limit recovers after the device (or a neighbour on it) got
 * slower for a while.
 *
 * <p>Not thread-safe: guarded by the owning {@link ReadAheadReader}'s lock.
 */
final class ReadConcurrency {
    static final int WINDOW = 32;
    static final double TOLERANCE = 2.0;
    static final double AGING = 1.02;

    private final int min;
    private final int max;
    private final boolean adaptive;
    private int limit;
    private double best = Double.MAX_VALUE;
    private long windowNanos;
    private int windowReads;

    private ReadConcurrency(int initial, int min, int max, boolean adaptive) {
        this.limit = initial;
        this.min = min;
        this.max = max;
        this.adaptive = adaptive;
    }

    /** Always {@code n} reads in flight. */
    static ReadConcurrency fixed(int n) {
        return new ReadConcurrency(n, n, n, false);
    }

    /**
     * Between {@code min} and {@code max} reads in flight, starting at {@code min}.
     *
     * @throws IllegalArgumentException unless {@code 1 <= min <= max}
     */
    static ReadConcurrency adaptive(int min, int max) {
        if (min < 1 || min > max) {
            throw new IllegalArgumentException("need 1 <= min <= max, was min " + min + ", max " + max);
        }
        return new ReadConcurrency(min, min, max, true);
    }

    /** The most reads that may be in flight now. */
    int limit() {
        return limit;
    }

    /** The most I/O threads this limit can ever use. */
    int max() {
        return max;
    }

    boolean adaptive() {
        return adaptive;
    }

    /** Records one completed read that took {@code latencyNanos}; may change the limit. */
    void completed(long latencyNanos) {
        if (!adaptive) {
            return;
        }
        windowNanos += latencyNanos;
        if (++windowReads < WINDOW) {
            return;
        }
        double mean = (double) windowNanos / windowReads;
        windowNanos = 0;
        windowReads = 0;
        best = Math.min(best * AGING, mean);
        if (mean <= TOLERANCE * best) {
            limit = Math.min(max, limit + 1);
        } else {
            limit = Math.max(min, (int) (limit * TOLERANCE * best / mean));
        }
    }
}
