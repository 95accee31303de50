package dev.khameleon.server;

/**
 * How soon one session may re-plan for its next state: at most its share of one scheduler thread.
 * A session whose states cost much to decode and plan (a wide forecast over a million cells) has
 * its re-plans spaced further apart than {@code stateInterval}, so its states are merged further,
 * while its neighbours keep their turns on the scheduler threads.
 *
 * <p>The cost is the time the session's recent re-plan jobs took on a scheduler thread (a moving
 * mean that weights recent jobs most); the least time from one re-plan's start to the next is that
 * cost over the share. Not thread-safe: the session's own thread.
 */
final class ReplanBudget {
    /** Weight of the newest job in the mean. */
    private static final double EWMA = 0.25;

    private final double share;
    private double meanNanos;

    /** @param share the most of one scheduler thread's time the session's re-plans may take, in (0, 1] */
    ReplanBudget(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be in (0, 1], was " + share);
        }
        this.share = share;
    }

    /** A re-plan job of the session took {@code nanos} on a scheduler thread. */
    void record(long nanos) {
        double t = Math.max(0, nanos);
        meanNanos = meanNanos == 0 ? t : meanNanos + EWMA * (t - meanNanos);
    }

    /** The least time from the start of one re-plan to the start of the next, nanoseconds; 0 before any. */
    long gapNanos() {
        return (long) (meanNanos / share);
    }
}
