package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FairJobQueue} on its own, one scheduler thread simulated: each job's cost is what the test
 * reports with {@link SchedulerTask#ranFor}, in nanoseconds of a virtual clock, so no assertion
 * depends on the wall clock.
 */
class FairJobQueueTest {
    private static final long UNIT = 10 * FairJobQueue.MIN_COST_NANOS;

    private final FairJobQueue queue = new FairJobQueue();
    private long order;
    /** Virtual time: the sum of the costs of the jobs run. */
    private long clock;

    /** A session that costs {@code cost} per job; {@link #backlogged} ones queue their next job as soon as one ends. */
    private final class Session {
        final String name;
        final FairJobQueue.Flow flow;
        final long cost;
        final boolean backlogged;
        long ran;
        long busyNanos;

        Session(String name, Object address, long cost, boolean backlogged) {
            this.name = name;
            this.flow = queue.open(address);
            this.cost = cost;
            this.backlogged = backlogged;
        }

        SchedulerTask submit(boolean replan) {
            return submit(replan, ++order);
        }

        SchedulerTask submit(boolean replan, long turn) {
            SchedulerTask t = new SchedulerTask(queue, flow, replan, turn, task -> {
                ran++;
                busyNanos += cost;
                clock += cost;
                task.ranFor(cost);
            });
            queue.add(t);
            sessionOf.put(t, this);
            return t;
        }
    }

    private final Map<SchedulerTask, Session> sessionOf = new HashMap<>();

    /** Runs the next job as a scheduler thread would; returns its session, or null if none waited. */
    private Session runNext() {
        SchedulerTask t = queue.poll();
        if (t == null) {
            return null;
        }
        t.run();
        queue.ended(t);
        Session s = sessionOf.remove(t);
        if (s.backlogged) {
            s.submit(t.replan());
        }
        return s;
    }

    private void runFor(long nanos) {
        long end = clock + nanos;
        while (clock < end) {
            assertTrue(runNext() != null, "a backlogged session always has a job queued");
        }
    }

    /**
     * The bug this queue fixes: turns were counted in jobs, so an address whose jobs cost 100 times
     * more took 100 times the scheduler's time. Each address now gets about half.
     */
    @Test
    void anAddressWhoseJobsCostAHundredTimesMore_getsTheSameTimeNotTheSameTurns() {
        List<Session> expensive = new ArrayList<>();
        List<Session> cheap = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            expensive.add(new Session("a" + i, "10.0.0.1", 100 * UNIT, true));
            cheap.add(new Session("b" + i, "10.0.0.2", UNIT, true));
        }
        expensive.forEach(s -> s.submit(true));
        cheap.forEach(s -> s.submit(true));

        runFor(100_000 * UNIT);

        long a = expensive.stream().mapToLong(s -> s.busyNanos).sum();
        long b = cheap.stream().mapToLong(s -> s.busyNanos).sum();
        double share = b / (double) (a + b);
        assertTrue(share > 0.45 && share < 0.55, "the cheap address's share of the time: " + share);
    }

    /**
     * A cheap job of an address with nothing queued waits for at most one of a busy address's jobs,
     * however many of those wait.
     */
    @Test
    void aJobOfAnIdleAddress_waitsForAtMostOneJobOfABusyAddress() {
        for (int i = 0; i < 60; i++) {
            new Session("crowd" + i, "10.0.0.10", 100 * UNIT, true).submit(true);
        }
        Session bystander = new Session("bystander", "10.0.0.2", UNIT, false);
        runFor(1_000 * UNIT);
        for (int round = 0; round < 50; round++) {
            bystander.submit(true);
            int others = 0;
            while (runNext() != bystander) {
                others++;
            }
            assertTrue(others <= 1, "round " + round + ": the bystander waited for " + others + " jobs");
            runFor(round * 37 % 500 * UNIT); // the crowd alone for a while
        }
    }

    /**
     * A session that has nothing queued between its jobs (one session, the next job queued when the
     * last one's result is back) keeps what it used: it does not start afresh each time.
     */
    @Test
    void anAddressIdleBetweenItsJobs_isStillChargedWhatTheyCost() {
        Session expensive = new Session("a", "10.0.0.1", 100 * UNIT, false);
        Session cheap = new Session("b", "10.0.0.2", UNIT, true);
        cheap.submit(true);
        while (clock < 100_000 * UNIT) {
            expensive.submit(true);
            while (runNext() != expensive) {
                // the cheap address's jobs run meanwhile
            }
        }
        double share = cheap.busyNanos / (double) clock;
        assertTrue(share > 0.45, "the cheap address's share of the time: " + share);
    }

    /** Sessions of one address share its time by cost too. */
    @Test
    void sessionsOfOneAddress_shareItsTimeByCost() {
        Session expensive = new Session("a", "10.0.0.1", 100 * UNIT, true);
        Session cheap = new Session("b", "10.0.0.1", UNIT, true);
        expensive.submit(true);
        cheap.submit(true);
        runFor(100_000 * UNIT);
        double share = cheap.busyNanos / (double) clock;
        assertTrue(share > 0.45 && share < 0.55, "the cheap session's share: " + share);
    }

    /** An address that was idle while another ran alone starts at the current virtual time, with no banked credit. */
    @Test
    void anAddressReturningFromIdle_doesNotJumpAheadByBankedCredit() {
        Session early = new Session("early", "10.0.0.2", UNIT, false);
        early.submit(true);
        assertSame(early, runNext());
        Session busy = new Session("busy", "10.0.0.1", UNIT, true);
        busy.submit(true);
        runFor(10_000 * UNIT); // early idles through ten thousand of busy's jobs

        Session returning = new Session("returning", "10.0.0.2", UNIT, true);
        returning.submit(true);
        early.submit(true);
        Session fresh = new Session("fresh", "10.0.0.3", UNIT, true);
        fresh.submit(true);
        Map<String, Integer> runs = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            runs.merge(runNext().name.replace("early", "returning"), 1, Integer::sum);
        }
        // Three addresses, equal costs: about ten jobs each, not 10,000 for the returning address.
        for (String name : List.of("busy", "returning", "fresh")) {
            int n = runs.getOrDefault(name, 0);
            assertTrue(n >= 8 && n <= 12, name + " ran " + n + " of 30: " + runs);
        }
    }

    /** A withdrawn re-plan's replacement, passing its order, takes its place ahead of jobs queued after it. */
    @Test
    void aReplacementPassingTheWithdrawnReplansOrder_keepsItsTurn() {
        Session busy = new Session("busy", "10.0.0.1", UNIT, true);
        busy.submit(true);
        runFor(100 * UNIT);
        Session session = new Session("session", "10.0.0.2", UNIT, false);
        SchedulerTask first = session.submit(true);
        List<Session> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Session s = new Session("later" + i, "10.0.0." + (3 + i), UNIT, false);
            s.submit(true);
            later.add(s);
        }
        assertTrue(queue.remove(first));
        assertFalse(queue.remove(first), "withdrawn once");
        sessionOf.remove(first);
        session.submit(true, first.order());

        List<Session> ran = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ran.add(runNext());
        }
        assertTrue(ran.indexOf(session) <= 1, "the replacement ran at the withdrawn job's turn: " + names(ran));
        assertTrue(ran.indexOf(session) < ran.indexOf(later.get(0)), names(ran).toString());
    }

    /** Without the withdrawn job's order, a new job queues behind those queued before it. */
    @Test
    void aNewJobAfterAWithdrawal_queuesAtTheBack() {
        Session session = new Session("session", "10.0.0.2", UNIT, false);
        SchedulerTask first = session.submit(true);
        Session other = new Session("other", "10.0.0.3", UNIT, false);
        other.submit(true);
        assertTrue(queue.remove(first));
        sessionOf.remove(first);
        session.submit(true);
        assertSame(other, runNext());
        assertSame(session, runNext());
    }

    /** Re-plans go before their address's plan-ahead jobs, but one of those runs after a few re-plans in a row. */
    @Test
    void aPlanAheadJob_runsAfterAtMostAFewReplansOfItsAddress() {
        Session ahead = new Session("ahead", "10.0.0.1", UNIT, false);
        ahead.submit(false);
        for (int i = 0; i < 10; i++) {
            new Session("replan" + i, "10.0.0.1", UNIT, false).submit(true);
        }
        List<Session> ran = new ArrayList<>();
        Session s;
        while ((s = runNext()) != null) {
            ran.add(s);
        }
        assertEquals(SchedulerTask.REPLANS_PER_PLAN_AHEAD, ran.indexOf(ahead), names(ran).toString());
    }

    /** An address's state is kept while it has sessions, and forgotten once the last one closed and its jobs left. */
    @Test
    void anAddressWithNoSessionLeft_isForgotten() {
        Session a = new Session("a", "10.0.0.1", UNIT, false);
        Session b = new Session("b", "10.0.0.1", UNIT, false);
        assertEquals(1, queue.addresses());
        a.submit(true);
        SchedulerTask running = queue.poll();
        a.flow.close();
        b.flow.close();
        b.flow.close();
        assertEquals(1, queue.addresses(), "a job still runs");
        running.run();
        queue.ended(running);
        assertEquals(0, queue.addresses());
        assertThrows(IllegalStateException.class, () -> a.submit(true), "a closed flow takes no job");

        Session c = new Session("c", "10.0.0.2", UNIT, false);
        SchedulerTask waiting = c.submit(false);
        c.flow.close();
        assertEquals(1, queue.addresses(), "a job still waits");
        assertTrue(queue.remove(waiting));
        assertEquals(0, queue.addresses());
        assertEquals(0, queue.size());
    }

    /** A dispatch left over by a withdrawn job finds nothing; no more dispatches are asked for than jobs wait. */
    @Test
    void dispatches_neverOutnumberTheJobsThatMayStillWait() {
        Session s = new Session("s", "10.0.0.1", UNIT, false);
        SchedulerTask t = new SchedulerTask(queue, s.flow, true, ++order, x -> { });
        assertTrue(queue.add(t), "the first job asks for a dispatch");
        assertTrue(queue.remove(t));
        SchedulerTask u = new SchedulerTask(queue, s.flow, true, ++order, x -> { });
        assertFalse(queue.add(u), "the withdrawn job's dispatch is still queued");
        assertSame(u, queue.poll());
        assertNull(queue.poll(), "nothing waits");
    }

    private static List<String> names(List<Session> sessions) {
        List<String> out = new ArrayList<>();
        for (Session s : sessions) {
            out.add(s == null ? "-" : s.name);
        }
        return out;
    }
}
