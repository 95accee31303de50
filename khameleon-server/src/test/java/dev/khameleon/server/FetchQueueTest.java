package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fetch queue's order and gates, on an executor the test runs by hand: a task handed to it is
 * a call to a source that has not returned until the test runs it.
 */
class FetchQueueTest {
    private final ArrayDeque<Runnable> executor = new ArrayDeque<>();
    private final Executor handRun = executor::add;
    /** The fetches whose call to the source ran, in order. */
    private final List<String> called = new ArrayList<>();
    private final BackendTracker backend = new BackendTracker();

    private FetchQueue.Ticket offer(FetchQueue.Owner o, String name, int requestId, boolean demand, int limit) {
        FetchQueue.Ticket t = offer(o, limit, requestId, demand, handRun, name);
        assertNotNull(t, name + " was queued");
        return t;
    }

    /** Makes and queues a ticket whose call records {@code name}; null if the queue refused it. */
    private FetchQueue.Ticket offer(FetchQueue.Owner o, int limit, int requestId, boolean demand, Executor executor,
                                    String name) {
        FetchQueue.Ticket t = o.ticket(backend, limit, requestId, demand, executor, () -> called.add(name),
                () -> called.add(name + " rejected"));
        return o.enqueue(t) ? t : null;
    }

    /** Runs the calls handed to the executor, oldest first, until it has none. */
    private void runAll() {
        for (Runnable r = executor.poll(); r != null; r = executor.poll()) {
            r.run();
        }
    }

    @Test
    void aDemandFetchGoesAheadOfEverySpeculativeOne() {
        FetchQueue q = new FetchQueue(1, 100);
        FetchQueue.Owner a = q.owner();
        FetchQueue.Owner b = q.owner();
        offer(a, "a1", 1, false, 0);
        offer(a, "a2", 2, false, 0);
        offer(b, "b1", 3, false, 0);
        offer(a, "a3", 4, false, 0);
        offer(b, "miss", 5, true, 0);
        runAll();
        // a1 took the only thread when it came; the miss came last and went next.
        assertEquals(List.of("a1", "miss", "a2", "b1", "a3"), called);
    }

    @Test
    void speculativeFetchesTakeTurnsBySessionEachInPlanOrder() {
        FetchQueue q = new FetchQueue(1, 100);
        FetchQueue.Owner a = q.owner();
        FetchQueue.Owner b = q.owner();
        FetchQueue.Owner c = q.owner();
        offer(c, "c0", 0, false, 0); // holds the thread while the others queue
        for (int i = 1; i <= 4; i++) {
            offer(a, "a" + i, 10 + i, false, 0);
        }
        offer(b, "b1", 21, false, 0);
        offer(b, "b2", 22, false, 0);
        runAll();
        assertEquals(List.of("c0", "a1", "b1", "a2", "b2", "a3", "a4"), called);
    }

    @Test
    void atMostFetchThreadsCallsRunAtOnce() {
        FetchQueue q = new FetchQueue(2, 100);
        FetchQueue.Owner a = q.owner();
        for (int i = 0; i < 5; i++) {
            offer(a, "a" + i, i, false, 0);
        }
        assertEquals(2, executor.size(), "two calls handed to the executor, three waiting");
        assertEquals(3, q.waiting());
        executor.poll().run();
        assertEquals(2, executor.size(), "a returned call lets the next one start");
        assertEquals(2, q.waiting());
    }

    @Test
    void theBackendLimitHoldsUntilAStartedFetchEndsAndAdmitsMoreBlocksOfARequestInFlight() {
        FetchQueue q = new FetchQueue(8, 100);
        FetchQueue.Owner a = q.owner();
        FetchQueue.Owner b = q.owner();
        FetchQueue.Ticket first = offer(a, "r1 block 0", 1, false, 1);
        offer(b, "r2", 2, false, 1);
        FetchQueue.Ticket second = offer(a, "r1 block 1", 1, false, 1);
        runAll();
        // r2 waits for the one backend slot; a later block of r1 shares r1's and is not held up.
        assertEquals(List.of("r1 block 0", "r1 block 1"), called);
        assertEquals(1, backend.inFlight());
        assertTrue(a.end(first), "the fetch had started");
        runAll();
        assertEquals(List.of("r1 block 0", "r1 block 1"), called, "r1's second block still holds the slot");
        assertTrue(a.end(second));
        runAll();
        assertEquals(List.of("r1 block 0", "r1 block 1", "r2"), called);
    }

    @Test
    void endingAWaitingFetchRemovesItBeforeItReachesTheSource() {
        FetchQueue q = new FetchQueue(1, 100);
        FetchQueue.Owner a = q.owner();
        FetchQueue.Owner b = q.owner();
        FetchQueue.Ticket running = offer(a, "a1", 1, false, 0);
        FetchQueue.Ticket dropped = offer(a, "a2", 2, false, 0);
        FetchQueue.Ticket droppedDemand = offer(b, "b-miss", 3, true, 0);
        offer(b, "b1", 4, false, 0);
        assertFalse(a.end(dropped), "a waiting fetch had not started");
        assertFalse(b.end(droppedDemand));
        assertFalse(a.end(dropped), "idempotent");
        assertEquals(1, q.waiting());
        runAll();
        assertEquals(List.of("a1", "b1"), called);
        assertTrue(a.end(running));
        assertFalse(a.end(running), "idempotent");
        assertEquals(1, backend.inFlight(), "only b1 is still being fetched");
    }

    @Test
    void promotingARequestMovesItsWaitingFetchesAhead() {
        FetchQueue q = new FetchQueue(1, 100);
        FetchQueue.Owner a = q.owner();
        FetchQueue.Owner b = q.owner();
        offer(a, "a1", 1, false, 0);
        offer(b, "b1", 2, false, 0);
        offer(a, "a2 of 7", 7, false, 0);
        offer(a, "a3 of 7", 7, false, 0);
        a.promote(7);
        runAll();
        assertEquals(List.of("a1", "a2 of 7", "a3 of 7", "b1"), called);
    }

    @Test
    void aFullQueueRefusesAndQueuesNothing() {
        FetchQueue q = new FetchQueue(1, 2);
        FetchQueue.Owner a = q.owner();
        offer(a, "a1", 1, false, 0); // started: no longer waiting
        offer(a, "a2", 2, false, 0);
        offer(a, "a3", 3, false, 0);
        assertNull(offer(a, 0, 4, true, handRun, "a4"));
        assertEquals(2, q.waiting());
        runAll();
        assertEquals(List.of("a1", "a2", "a3"), called);
    }

    @Test
    void aRejectingExecutorFailsTheFetchAndFreesItsSlots() {
        FetchQueue q = new FetchQueue(1, 100);
        FetchQueue.Owner a = q.owner();
        Executor shutDown = r -> {
            throw new RejectedExecutionException("shut down");
        };
        FetchQueue.Ticket t = offer(a, 1, 1, false, shutDown, "a1");
        assertSame(FetchQueue.State.ENDED, t.state);
        assertEquals(List.of("a1 rejected"), called);
        assertEquals(0, backend.inFlight(), "the backend slot was given back");
        offer(a, "a2", 2, false, 1);
        runAll();
        assertEquals(List.of("a1 rejected", "a2"), called, "the fetch thread was given back");
    }

    @Test
    void limitsBelowOneAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new FetchQueue(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new FetchQueue(1, 0));
    }
}
