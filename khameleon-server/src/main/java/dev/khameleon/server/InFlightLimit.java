package dev.khameleon.server;

/**
 * Bounds how many block frames a session has on their way to the client, so that pushing above
 * the link's rate fills no standing queue in front of the bottleneck: every frame behind such a
 * queue lands a queue's time after the prediction it was planned for.
 *
 * <p>The client's rate reports say which sequence number it expects next ({@code nextSeq}). The
 * time from sending the last frame a report counts to the report's arrival is a round-trip
 * sample; the least sample of the current window of {@value #MIN_RTT_WINDOW_SECONDS} s and the
 * one before is the path's round trip (a single sample can be long: a frame that landed well
 * before the report, on an idle link). Between reports the client is taken to receive at the
 * rate the caller gives. A frame may go when the frames in flight stay under
 * {@code gain × rate × round trip}, and never fewer than {@value #MIN_FRAMES} frames: the link
 * stays busy while the queue stays short. Without
 * reports that carry {@code nextSeq} (an older client) nothing is bounded here and only the
 * pacer and the channel's water marks hold the sender back.
 *
 * <p>The windows forget a round trip within twice {@value #MIN_RTT_WINDOW_SECONDS} s, so a path whose
 * delay grows (a handover) is followed rather than throttled to its old delay.
 *
 * <p>Confined to the session's event loop; time is passed in, in nanoseconds.
 */
final class InFlightLimit {
    /** The fewest frames the bound ever allows in flight. */
    static final int MIN_FRAMES = 4;
    static final int MIN_RTT_WINDOW_SECONDS = 10;
    private static final long MIN_RTT_WINDOW_NANOS = MIN_RTT_WINDOW_SECONDS * 1_000_000_000L;
    /** Send times kept, by sequence number modulo this: a report about an older frame gives no sample. */
    static final int SEND_TIMES = 1024;

    private final long[] sentNanos = new long[SEND_TIMES];
    private long firstSeq = -1;
    private long nextSeq = -1;
    private long ackedSeq = -1;
    private long ackNanos;
    /** The least clean round trip of the window that ended last, and of the current one; -1 for none. */
    private long lastWindowMinNanos = -1;
    private long windowMinNanos = -1;
    private long windowStartNanos;

    /** Frame {@code seq} was written at {@code nowNanos}. */
    void sent(long seq, long nowNanos) {
        if (firstSeq < 0) {
            firstSeq = seq;
        }
        sentNanos[(int) (seq % SEND_TIMES)] = nowNanos;
        nextSeq = seq + 1;
    }

    /**
     * A rate report arrived at {@code nowNanos} saying the client expects {@code reportedNextSeq}
     * next. A report that goes backwards or counts frames never sent is ignored. Its round trip
     * counts when {@code clean} (the sender built no queue of its own before it) or when it is
     * lower than the path's.
     */
    void report(long reportedNextSeq, long nowNanos, boolean clean) {
        if (firstSeq < 0 || reportedNextSeq <= Math.max(ackedSeq, firstSeq) || reportedNextSeq > nextSeq) {
            return;
        }
        ackedSeq = reportedNextSeq;
        ackNanos = nowNanos;
        long last = reportedNextSeq - 1;
        if (nextSeq - last > SEND_TIMES) {
            return;
        }
        long rtt = nowNanos - sentNanos[(int) (last % SEND_TIMES)];
        if (nowNanos - windowStartNanos >= MIN_RTT_WINDOW_NANOS) {
            if (windowMinNanos >= 0) {      // a window without a sample keeps the last one's
                lastWindowMinNanos = windowMinNanos;
            }
            windowMinNanos = -1;
            windowStartNanos = nowNanos;
        }
        long current = minRttNanos();
        if (clean || current < 0 || rtt < current) {
            windowMinNanos = windowMinNanos < 0 ? rtt : Math.min(windowMinNanos, rtt);
        }
    }

    /** The round trip the bound uses, in nanoseconds, or {@code -1} before the first sample. */
    long minRttNanos() {
        if (lastWindowMinNanos < 0 || windowMinNanos < 0) {
            return Math.max(lastWindowMinNanos, windowMinNanos);
        }
        return Math.min(lastWindowMinNanos, windowMinNanos);
    }

    /** The frames taken to be on their way at {@code nowNanos}, receiving at {@code framesPerSecond}. */
    double inFlight(long nowNanos, double framesPerSecond) {
        if (ackedSeq < 0) {
            return 0;
        }
        double delivered = (nowNanos - ackNanos) * 1e-9 * framesPerSecond;
        return Math.max(0, nextSeq - ackedSeq - delivered);
    }

    /** The most frames in flight at {@code framesPerSecond} and {@code gain} round trips, or {@code +∞} while unbounded. */
    double limit(double framesPerSecond, double gain) {
        long rtt = minRttNanos();
        if (rtt < 0) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.max(MIN_FRAMES, gain * framesPerSecond * rtt * 1e-9);
    }

    /**
     * 0 if one more frame may go at {@code nowNanos} under the bound of {@code gain} round trips,
     * else the nanoseconds until it may at {@code framesPerSecond}.
     */
    long waitNanos(long nowNanos, double framesPerSecond, double gain) {
        double excess = inFlight(nowNanos, framesPerSecond) + 1 - limit(framesPerSecond, gain);
        if (!(excess > 0)) {
            return 0;
        }
        return Math.max(1, (long) Math.ceil(excess / framesPerSecond * 1e9));
    }
}
