package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecorderTest {

    @Test
    void upcall_preemptsOlderPendingRequestsAndCountsHitsAtRegistration() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 4, 10);
        int a = r.register(1);
        int b = r.register(2);
        loop.at(5_000_000, () -> {
            int c = r.register(3);
            r.available(3, 0.5, 100); // a hit: answers c at once, preempting a and b
            assertFalse(r.isPending(c));
        });
        loop.at(9_000_000, () -> r.available(1, 1.0, 100)); // too late for a: preempted
        loop.at(10_000_000, () -> {
            int d = r.register(4);
            loop.after(20_000_000, () -> r.available(4, 0.8, 100));
            assertTrue(r.isPending(d));
        });
        loop.runUntil(Long.MAX_VALUE);
        assertFalse(r.isPending(a));
        assertFalse(r.isPending(b));
        Metrics m = r.metrics();
        assertEquals(4, m.requests());
        assertEquals(0.25, m.hitRate(), 1e-12);
        assertEquals(0.5, m.hitRateNonPreempted(), 1e-12, "1 hit among the 2 requests not preempted");
        assertEquals(0.5, m.preemptedRate(), 1e-12);
        assertEquals(10.0, m.meanLatencyMs(), 1e-9, "(0 + 20 ms) / 2");
        assertEquals(0.65, m.meanUtility(), 1e-12);
    }

    @Test
    void overpush_countsBytesNeverPresentAtAnUpcallOfTheirRequest() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 1, 10);
        r.received(7, 300); // pushed, never asked for
        r.received(2, 100);
        r.register(2);
        r.available(2, 1.0, 100);
        assertEquals(0.75, r.metrics().overpushRate(), 1e-12);
    }

    @Test
    void convergence_isTimeForTheLastRequestToReachFullUtility() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 1, 10);
        r.register(5);
        loop.at(3_000_000, () -> r.available(5, 0.6, 1));
        loop.at(7_000_000, () -> r.available(5, 1.0, 1));
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics();
        assertEquals(7.0, m.convergenceMs(), 1e-9);
        assertEquals(3, m.convergenceCurve().size());
        assertEquals(0.6, m.meanUtility(), 1e-12, "utility at the first upcall");
    }

    @Test
    void neverAnswered_countsLatencyUpToTheEndOfTheRun() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 2, 10);
        r.register(1);
        loop.at(5_000_000, () -> r.available(1, 0.5, 1)); // answered after 5 ms
        loop.at(10_000_000, () -> r.register(2)); // never answered
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics(110_000_000);
        assertEquals(1, m.neverAnswered());
        assertEquals(0.0, m.preemptedRate());
        assertEquals((5.0 + 100.0) / 2, m.meanLatencyMs(), 1e-9, "the unanswered request waited 100 ms until the end");
        assertEquals(100.0, m.p95LatencyMs(), 1e-9);
        assertEquals(0.0, m.hitRateNonPreempted(), 1e-12);
        assertEquals(0.5, m.meanUtility(), 1e-12, "utility only over answered requests");
    }

    @Test
    void percentilesAndTailShare_onLatencies1To100Ms() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 100, 200);
        // Request k (1..100) is registered at k seconds and answered k ms later: no overlap.
        for (int k = 1; k <= 100; k++) {
            int id = k;
            long at = k * 1_000_000_000L;
            loop.at(at, () -> r.register(id));
            loop.at(at + id * 1_000_000L, () -> r.available(id, 1.0, 1));
        }
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics();
        assertEquals(50.5, m.meanLatencyMs(), 1e-9);
        assertEquals(50.0, m.p50LatencyMs(), 1e-9);
        assertEquals(95.0, m.p95LatencyMs(), 1e-9);
        assertEquals(99.0, m.p99LatencyMs(), 1e-9, "nearest rank: the 99th of 100");
        assertEquals((96 + 97 + 98 + 99 + 100) / 5050.0, m.tailLatencyShare(), 1e-12, "slowest 5 of 100");
        assertEquals(0, m.neverAnswered());
    }

    @Test
    void tailShare_isUndefinedWhenEveryRequestHits() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 1, 10);
        r.register(3);
        r.available(3, 1.0, 1);
        Metrics m = r.metrics();
        assertEquals(1.0, m.hitRate());
        assertTrue(Double.isNaN(m.tailLatencyShare()), "0 of 0 ms");
    }

    @Test
    void staleHover_isTheShareOfHoverTimeWithoutAnAnswerForTheHoveredCell() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 0, 10);
        Set<Integer> cached = new HashSet<>(Set.of(2));
        r.probeCache(id -> cached.contains(id) ? 1 : 0, blocks -> 1.0);
        loop.at(0, () -> r.hover(1)); // nothing for cell 1: stale
        loop.at(30_000_000, () -> {
            cached.add(1);
            r.received(1, 10); // cell 1 answered: fresh from 30 ms
        });
        loop.at(40_000_000, () -> r.hover(1)); // same cell: no change
        loop.at(50_000_000, () -> r.hover(2)); // cached: fresh
        loop.at(60_000_000, () -> {
            cached.remove(2);
            r.received(5, 10); // an arrival evicted cell 2: stale from 60 ms
        });
        loop.at(80_000_000, () -> r.hover(-1)); // trace ends
        loop.at(200_000_000, () -> r.hover(-1)); // after the end nothing counts
        loop.runUntil(Long.MAX_VALUE);
        assertEquals((30.0 + 20.0) / 80.0, r.metrics().staleHoverRate(), 1e-12);
    }

    @Test
    void staleHover_isUndefinedWithoutAProbe() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 0, 10);
        loop.at(0, () -> r.hover(1));
        loop.at(10_000_000, () -> r.hover(-1));
        loop.runUntil(Long.MAX_VALUE);
        assertTrue(Double.isNaN(r.metrics().staleHoverRate()));
    }

    @Test
    void visits_waitUntilTheFirstAnswerOrTheirWholeStay_andUnansweredOnesCountUtilityZero() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 0, 10);
        java.util.Map<Integer, Integer> blocks = new java.util.HashMap<>(java.util.Map.of(2, 2));
        r.probeCache(id -> blocks.getOrDefault(id, 0), b -> b / 4.0);
        loop.at(0, () -> r.hover(1)); // nothing for cell 1
        loop.at(30_000_000, () -> {
            blocks.put(1, 1);
            r.received(1, 10); // cell 1's first block: waited 30 ms, utility 0.25
        });
        loop.at(40_000_000, () -> {
            blocks.put(1, 3);
            r.received(1, 10); // a later block does not change the first answer
        });
        loop.at(50_000_000, () -> r.hover(2)); // two blocks cached: waits 0, utility 0.5
        loop.at(60_000_000, () -> r.hover(3)); // never answered: waits its 40 ms stay, utility 0
        loop.at(100_000_000, () -> r.hover(-1));
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics();
        assertEquals(3, m.visits());
        assertEquals((30.0 + 0 + 40.0) / 3, m.meanWaitAllMs(), 1e-9);
        assertEquals((0.25 + 0.5 + 0) / 3, m.firstUtilityAll(), 1e-12);
    }

    @Test
    void visits_aRequestPreemptedByANewerOneStillCountsItsVisit() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop::nowNanos, 2, 10);
        Set<Integer> cached = new HashSet<>();
        r.probeCache(id -> cached.contains(id) ? 1 : 0, b -> 1.0);
        loop.at(0, () -> {
            r.hover(1);
            r.register(1);
        });
        loop.at(10_000_000, () -> {
            r.hover(2);
            r.register(2);
        });
        loop.at(20_000_000, () -> {
            cached.add(2);
            r.received(2, 10);
            r.available(2, 1.0, 10); // answers 2, preempts 1
        });
        loop.at(25_000_000, () -> r.hover(-1));
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics();
        assertEquals(0.5, m.preemptedRate(), 1e-12, "request 1 is dropped from the latency statistics");
        assertEquals(2, m.visits());
        assertEquals((10.0 + 10.0) / 2, m.meanWaitAllMs(), 1e-9, "but its visit waited all its 10 ms");
        assertEquals(0.5, m.firstUtilityAll(), 1e-12);
    }
}
