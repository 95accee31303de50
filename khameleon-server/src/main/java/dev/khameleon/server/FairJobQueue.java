package dev.khameleon.server;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The scheduler executor's queue: start-time fair queueing of {@link SchedulerTask}s by the time
 * they take, first across client addresses, then across the sessions ({@link Flow}s) of an address.
 *
 * <p>Each address has a virtual finish time that grows by the nanoseconds its jobs ran (what
 * {@link SchedulerTask#ranFor} reports, at least {@link #MIN_COST_NANOS} a job), and its next job's
 * start tag is that finish time, or the queue's virtual time if that is later: the start tag of the
 * job dispatched last. A free thread takes a job of the address with the least start tag, so an
 * address whose jobs cost a hundred times more gets as much scheduler time as any other, not as
 * many turns, and a job of an address that has been idle waits for at most the jobs already
 * running (and other addresses' jobs of the same tag). An address that was idle starts at the
 * virtual time: idle time earns no credit. A job's cost is known only when it has run, so a
 * dispatch first charges the address's mean cost and {@link SchedulerTask#ranFor} corrects it; a
 * job that reports no cost keeps the mean.
 *
 * <p>Within an address the sessions take turns the same way, on the address's own virtual time.
 * Re-plans go before plan-ahead jobs of the same address, but after {@value
 * SchedulerTask#REPLANS_PER_PLAN_AHEAD} re-plans in a row while a plan-ahead job waits, that one
 * goes next. A re-plan withdrawn for a newer one ({@link #remove}) leaves its turn (start tags and
 * order) with its flow for the job that replaces it ({@link #add} with the same order).
 *
 * <p>An address's state lives while it has an open flow or a job queued or running; then it is
 * forgotten, so memory is bounded by the addresses with sessions.
 *
 * <p><b>Threading.</b> Thread-safe: every method takes the queue's lock for O(log n) work, n the
 * jobs queued; none walks the jobs or sessions of an address.
 */
final class FairJobQueue {
    /** The least a job is charged: so jobs that cost nothing still take turns. */
    static final long MIN_COST_NANOS = 1_000;
    /** Weight of the newest job in an address's mean cost. */
    private static final double EWMA = 0.25;

    private static final Comparator<SchedulerTask> TASKS = Comparator.comparingLong((SchedulerTask t) -> t.tag)
            .thenComparingLong(SchedulerTask::order).thenComparingLong(t -> t.id);
    private static final Comparator<Address> ADDRESSES = Comparator.comparingLong((Address a) -> a.readyTag)
            .thenComparingLong(a -> a.readyOrder).thenComparingLong(a -> a.id);

    /** Addresses with a job queued, by the start tag of their next job. */
    private final TreeSet<Address> ready = new TreeSet<>(ADDRESSES);
    private final Map<Object, Address> addresses = new HashMap<>();
    /** The start tag of the job dispatched last: where an address that was idle starts. */
    private long virtualTime;
    /** The mean cost of a job over all addresses: a new address's first estimate. */
    private double meanCost = MIN_COST_NANOS;
    private long ids;
    private int waiting;
    /** Dispatches the executor will still make (see {@link #add}). */
    private int tickets;

    /**
     * One session's place in the queue: its jobs take turns with the other flows of its address.
     * Open one with {@link #open} and close it when the session ends.
     */
    final class Flow {
        private final Address address;
        /** The flow's virtual finish time among its address's flows. */
        private long finish;
        private long keptOrder = -1;
        private long keptTag;
        private long keptFloor;
        private boolean closed;

        private Flow(Address address) {
            this.address = address;
        }

        /** The session ended: once its jobs have left, its address may be forgotten. Idempotent; any thread. */
        void close() {
            synchronized (FairJobQueue.this) {
                if (!closed) {
                    closed = true;
                    address.flows--;
                    forgetIfUnused(address);
                }
            }
        }
    }

    /** An address's share: its virtual times, its queued jobs and its mean cost. Guarded by the queue. */
    private static final class Address {
        final Object key;
        final long id;
        final TreeSet<SchedulerTask> replans = new TreeSet<>(TASKS);
        final TreeSet<SchedulerTask> aheads = new TreeSet<>(TASKS);
        int flows;
        int running;
        /** The queue's virtual time when the address last became ready. */
        long floor;
        /** The address's virtual finish time: its next job's start tag unless {@link #floor} is later. */
        long finish;
        /** The virtual time among the address's flows: the tag of its job dispatched last. */
        long flowTime;
        double meanCost;
        int replansInARow;
        boolean isReady;
        long readyTag;
        long readyOrder;

        Address(Object key, long id, double meanCost) {
            this.key = key;
            this.id = id;
            this.meanCost = meanCost;
        }

        int waiting() {
            return replans.size() + aheads.size();
        }

        /** The job the address dispatches next; null if none waits. */
        SchedulerTask next() {
            SchedulerTask r = replans.isEmpty() ? null : replans.first();
            SchedulerTask a = aheads.isEmpty() ? null : aheads.first();
            if (r == null || a == null) {
                return r == null ? a : r;
            }
            return replansInARow >= SchedulerTask.REPLANS_PER_PLAN_AHEAD ? a : r;
        }
    }

    /** Opens a flow for a session of the client at {@code address} (an {@link AddressLimits#key}). */
    synchronized Flow open(Object address) {
        Address a = addresses.computeIfAbsent(address, k -> new Address(k, ids++, meanCost));
        a.flows++;
        return new Flow(a);
    }

    /**
     * Queues {@code t} (new, of an open flow). A re-plan whose order is the one its flow's withdrawn
     * re-plan left keeps that job's turn.
     *
     * @return whether the executor needs one more dispatch ({@link #poll}) for it: true unless enough
     *     are already queued, left over by withdrawn jobs
     * @throws IllegalStateException if {@code t}'s flow is closed
     */
    synchronized boolean add(SchedulerTask t) {
        Flow f = t.flow();
        if (f.closed) {
            throw new IllegalStateException("the session's flow is closed");
        }
        Address a = f.address;
        boolean kept = t.replan() && t.order() == f.keptOrder;
        f.keptOrder = -1;
        t.tag = kept ? f.keptTag : Math.max(a.flowTime, f.finish);
        t.id = ids++;
        t.state = SchedulerTask.State.WAITING;
        unready(a);
        if (a.waiting() == 0) {
            a.floor = kept ? Math.min(virtualTime, f.keptFloor) : virtualTime;
        }
        (t.replan() ? a.replans : a.aheads).add(t);
        ready(a);
        waiting++;
        if (tickets < waiting) {
            tickets++;
            return true;
        }
        return false;
    }

    /** A dispatch {@link #add} asked for could not be handed to the executor; {@code t} is withdrawn. */
    synchronized void dispatchLost(SchedulerTask t) {
        tickets--;
        remove(t);
    }

    /**
     * One dispatch: takes the job to run next and charges its address and flow their mean cost, or
     * returns null if none waits (a dispatch left over by a withdrawn job). The caller runs the job
     * and then calls {@link #ended}.
     */
    synchronized SchedulerTask poll() {
        tickets--;
        Address a = ready.pollFirst();
        if (a == null) {
            return null;
        }
        a.isReady = false;
        SchedulerTask t = a.next();
        if (t.replan()) {
            a.replans.remove(t);
            a.replansInARow = a.aheads.isEmpty() ? 0 : a.replansInARow + 1;
        } else {
            a.aheads.remove(t);
            a.replansInARow = 0;
        }
        waiting--;
        long start = Math.max(a.floor, a.finish);
        virtualTime = Math.max(virtualTime, start);
        long estimate = Math.max(MIN_COST_NANOS, Math.round(a.meanCost));
        a.finish = start + estimate;
        a.flowTime = Math.max(a.flowTime, t.tag);
        t.flow().finish = t.tag + estimate;
        t.estimate = estimate;
        t.state = SchedulerTask.State.RUNNING;
        a.running++;
        if (a.waiting() > 0) {
            ready(a);
        }
        return t;
    }

    /**
     * Running {@code t} took {@code nanos}: its address and flow are charged that (at least
     * {@link #MIN_COST_NANOS}) in place of the mean charged at dispatch. Once per job; ignored for
     * a job that is not running.
     */
    synchronized void charge(SchedulerTask t, long nanos) {
        if (t.state != SchedulerTask.State.RUNNING || t.charged) {
            return;
        }
        t.charged = true;
        long cost = Math.max(MIN_COST_NANOS, nanos);
        long correction = cost - t.estimate;
        Address a = t.flow().address;
        boolean wasReady = a.isReady;
        unready(a);
        a.finish += correction;
        t.flow().finish += correction;
        a.meanCost += EWMA * (cost - a.meanCost);
        meanCost += EWMA * (cost - meanCost);
        if (wasReady) {
            ready(a);
        }
    }

    /** {@code t}, which {@link #poll} returned, has ended. */
    synchronized void ended(SchedulerTask t) {
        if (t.state != SchedulerTask.State.RUNNING) {
            return;
        }
        t.state = SchedulerTask.State.LEFT;
        Address a = t.flow().address;
        a.running--;
        forgetIfUnused(a);
    }

    /**
     * Withdraws {@code t} if it waits; a withdrawn re-plan leaves its turn with its flow.
     *
     * @return false if it is running, has left or was never queued
     */
    synchronized boolean remove(SchedulerTask t) {
        if (t.state != SchedulerTask.State.WAITING) {
            return false;
        }
        t.state = SchedulerTask.State.LEFT;
        Flow f = t.flow();
        Address a = f.address;
        unready(a);
        (t.replan() ? a.replans : a.aheads).remove(t);
        waiting--;
        if (t.replan()) {
            f.keptOrder = t.order();
            f.keptTag = t.tag;
            f.keptFloor = a.floor;
        }
        if (a.waiting() > 0) {
            ready(a);
        }
        forgetIfUnused(a);
        return true;
    }

    /** Jobs waiting (queued, not started). */
    synchronized int size() {
        return waiting;
    }

    /** Jobs waiting from {@code address}. */
    synchronized int waiting(Object address) {
        Address a = addresses.get(address);
        return a == null ? 0 : a.waiting();
    }

    /** Addresses whose state the queue holds; for tests. */
    synchronized int addresses() {
        return addresses.size();
    }

    private void unready(Address a) {
        if (a.isReady) {
            ready.remove(a);
            a.isReady = false;
        }
    }

    /** Puts {@code a}, which has a job waiting, among the ready addresses at its next job's start tag. */
    private void ready(Address a) {
        a.readyTag = Math.max(a.floor, a.finish);
        a.readyOrder = a.next().order();
        ready.add(a);
        a.isReady = true;
    }

    private void forgetIfUnused(Address a) {
        if (a.flows == 0 && a.running == 0 && a.waiting() == 0) {
            addresses.remove(a.key, a);
        }
    }
}
