package dev.khameleon.server;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One task that runs at a deadline, with at most one run pending: arming it again keeps the
 * earlier of the pending and the new deadline. Confined to the thread of {@code executor}, which is
 * also where the task runs (a channel's event loop).
 */
final class LoopTimer {
    private final ScheduledExecutorService executor;
    private final LongSupplier clock;
    private final Runnable task;
    private ScheduledFuture<?> pending;
    private long deadlineNanos;

    /**
     * @param executor runs the task; the caller's own thread
     * @param clock    nanoseconds, the time deadlines are given in
     * @param task     what runs at the deadline; the timer is disarmed before it runs, so it may
     *                 arm the timer again
     */
    LoopTimer(ScheduledExecutorService executor, LongSupplier clock, Runnable task) {
        this.executor = executor;
        this.clock = clock;
        this.task = task;
    }

    /** Runs the task {@code delayNanos} from now, unless a run is pending that long or sooner. */
    void armIn(long delayNanos) {
        armAt(clock.getAsLong() + Math.max(0, delayNanos));
    }

    /** Runs the task at {@code atNanos}, unless a run is pending by then. */
    void armAt(long atNanos) {
        if (isArmed() && deadlineNanos <= atNanos) {
            return;
        }
        cancel();
        deadlineNanos = atNanos;
        pending = executor.schedule(this::fire, Math.max(0, atNanos - clock.getAsLong()), TimeUnit.NANOSECONDS);
    }

    /** Whether a run is pending. */
    boolean isArmed() {
        return pending != null && !pending.isDone();
    }

    /** The pending run's deadline; meaningful only while {@link #isArmed()}. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    /** Cancels a pending run, if any. */
    void cancel() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }

    private void fire() {
        pending = null;
        task.run();
    }
}
