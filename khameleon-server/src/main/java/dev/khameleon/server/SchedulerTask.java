package dev.khameleon.server;

/**
 * A session's job as queued on the shared scheduler executor. Re-plans (for a new state, a failed
 * block or a session's first plan) run before jobs that only plan further ahead, and within each
 * kind first come, first served: a state then waits only for other sessions' re-plans, not behind
 * every session's refill. Immutable; ordered by {@link #compareTo}.
 */
final class SchedulerTask implements Runnable, Comparable<SchedulerTask> {
    private final boolean replan;
    private final long order;
    private final Runnable work;

    /**
     * @param replan whether the job re-plans (runs first)
     * @param order  the submission order, increasing
     * @param work   the job
     */
    SchedulerTask(boolean replan, long order, Runnable work) {
        this.replan = replan;
        this.order = order;
        this.work = work;
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
        work.run();
    }

    @Override
    public int compareTo(SchedulerTask other) {
        if (replan != other.replan) {
            return replan ? -1 : 1;
        }
        return Long.compare(order, other.order);
    }
}
