package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The server's outbound window in front of the simulated link: Netty's water marks above the path's buffer. */
class OutboundWindowTest {

    @Test
    void unwritableAboveThePathPlusTheHighMark_writableAgainBelowThePathPlusTheLowMark() {
        // Path 100 bytes, marks 20 / 40: unwritable past 140 queued, writable again under 120.
        OutboundWindow w = new OutboundWindow(100, 20, 40);
        w.written(0, 10, 50);
        w.written(0, 20, 50);
        assertTrue(w.isWritable(0), "100 queued");
        w.written(0, 30, 50);
        assertFalse(w.isWritable(0), "150 queued > 140");
        assertEquals(10, w.writableAtNanos(0), "at 10 the first frame has crossed: 100 < 120");
        assertFalse(w.isWritable(9));
        assertTrue(w.isWritable(10));
        assertEquals(100, w.queuedBytes());
    }

    @Test
    void hysteresis_betweenTheMarks_staysAsItWas() {
        OutboundWindow w = new OutboundWindow(0, 20, 40);
        w.written(0, 10, 30);
        w.written(0, 20, 20);
        assertFalse(w.isWritable(0), "50 > 40");
        w.written(0, 30, 0);
        // At 10, 20 queued: not under the low mark 20, still unwritable.
        assertFalse(w.isWritable(10));
        assertEquals(20, w.writableAtNanos(10));
        assertTrue(w.isWritable(20));
        w.written(20, 40, 30);
        assertTrue(w.isWritable(20), "30 queued is below the high mark again: writable stays writable");
    }

    @Test
    void badMarks_areRefused() {
        assertThrows(IllegalArgumentException.class, () -> new OutboundWindow(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new OutboundWindow(0, 10, 5));
    }
}
