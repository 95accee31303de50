package dev.khameleon.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RecorderTest {

    @Test
    void upcall_preemptsOlderPendingRequestsAndCountsHitsAtRegistration() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop, 4, 10);
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
        assertEquals(0.5, m.preemptedRate(), 1e-12);
        assertEquals(10.0, m.meanLatencyMs(), 1e-9, "(0 + 20 ms) / 2");
        assertEquals(0.65, m.meanUtility(), 1e-12);
    }

    @Test
    void overpush_countsBytesNeverPresentAtAnUpcallOfTheirRequest() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop, 1, 10);
        r.received(7, 300); // pushed, never asked for
        r.received(2, 100);
        r.register(2);
        r.available(2, 1.0, 100);
        assertEquals(0.75, r.metrics().overpushRate(), 1e-12);
    }

    @Test
    void convergence_isTimeForTheLastRequestToReachFullUtility() {
        EventLoop loop = new EventLoop();
        Recorder r = new Recorder(loop, 1, 10);
        r.register(5);
        loop.at(3_000_000, () -> r.available(5, 0.6, 1));
        loop.at(7_000_000, () -> r.available(5, 1.0, 1));
        loop.runUntil(Long.MAX_VALUE);
        Metrics m = r.metrics();
        assertEquals(7.0, m.convergenceMs(), 1e-9);
        assertEquals(3, m.convergenceCurve().size());
        assertEquals(0.6, m.meanUtility(), 1e-12, "utility at the first upcall");
    }
}
