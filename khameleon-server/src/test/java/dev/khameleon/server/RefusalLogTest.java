package dev.khameleon.server;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Refusal lines: client text cannot forge lines, and a flood is cut to a rate with a suppressed count. */
class RefusalLogTest {
    private long now;
    private final List<String> lines = new ArrayList<>();
    private final RefusalLog log = new RefusalLog(() -> now, (level, line) -> lines.add(level + " " + line));

    /** Regression: a 404 path or an application name with CR/LF forged log lines. */
    @Test
    void clientText_cannotBreakTheLine() {
        log.log(Level.INFO, "refused connection from /1.2.3.4:5", "not_found",
                "no application at /x\r\n12:00:00 INFO forged\u2028line\u202e\u0000");
        assertEquals(1, lines.size());
        String line = lines.get(0);
        assertFalse(line.chars().anyMatch(c -> c < 0x20 || c == 0x2028 || c == 0x202e), line);
        assertTrue(line.startsWith("INFO refused connection from /1.2.3.4:5: not_found: no application at /x??12:00"),
                line);
    }

    @Test
    void longClientText_isCut() {
        String clean = LogText.clean("a".repeat(10_000));
        assertEquals(LogText.MAX_CHARS + 1, clean.length());
        assertTrue(clean.endsWith("…"));
    }

    @Test
    void flood_isLimitedPerSecondAndTheSuppressedCountIsReported() {
        for (int i = 0; i < 1_000; i++) {
            log.log(Level.INFO, "refused", "too_many_connections", "#" + i);
        }
        assertEquals(RefusalLog.LINES_PER_SECOND, lines.size());
        now += TimeUnit.SECONDS.toNanos(1);
        log.log(Level.INFO, "refused", "too_many_connections", "next");
        assertEquals(RefusalLog.LINES_PER_SECOND + 1, lines.size());
        String last = lines.get(lines.size() - 1);
        assertTrue(last.endsWith("next (" + (1_000 - RefusalLog.LINES_PER_SECOND) + " similar lines suppressed)"), last);
    }
}
