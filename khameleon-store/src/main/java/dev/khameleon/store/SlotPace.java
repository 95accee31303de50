package dev.khameleon.store;

/**
 * Estimates how much later a slot {@code k} places into an announced chunk is fetched than slot 0,
 * so announced data can be ordered by when it is due: {@code due = announced + k × slotNanos()}.
 * A least-squares line through (offset in chunk, time from announcement to first fetch) samples,
 * exponentially weighted so it follows changes in load; its slope is the pace, its intercept the
 * lead (how long before its first slot a chunk is announced).
 *
 * <p>Not thread-safe: guarded by the owning {@link ReadAheadReader}'s lock.
 */
final class SlotPace {
    /** Weight of one sample: the estimate follows roughly the last thousand fetches. */
    private static final double ALPHA = 1.0 / 1024;
    private static final int WARM_UP = 64;

    private final long initialSlotNanos;
    private double n;
    private double sx;
    private double sy;
    private double sxx;
    private double sxy;
    private long samples;

    SlotPace(long initialSlotNanos) {
        this.initialSlotNanos = initialSlotNanos;
    }

    /** Records that the slot at {@code offset} of a chunk was first fetched {@code delayNanos} after the announcement. */
    void sample(int offset, long delayNanos) {
        double keep = 1 - ALPHA;
        n = n * keep + 1;
        sx = sx * keep + offset;
        sy = sy * keep + delayNanos;
        sxx = sxx * keep + (double) offset * offset;
        sxy = sxy * keep + (double) offset * delayNanos;
        samples++;
    }

    /** Nanoseconds between consecutive slots of a chunk; the initial guess until enough samples. */
    long slotNanos() {
        if (samples < WARM_UP) {
            return initialSlotNanos;
        }
        double var = sxx / n - (sx / n) * (sx / n);
        if (var <= 0) {
            return initialSlotNanos;
        }
        double slope = (sxy / n - (sx / n) * (sy / n)) / var;
        return Math.max(0, (long) slope);
    }

    /** Nanoseconds from announcing a chunk to fetching its first slot; 0 until enough samples. */
    long leadNanos() {
        if (samples < WARM_UP) {
            return 0;
        }
        return Math.max(0, (long) (sy / n - slotNanos() * (sx / n)));
    }
}
