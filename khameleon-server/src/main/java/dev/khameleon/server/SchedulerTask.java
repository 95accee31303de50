package dev.khameleon.server;

/**
 * A session's job as queued on the shared scheduler executor. Re-plans (for a new state, a failed
 * block or a session's first plan) run before jobs that only plan further ahead; within each kind,
 * jobs take turns by client address, then come first, first served. A job's {@code round} is how
 * many jobs of its address queued before it (by order) were still waiting, so an address with many
 * sessions gets one job in before another address's first, not all of them: a state then waits only
 * for other addresses' re-plans, not behind every session one client opened. Ordered by {@link #compareTo}.
 */
final class SchedulerTask implements Runnable, Comparable<SchedulerTask> {
    private final boolean replan;
    private final int round;
    private final long order;
    private final Runnable onLeave;
    private final Runnable work;
    private final java.util.concurrent.atomic.AtomicBoolean left = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param replan  whether the job re-plans (runs first)
     * @param round   jobs of the same client address waiting when it was queued
     * @param order   the submission order, increasing
     * @param onLeave runs once when the task leaves the queue, to run or withdrawn
     * @param work    the job
     */
    SchedulerTask(boolean replan, int round, long order, Runnable onLeave, Runnable work) {
        this.replan = replan;
        this.round = round;
        this.order = order;
        this.onLeave = onLeave;
        this.work = work;
    }

    /** The task was taken out of the queue without running. */
    void withdrawn() {
        leave();
    }

    private void leave() {
        if (left.compareAndSet(false, true)) {
            onLeave.run();
        }
    }

    /** Whether the job re-plans. */
    boolean replan() {
        return replan;
    }

    /** The task's place in the queue among tasks of its kind; a job that replaces it may keep it. */
    long order() {
        return order;
    }

    @Override
    public void run() {
        leave();
        work.run();
    }

    @Override
    public int compareTo(SchedulerTask other) {
        if (replan != other.replan) {
            return replan ? -1 : 1;
        }
        if (round != other.round) {
            return Integer.compare(round, other.round);
        }
        return Long.compare(order, other.order);
    }
}
