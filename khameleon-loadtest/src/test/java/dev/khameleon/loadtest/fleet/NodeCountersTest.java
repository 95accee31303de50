package dev.khameleon.loadtest.fleet;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A node's stats line, its difference over a window, the rates made of it and the proxy configuration. */
class NodeCountersTest {
    @Test
    void formatThenParse_givesTheSameCounters() {
        NodeCounters c = new NodeCounters(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
        assertEquals(c, NodeCounters.parse(c.format()));
    }

    @Test
    void parse_refusesOtherLines() {
        assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("port 8080"));
        assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("stats 1 2 3"));
        assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("stats 1 2 3 4 5 6 7 8 9 10 11 12 13 x"));
    }

    @Test
    void minusThenRates_perSecondOverTheWindow_keepingTheLaterSessions() {
        NodeCounters before = new NodeCounters(1_000_000_000L, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 5, 1, 7);
        NodeCounters after = new NodeCounters(3_000_000_000L, 1_000_000_000L, 400_000, 200, 220, 120, 10, 4, 4, 0, 0, 11, 3, 2);
        NodeCounters d = after.minus(before);
        assertEquals(2, d.repeatable(), "a difference");
        assertEquals(2, d.pending(), "a level: the later reading's");
        FleetModel.FleetRates r = FleetRig.rates(d);
        assertEquals(new FleetModel.FleetRates(1, 4, 0.5, 200_000, 110, 60, 5, 2, 3), r);
    }
}
