package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageMeasurementsTest {
    private static Map<String, Object> run(List<Integer> within, List<Integer> switches, List<Integer> exact,
            int superseded, int notExact, int unanswered) {
        return Map.of("within", within, "switches", switches, "exact", exact, "superseded", superseded,
                "notExact", notExact, "unanswered", unanswered, "atOnce", within.size());
    }

    @Test
    void percentilesPoolEveryInteractionOfEveryPage_nearestRank() {
        PageMeasurements m = new PageMeasurements();
        // Two pages: first bars 1..100 ms in all; exact for 60 of them.
        List<Integer> a = IntStream.rangeClosed(1, 50).boxed().toList();
        List<Integer> b = IntStream.rangeClosed(51, 100).boxed().toList();
        m.add(run(a.subList(0, 40), a.subList(40, 50), IntStream.rangeClosed(1, 30).map(x -> 10 * x).boxed().toList(),
                15, 5, 0));
        m.add(run(b, List.of(), IntStream.rangeClosed(301, 330).map(x -> 10 * x).boxed().toList(), 20, 0, 2));
        assertEquals(102, m.interactions(), "answered or not");
        assertEquals(50, m.firstBars(0.50));
        assertEquals(95, m.firstBars(0.95));
        assertEquals(99, m.firstBars(0.99));
        assertEquals(300, m.exactBars(0.50)); // 60 values 10..300, 3010..3300: the 30th
        assertEquals(3270, m.exactBars(0.95)); // the 57th
        assertEquals(3300, m.exactBars(0.99)); // the 60th
        assertEquals(102 - 60, m.neverExact(), "superseded, not exact at the end, unanswered: none dropped");
        assertEquals(35, m.superseded());
        assertEquals(2, m.unanswered());
        assertEquals(2.0, m.queriesPerInteraction(204));
        assertTrue(m.row("on demand", 2, 204).startsWith("| on demand | 2 | 102 | 88.2 % | 50 | 95 | 99 | 300 | 3,270"
                + " | 3,300 | 41.2 % (35) | 2 | 2.00 |"), m.row("on demand", 2, 204));
    }

    @Test
    void nothingMeasuredIsNaN_andARunThatLosesInteractionsIsRefused() {
        PageMeasurements m = new PageMeasurements();
        assertTrue(Double.isNaN(m.firstBars(0.5)));
        assertTrue(Double.isNaN(m.exactBars(0.99)));
        assertTrue(Double.isNaN(m.queriesPerInteraction(10)));
        assertThrows(IllegalArgumentException.class, () -> m.add(run(List.of(1, 2, 3), List.of(), List.of(5), 1, 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> m.add(Map.of("within", List.of())));
        assertEquals(0, m.interactions(), "a refused run adds nothing");
    }
}
