package dev.khameleon.server;

/**
 * A session's job as queued on the shared scheduler executor. Jobs take turns by client address: a
 * job's {@code round} is how many jobs of its address and kind queued before it (by order) were
 * still waiting, so an address with many sessions gets one job in before another address's first,
 * not all of them. Re-plans (for a new state, a failed block or a session's first plan) go before
 * jobs that only plan further ahead, but not without end: a plan-ahead job of round {@code r} runs
 * after the re-plans of rounds below {@code (r + 1) · }{@value #REPLANS_PER_PLAN_AHEAD}, so one
 * address's stream of states cannot starve the plans every other session's sender needs. Within
 * a rank, re-plans first, then first come, first served. Ordered by {@link #compareTo}.
 */
final class SchedulerTask implements Runnable, Comparable<SchedulerTask> {
    /** Re-plan rounds of every address that go before one round of an address's plan-ahead jobs. */
    static final int REPLANS_PER_PLAN_AHEAD = 4;

    private final boolean replan;
    /** The round, plan-ahead rounds spread out behind {@link #REPLANS_PER_PLAN_AHEAD} re-plan rounds each. */
    private final long rank;
    private final long order;
    private final Runnable onLeave;
    private final Runnable work;
    private final java.util.concurrent.atomic.AtomicBoolean left = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param replan  whether the job re-plans (runs first)
     * @param round   jobs of the same client address and kind waiting when it was queued
     * @param order   the submission order, increasing
     * @param onLeave runs once when the task leaves the queue, to run or withdrawn
     * @param work    the job
     */
    SchedulerTask(boolean replan, int round, long order, Runnable onLeave, Runnable work) {
        this.replan = replan;
        this.rank = replan ? round : (round + 1L) * REPLANS_PER_PLAN_AHEAD - 1;
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
        if (rank != other.rank) {
            return Long.compare(rank, other.rank);
        }
        if (replan != other.replan) {
            return replan ? -1 : 1;
        }
        return Long.compare(order, other.order);
    }
}
