package dev.khameleon.loadtest.server;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one kind of hostile client saw during a phase.
 *
 * @param connections upgraded WebSocket connections
 * @param refused     connections closed or refused before the upgrade (per-address limits)
 * @param dropped     connections that failed with an I/O error after the upgrade without a close frame
 *                    read (the clients that never read cannot see one)
 * @param outcomes    what the server answered, e.g. {@code "error limit_exceeded"}, {@code "close 1008"},
 *                    {@code "welcome"}, with counts
 */
record HostileCounts(long connections, long refused, long dropped, SortedMap<String, Long> outcomes) {
    HostileCounts {
        outcomes = new TreeMap<>(outcomes);
    }

    /** How often the server answered {@code outcome}; 0 if never. */
    long outcome(String outcome) {
        return outcomes.getOrDefault(outcome, 0L);
    }

    /** The outcomes as {@code "name ×count"} joined by commas, or a dash. */
    String outcomesText() {
        if (outcomes.isEmpty()) {
            return "–";
        }
        StringBuilder s = new StringBuilder();
        for (Map.Entry<String, Long> e : outcomes.entrySet()) {
            if (s.length() > 0) {
                s.append(", ");
            }
            s.append(e.getKey()).append(" ×").append(e.getValue());
        }
        return s.toString();
    }
}
