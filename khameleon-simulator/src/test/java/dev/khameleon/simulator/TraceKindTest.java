package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.trace.PointerTrace;
import org.junit.jupiter.api.Test;

class TraceKindTest {

    private static PointerTrace at(double... times) {
        return PointerTrace.of("t", times, new double[times.length], new double[times.length], 10, 10);
    }

    @Test
    void medianInterval_isRobustToIdleGaps() {
        // Intervals 16, 16, 16, 17, 2000: an idle gap does not move the median.
        assertEquals(16.0, at(0, 16, 32, 48, 65, 2065).medianIntervalMillis());
        // Intervals 10, 20, 30, 40: the upper median.
        assertEquals(30.0, at(0, 10, 30, 60, 100).medianIntervalMillis());
        assertTrue(Double.isNaN(at(0).medianIntervalMillis()));
    }

    @Test
    void kind_splitsAtFortyMilliseconds() {
        assertEquals(TraceKind.SIXTY_HZ, TraceKind.of(at(0, 16, 33, 50)));
        assertEquals(TraceKind.SIXTY_HZ, TraceKind.of(40));
        assertEquals(TraceKind.COALESCED, TraceKind.of(40.5));
        assertEquals(TraceKind.COALESCED, TraceKind.of(at(0, 110, 220, 2220, 2330)));
        assertEquals("60hz", TraceKind.SIXTY_HZ.label());
        assertEquals("coalesced", TraceKind.COALESCED.label());
    }
}
