package dev.khameleon.simulator.live;

import dev.khameleon.simulator.Timeline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link Timeline} on the wall clock: time counts from {@link #start()}, actions run on one
 * single-threaded scheduler (the live replay's thread). Like the simulator's event loop,
 * {@link #nowNanos()} is the time the running action started, frozen while it runs: a request
 * answered from the cache inside the action that registers it has latency 0 (a hit, as the
 * {@code Recorder} counts it), not a few microseconds. An action that throws fails
 * {@code failures} instead of vanishing into its future.
 *
 * <p>{@link #at} may be called from any thread; {@link #nowNanos()} is for actions on the
 * replay thread.
 */
final class WallTimeline implements Timeline {
    private final ScheduledExecutorService executor;
    private final LongSupplier clock;
    private final CompletableFuture<?> failures;
    private volatile long origin;
    private volatile long actionNanos;

    WallTimeline(ScheduledExecutorService executor, LongSupplier clock, CompletableFuture<?> failures) {
        this.executor = executor;
        this.clock = clock;
        this.failures = failures;
    }

    /** Time 0 is now. */
    void start() {
        origin = clock.getAsLong();
    }

    /** The start time of the running action, on this timeline. */
    @Override
    public long nowNanos() {
        return actionNanos;
    }

    @Override
    public void at(long atNanos, Runnable action) {
        executor.schedule(() -> {
            actionNanos = clock.getAsLong() - origin;
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                failures.completeExceptionally(e);
            }
        }, Math.max(0, atNanos - (clock.getAsLong() - origin)), TimeUnit.NANOSECONDS);
    }
}
