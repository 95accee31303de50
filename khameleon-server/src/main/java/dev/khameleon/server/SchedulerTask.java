package dev.khameleon.server;

/**
 * A session's job as queued on the shared scheduler executor, in its {@link FairJobQueue.Flow}: jobs
 * share the scheduler threads' time by client address, then by session, each charged the time it
 * ran ({@link #ranFor}). Within an address, re-plans (for a new state, a failed block or a
 * session's first plan) go before jobs that only plan further ahead, but not without end: after
 * {@value #REPLANS_PER_PLAN_AHEAD} re-plans in a row while a plan-ahead job waits, that one runs, so
 * one session's stream of states cannot starve the plans its neighbours' senders need.
 *
 * <p><b>Threading.</b> Made and queued on a session's thread, run on a scheduler thread; its queue
 * fields are guarded by the queue's lock.
 */
final class SchedulerTask implements Runnable {
    /** Re-plans of one address that run in a row while one of its plan-ahead jobs waits. */
    static final int REPLANS_PER_PLAN_AHEAD = 4;

    /** What a job does on a scheduler thread; it may report its cost with {@link SchedulerTask#ranFor}. */
    @FunctionalInterface
    interface Work {
        /** Runs the job of {@code task}. */
        void run(SchedulerTask task);
    }

    /** Where the task is; the queue's. */
    enum State { NEW, WAITING, RUNNING, LEFT }

    private final FairJobQueue queue;
    private final FairJobQueue.Flow flow;
    private final boolean replan;
    private final long order;
    private final Work work;

    // The queue's, under its lock.
    State state = State.NEW;
    /** The start tag among the flows of the address. */
    long tag;
    /** Unique within the queue: the last tie-break. */
    long id;
    /** What the dispatch charged before the cost was known. */
    long estimate;
    boolean charged;

    /**
     * @param queue  the queue it goes into
     * @param flow   the session's flow in {@code queue}
     * @param replan whether the job re-plans (runs before the address's plan-ahead jobs)
     * @param order  the submission order, increasing; the last tie-break between equal start tags
     * @param work   the job
     */
    SchedulerTask(FairJobQueue queue, FairJobQueue.Flow flow, boolean replan, long order, Work work) {
        this.queue = queue;
        this.flow = flow;
        this.replan = replan;
        this.order = order;
        this.work = work;
    }

    /** Whether the job re-plans. */
    boolean replan() {
        return replan;
    }

    /** The task's turn: a re-plan that replaces it after it was withdrawn keeps it by passing this order. */
    long order() {
        return order;
    }

    FairJobQueue.Flow flow() {
        return flow;
    }

    /**
     * The job's work took {@code nanos} of this scheduler thread: its address and session are
     * charged that. Call it from the work, before handing the result on, so the session's next job
     * is queued with its cost known; at most once counts.
     */
    void ranFor(long nanos) {
        queue.charge(this, nanos);
    }

    /** Runs the work; the scheduler thread that took the task from the queue only. */
    @Override
    public void run() {
        work.run(this);
    }
}
