package dev.khameleon.simulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class DelayLineTest {

    @Test
    void anItemIsDueExactlyTheDelayAfterItWasSent_inOrder() {
        DelayLine<String> line = new DelayLine<>(50);
        line.add("a", 10);
        line.add("b", 10);
        line.add("c", 30);
        assertEquals(60, line.nextDueNanos());
        assertNull(line.pollDue(59));
        assertEquals("a", line.pollDue(60));
        assertEquals("b", line.pollDue(60));
        assertNull(line.pollDue(79));
        assertEquals("c", line.pollDue(80));
        assertEquals(Long.MAX_VALUE, line.nextDueNanos());
    }
}
