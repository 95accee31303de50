package dev.khameleon.server;

/**
 * A token bucket that paces a session's frames at a rate in bytes per second, allowing a burst of
 * a few frames so that timer granularity does not lower the achieved rate.
 *
 * <p>Frames that must not wait (those up to the first block of a plan made for a new state) may be
 * taken on credit with {@link #acquireOnCredit}: the bucket goes negative by at most the debt the
 * caller allows and the debt is repaid before anything else goes out, so the long-run rate is
 * unchanged and any interval admits at most the burst plus that debt above the rate.
 *
 * <p>Confined to the session's event loop; time is passed in, in nanoseconds.
 */
final class Pacer {
    private static final double BURST_SECONDS = 0.005;

    private final int minBurstBytes;
    private double rate;
    private double tokens;
    private long lastNanos;

    /**
     * @param rate          bytes per second, {@code > 0}
     * @param minBurstBytes the bucket's size at the least (two frames, say)
     * @param nowNanos      the current time
     */
    Pacer(double rate, int minBurstBytes, long nowNanos) {
        this.rate = rate;
        this.minBurstBytes = minBurstBytes;
        this.tokens = minBurstBytes;
        this.lastNanos = nowNanos;
    }

    /**
     * The bucket's size at {@code rate}: at most this many bytes go out at once, so over any
     * interval of {@code T} seconds at a constant rate the pacer admits at most
     * {@code burstBytes + rate · T} bytes.
     */
    static double burstBytes(double rate, int minBurstBytes) {
        return Math.max(minBurstBytes, rate * BURST_SECONDS);
    }

    /** The bucket's smallest size, in bytes. */
    int minBurstBytes() {
        return minBurstBytes;
    }

    /** Changes the rate from now on. */
    void setRate(double bytesPerSecond, long nowNanos) {
        refill(nowNanos);
        this.rate = bytesPerSecond;
    }

    double rate() {
        return rate;
    }

    /**
     * Takes {@code bytes} tokens if there are enough and returns 0; otherwise takes nothing and
     * returns how many nanoseconds to wait before they will be there.
     */
    long tryAcquire(int bytes, long nowNanos) {
        refill(nowNanos);
        if (tokens >= bytes) {
            tokens -= bytes;
            return 0;
        }
        return Math.max(1, (long) Math.ceil((bytes - tokens) / rate * 1e9));
    }

    /**
     * Takes {@code bytes} tokens now, going into debt if there are not enough, as long as the debt
     * stays within {@code maxDebtBytes}; returns 0 if the tokens were taken, else takes nothing and
     * returns the nanoseconds until enough of the debt is repaid.
     */
    long acquireOnCredit(int bytes, double maxDebtBytes, long nowNanos) {
        refill(nowNanos);
        double missing = bytes - maxDebtBytes - tokens;
        if (missing <= 0) {
            tokens -= bytes;
            return 0;
        }
        return Math.max(1, (long) Math.ceil(missing / rate * 1e9));
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(burstBytes(rate, minBurstBytes), tokens + elapsed * 1e-9 * rate);
            lastNanos = nowNanos;
        }
    }
}
