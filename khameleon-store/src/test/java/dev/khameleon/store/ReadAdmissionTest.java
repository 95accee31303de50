package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which queued read starts next, how many run at once, and when an I/O thread is woken. */
class ReadAdmissionTest {
    private static final int PAGE = 4096;
    private static final long STALE = 1_000;

    /** Counts wake-ups; nothing here waits on it. */
    private static final class CountingCondition implements Condition {
        int signals;

        @Override
        public void signal() {
            signals++;
        }

        @Override
        public void signalAll() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void await() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void awaitUninterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long awaitNanos(long nanosTimeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean await(long time, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean awaitUntil(Date deadline) {
            throw new UnsupportedOperationException();
        }
    }

    private final CountingCondition work = new CountingCondition();
    private final ReadQueue queue = new ReadQueue(16, Long.MAX_VALUE);
    private long now;
    private long ids;
    private ExtentCache cache = withPages(4);

    private ExtentCache withPages(int pages) {
        return new ExtentCache(new BuddyPool((long) pages * PAGE, PAGE), () -> STALE, e -> false);
    }

    /** Admission over {@code cache} and {@code queue}; every read takes one page. */
    private ReadAdmission admission(int limit, int burst) {
        return new ReadAdmission(ReadConcurrency.fixed(limit), burst, queue, cache, e -> PAGE, e -> e.position + PAGE,
                work, () -> now, () -> STALE);
    }

    private Extent queued(int request) {
        Extent e = new Extent(ids++, request, 0, 1, (long) request * PAGE);
        cache.add(e);
        queue.created();
        return e;
    }

    private Extent demand(int request) {
        Extent e = queued(request);
        queue.demand(e, now);
        return e;
    }

    private Extent hint(int request, long due) {
        Extent e = queued(request);
        e.hinted = 1;
        e.due = due;
        queue.hint(e);
        return e;
    }

    @Test
    void next_startsDemandBeforeHints_andStopsAtTheLimit() {
        ReadAdmission admission = admission(2, 0);
        Extent h = hint(0, 0);
        Extent d = demand(1);

        assertSame(d, admission.next());
        assertSame(h, admission.next());
        assertNull(admission.next(), "two reads in flight fill a limit of two");
        assertEquals(Extent.State.LOADING, d.state);
        assertNotNull(d.memory);
        assertTrue(h.prefetching);
    }

    @Test
    void prefetches_leaveOneReadSlotFree_untilOneFinishes() {
        ReadAdmission admission = admission(3, 0);
        Extent first = hint(0, 10);
        Extent second = hint(1, 20);
        hint(2, 30);

        assertSame(first, admission.next());
        assertSame(second, admission.next());
        assertFalse(admission.hasPrefetchRoom(), "a limit of three allows two prefetches");
        assertNull(admission.next());

        admission.finished(first, true, 5);

        assertFalse(first.prefetching);
        assertTrue(admission.hasPrefetchRoom());
    }

    @Test
    void next_dropsHintsNoSlotWantsAnyMore() {
        ReadAdmission admission = admission(2, 0);
        Extent fetched = hint(0, 0);
        fetched.hinted = 0;
        hint(1, 0);
        now = STALE + 1;

        assertNull(admission.next(), "one was fetched already, the other is past due by more than STALE");
        assertFalse(queue.hasHints());
        assertNull(cache.find(0, 0));
        assertNull(cache.find(1, 0));
    }

    @Test
    void demandWithoutMemory_marksAThreadStarved_wokenOnceWhenMemoryIsReleased() {
        cache = withPages(1);
        ReadAdmission admission = admission(2, 0);
        BuddyPool.Allocation held = cache.pool().allocate(PAGE);
        assertNotNull(held);
        demand(0);

        assertNull(admission.next());
        admission.signalIfRoom(false);
        assertEquals(0, work.signals, "a prefetch would find no memory either");
        admission.signalIfRoom(true);
        assertEquals(1, work.signals, "a demand read may evict more, so it wakes a thread");

        admission.wakeStarved();
        admission.wakeStarved();
        assertEquals(2, work.signals, "the starved thread is woken once");
    }

    @Test
    void burstReads_goBeyondTheLimit_onlyIntoUnannouncedMemory_withoutStarving() {
        cache = withPages(2);
        ReadAdmission admission = admission(1, 1);
        Extent within = demand(0);
        Extent beyond = demand(1);
        demand(2);

        assertSame(within, admission.next());
        assertSame(beyond, admission.next());
        assertTrue(beyond.burst);
        assertEquals(1, admission.burstReads());
        assertNull(admission.next(), "one read within the limit and one burst are in flight");

        admission.finished(beyond, true, 5);
        assertFalse(beyond.burst);
        // Both pages are still held: the third burst read finds no memory and waits for the next event.
        assertNull(admission.next());
        admission.wakeStarved();
        assertEquals(0, work.signals);
        assertEquals(1, admission.burstReads());
    }

    @Test
    void failedRead_clearsTheStarvedMarkWithoutWakingAThread() {
        cache = withPages(1);
        ReadAdmission admission = admission(2, 0);
        Extent failing = demand(0);
        assertSame(failing, admission.next());
        demand(1);
        assertNull(admission.next(), "the failing read holds the only page");

        admission.finished(failing, false, 0);
        admission.wakeStarved();

        assertEquals(0, work.signals);
    }

    @Test
    void signalIfMore_wakesAThreadWhileReadsAreQueuedAndTheLimitHasRoom() {
        ReadAdmission admission = admission(1, 0);
        Extent first = demand(0);
        demand(1);
        assertSame(first, admission.next());

        admission.signalIfMore();
        assertEquals(0, work.signals, "the only read slot is taken");

        admission.finished(first, true, 5);
        admission.signalIfMore();
        assertEquals(1, work.signals);
    }
}
