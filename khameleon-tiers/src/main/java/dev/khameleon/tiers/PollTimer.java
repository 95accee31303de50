package dev.khameleon.tiers;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The clock of a stack's waits and its one timer thread, which spaces the polls of loads waiting for
 * another node's value or for an origin permit. Work continued after {@link #later()} runs on the timer
 * thread, so it must not block. Thread-safe.
 */
final class PollTimer implements AutoCloseable {
    private final ScheduledThreadPoolExecutor timer;
    private final long pollMillis;
    private final LongSupplier nanoClock;

    /** A timer that waits {@code pollInterval} (at least 1 ms) per poll, with deadlines on {@code nanoClock}. */
    PollTimer(Duration pollInterval, LongSupplier nanoClock) {
        this.pollMillis = Math.max(1, pollInterval.toMillis());
        this.nanoClock = nanoClock;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "khameleon-tiers-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /** The clock's reading {@code nanos} from now. */
    long deadline(long nanos) {
        return nanoClock.getAsLong() + nanos;
    }

    /** Whether the clock has passed {@code deadline}. */
    boolean passed(long deadline) {
        return nanoClock.getAsLong() - deadline > 0;
    }

    /**
     * Completes on the timer thread one poll interval from now; fails with {@link IllegalStateException}
     * once the timer is closed.
     */
    CompletableFuture<Void> later() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            timer.schedule(() -> f.complete(null), pollMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            f.completeExceptionally(new IllegalStateException("tiered block source is closed", e));
        }
        return f;
    }

    /** Stops the timer thread. A wait already scheduled never ends: its load's owner fails the load. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
