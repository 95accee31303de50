package dev.khameleon.client;

import java.util.random.RandomGenerator;

/**
 * The client's reconnect delays: exponential, capped and jittered, reset only by a session that
 * stayed up for a while.
 *
 * <p>Attempt {@code k} (0 for the first reconnect after a reset) waits a delay drawn uniformly
 * from {@code [b/2, b]} with {@code b = min(max, initial · 2^k)}: below the cap a delay is never
 * shorter than the one before, and clients that lost the same server do not come back in step. A session
 * that was welcomed and stayed open for at least {@code healthyAfter} resets {@code k} to 0 when
 * it ends; any shorter session — refused, rejected for bad input, or cut — lets {@code k} grow.
 * A welcome alone therefore does not reset the back-off: a server that accepts the connection
 * and then rejects what the client sends sees fewer and fewer attempts.
 *
 * <p>Not thread-safe: the client calls it under its lock.
 */
final class ReconnectBackoff {
    private final long initialMillis;
    private final long maxMillis;
    private final long healthyAfterNanos;
    private final RandomGenerator random;
    private int attempt;

    /**
     * @param initialMillis the base of the first delay, {@code >= 1}
     * @param maxMillis the cap of the base, {@code >= initialMillis}
     * @param healthyAfterNanos how long a session must stay welcomed to reset the back-off
     * @param random the jitter source (seed it for reproducible delays)
     */
    ReconnectBackoff(long initialMillis, long maxMillis, long healthyAfterNanos, RandomGenerator random) {
        if (initialMillis < 1 || maxMillis < initialMillis || healthyAfterNanos < 0) {
            throw new IllegalArgumentException("backoff needs 1 <= initial <= max and healthyAfter >= 0, was "
                    + initialMillis + ", " + maxMillis + ", " + healthyAfterNanos + " ns");
        }
        this.initialMillis = initialMillis;
        this.maxMillis = maxMillis;
        this.healthyAfterNanos = healthyAfterNanos;
        this.random = random;
    }

    /**
     * The delay before the next attempt after a session ended, and a step up for the one after.
     *
     * @param welcomedForNanos how long the ended session had been welcomed, or a negative value if
     *     it never was (a failed attempt)
     */
    long nextDelayMillis(long welcomedForNanos) {
        if (welcomedForNanos >= healthyAfterNanos) {
            attempt = 0;
        }
        long base = baseMillis(attempt);
        if (base < maxMillis) {
            attempt++;
        }
        long low = base - base / 2;
        return low + random.nextLong(base - low + 1);
    }

    /** The un-jittered base of attempt {@code k}: {@code min(max, initial · 2^k)}. */
    long baseMillis(int k) {
        if (k >= 62 || initialMillis > maxMillis >> Math.min(k, 62)) {
            return maxMillis;
        }
        return Math.min(maxMillis, initialMillis << k);
    }
}
