package dev.khameleon.tiers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Whether a shared store is down: after a failure it is skipped for the retry interval, then tried
 * again. Reports the first failure of an outage and the success that ends it, so its owner logs one
 * line for each. Thread-safe.
 */
final class Outage {
    private final long retryNanos;
    private final LongSupplier nanoClock;
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile long downUntilNanos;

    /** A store that is up, skipped for {@code retryInterval} after each failure, on {@code nanoClock}. */
    Outage(Duration retryInterval, LongSupplier nanoClock) {
        this.retryNanos = retryInterval.toNanos();
        this.nanoClock = nanoClock;
    }

    /** Whether now is inside the retry interval after the last failure: the store is to be passed over. */
    boolean skipping() {
        return down.get() && nanoClock.getAsLong() - downUntilNanos < 0;
    }

    /** Records a failure, skipping the store for the retry interval from now; true if it begins an outage. */
    boolean fail() {
        downUntilNanos = nanoClock.getAsLong() + retryNanos;
        return down.compareAndSet(false, true);
    }

    /** Records a success; true if it ends an outage. */
    boolean recover() {
        return down.get() && down.compareAndSet(true, false);
    }

    /** Whether an outage has begun and not ended. */
    boolean isDown() {
        return down.get();
    }

    /** The retry interval in milliseconds, for log lines. */
    long retryMillis() {
        return TimeUnit.NANOSECONDS.toMillis(retryNanos);
    }

    /** The class and message of the innermost cause of {@code t}: what a log line says went wrong. */
    static String rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
