package dev.khameleon.simulator;

import dev.khameleon.testing.SharedData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceLoader;
import dev.khameleon.core.spi.GridLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Request modes and trace kinds on real Balabit segments (skipped when the data is absent). */
class BalabitRequestModesTest {

    private static PointerTrace segment(String session) {
        String path = SharedData.require("pointer/balabit/" + session).toString();
        return TraceLoader.load(List.of(path + "#0"), TraceLoader.Format.BALABIT, 1, 20_000, 2000).get(0);
    }

    private static GridLayout mosaic(PointerTrace t) {
        return Workload.mosaic(100, 100, t.screenWidth(), t.screenHeight());
    }

    @Test
    void traceKind_comesFromTheMeasuredSampleInterval() {
        PointerTrace user7 = segment("user7/session_0041905381.gz");
        PointerTrace user12 = segment("user12/session_2144641057.gz");
        assertEquals(TraceKind.SIXTY_HZ, TraceKind.of(user7), "median " + user7.medianIntervalMillis());
        assertTrue(user7.medianIntervalMillis() >= 15 && user7.medianIntervalMillis() <= 17,
                "60 Hz: " + user7.medianIntervalMillis());
        assertEquals(TraceKind.COALESCED, TraceKind.of(user12), "median " + user12.medianIntervalMillis());
        assertTrue(user12.medianIntervalMillis() >= 100, "coalesced: " + user12.medianIntervalMillis());
    }

    @Test
    void perSample_requestsEveryGridSampleAndNeverInventsAVisit() {
        PointerTrace t = segment("user7/session_0041905381.gz");
        GridLayout layout = mosaic(t);
        Requests sample = Requests.perSample(t, layout, 20, 20);
        Requests visit = Requests.perVisit(t, layout);
        // The mosaic covers the whole screen, so every grid time is a request.
        assertEquals((int) Math.ceil(t.durationMillis() / 20) + 1, sample.size());
        assertTrue(visit.size() < sample.size(), visit.size() + " visits vs " + sample.size() + " samples");
        // Collapsing repeats of the per-sample requests gives the visits minus those shorter
        // than one grid step, in order: a subsequence of the per-visit requests.
        int v = 0;
        int previous = -1;
        int collapsed = 0;
        for (int k = 0; k < sample.size(); k++) {
            if (sample.id(k) == previous) {
                continue;
            }
            previous = sample.id(k);
            collapsed++;
            while (v < visit.size() && visit.id(v) != previous) {
                v++;
            }
            assertTrue(v < visit.size(), "per-sample request " + k + " for " + previous + " is no visit");
            v++;
        }
        assertTrue(collapsed > visit.size() / 2, collapsed + " of " + visit.size() + " visits last >= one step");
    }

    @Test
    void baseline_reportsBothModesOnTheSameSegment() {
        PointerTrace t = segment("user7/session_0041905381.gz");
        SimConfig config = SimConfig.builder().build();
        Metrics sample = Simulator.run(config, t, "baseline").metrics();
        Metrics visit = Simulator.run(config.toBuilder().requestMode(RequestMode.PER_VISIT).build(), t, "baseline")
                .metrics();
        assertEquals(Requests.perSample(t, mosaic(t), 20, 20).size(), sample.requests());
        assertEquals(Requests.perVisit(t, mosaic(t)).size(), visit.requests());
        for (Metrics m : List.of(sample, visit)) {
            assertTrue(m.hitRateNonPreempted() >= m.hitRate(), m.toString());
            assertTrue(m.p99LatencyMs() >= m.p95LatencyMs() && m.p95LatencyMs() >= m.p50LatencyMs(), m.toString());
            assertTrue(m.staleHoverRate() > 0 && m.staleHoverRate() < 1, "stale " + m.staleHoverRate());
        }
    }
}
