package dev.khameleon.simulator;

/**
 * A clock that can run an action at a given time: the simulator's virtual {@link EventLoop}, or a
 * wall-clock scheduler in a live replay. A replay drives its pointer samples and requests through
 * this interface, so the simulator and the live replay feed events by the same code.
 *
 * <p>Implementations state their own threading; a replay calls both methods from the one thread
 * that runs its actions.
 */
public interface Timeline {

    /** The current time in nanoseconds on this timeline. */
    long nowNanos();

    /**
     * Runs {@code action} at {@code atNanos} on this timeline (or as soon after as the
     * implementation can).
     *
     * @throws IllegalArgumentException if {@code atNanos} is before now and the implementation
     *     cannot go back in time (the event loop)
     */
    void at(long atNanos, Runnable action);
}
