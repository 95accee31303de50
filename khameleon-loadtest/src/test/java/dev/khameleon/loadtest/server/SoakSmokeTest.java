package dev.khameleon.loadtest.server;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One short run on 127.0.0.1 (a few sessions, 1 s per phase); asserts structural facts, never timings. */
class SoakSmokeTest {
    @Test
    void run_refusesTheHugeCacheClient_whileHealthySessionsReceiveBlocks() throws Exception {
        SoakOptions options = new SoakOptions(3, 1, 0, Set.of(HostileKind.HUGE_CACHE), 3e5, 10_000, 0.05, true);
        SoakReport r = Soak.run(options, false);

        assertTrue(r.baseline().bytes() > 0, "unloaded healthy sessions received nothing");
        assertTrue(r.loaded().bytes() > 0, "loaded healthy sessions received nothing");
        assertEquals(0, r.loaded().healthyClosed());
        HostileCounts huge = r.hostile().get(HostileKind.HUGE_CACHE);
        assertTrue(huge.connections() > 0, huge.toString());
        assertEquals(0, huge.outcome("welcome"), huge.toString());
        assertTrue(huge.outcome("error limit_exceeded") > 0, huge.toString());
        assertTrue(r.serverErrors().getOrDefault("limit_exceeded", 0L) > 0, r.serverErrors().toString());
        assertEquals(0, r.loaded().escapedErrors());
    }

    @Test
    void wideForecastClients_areServed_andTheirStatesAccepted_whileHealthySessionsReceiveBlocks() throws Exception {
        SoakOptions options = new SoakOptions(3, 2, 0, Set.of(HostileKind.WIDE_FORECAST), 3e5, 10_000, 0.05, true);
        SoakReport r = Soak.run(options, false);

        assertTrue(r.loaded().bytes() > 0, "loaded healthy sessions received nothing");
        assertEquals(0, r.loaded().healthyClosed());
        HostileCounts wide = r.hostile().get(HostileKind.WIDE_FORECAST);
        assertTrue(wide.outcome("welcome") > 0, wide.toString());
        // A forecast the grid predictor refused would close its session with invalid_state.
        assertEquals(0, r.serverErrors().getOrDefault("invalid_state", 0L), r.serverErrors().toString());
        assertEquals(0, wide.outcome("error invalid_state"), wide.toString());
        assertEquals(0, r.loaded().escapedErrors());
    }
}
