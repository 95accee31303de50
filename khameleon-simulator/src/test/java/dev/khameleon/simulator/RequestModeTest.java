package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.spi.GridLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What counts as a request in each {@link RequestMode}, and how repeats are answered. */
class RequestModeTest {
    /** A 1 x 3 mosaic over a 300 x 100 screen: cell k spans x in [100k, 100k + 100). */
    private static final GridLayout ROW = Workload.mosaic(1, 3, 300, 100);

    /**
     * The pointer dwells 100 ms on cell 0 (samples every ~16 ms), 60 ms on cell 1 and rests on
     * cell 2 from 160 ms until the trace ends at 300 ms.
     */
    private static PointerTrace threeCells() {
        double[] t = {0, 16, 33, 50, 66, 83, 100, 116, 133, 150, 160, 300};
        double[] x = {50, 52, 54, 56, 58, 60, 150, 152, 154, 156, 250, 250};
        double[] y = new double[t.length];
        Arrays.fill(y, 50);
        return PointerTrace.of("three-cells", t, x, y, 300, 100);
    }

    @Test
    void perVisit_isOneRequestPerCellEntry() {
        Requests r = Requests.perVisit(threeCells(), ROW);
        assertArrayEquals(new int[] {0, 1, 2}, r.ids());
        assertArrayEquals(new double[] {0, 100, 160}, r.times());
    }

    @Test
    void perSample_isOneRequestPerGridSampleRepeatsIncluded() {
        Requests r = Requests.perSample(threeCells(), ROW, 20, 20);
        // Grid 0, 20, ..., 300: 100 ms on cell 0 -> 5 samples, 60 ms on cell 1 -> 3,
        // 160..300 ms on cell 2 -> 8 (the trace's end is a grid point).
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2}, r.ids());
        assertEquals(300.0, r.timeMillis(15));
        assertEquals(7, r.sample(6), "the request at 120 ms reads the sample at 116 ms");
    }

    @Test
    void perSample_coarserGridGivesFewerRequests() {
        Requests r = Requests.perSample(threeCells(), ROW, 50, 50);
        // Grid 0, 50, ..., 300: cell 0 at 0 and 50, cell 1 at 100 and 150, cell 2 at 200, 250, 300.
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 2}, r.ids());
    }

    @Test
    void perSample_endsAtOrAfterTheLastSampleSoTheFinalPositionIsRequested() {
        double[] t = {0, 30, 45};
        double[] x = {50, 50, 150};
        PointerTrace trace = PointerTrace.of("short", t, x, new double[] {50, 50, 50}, 300, 100);
        Requests r = Requests.perSample(trace, ROW, 20, 20);
        // Grid 0, 20, 40, 60: the move to cell 1 at 45 ms is requested at 60 ms.
        assertArrayEquals(new int[] {0, 0, 0, 1}, r.ids());
    }

    @Test
    void perSample_holdsTheLastPositionInsteadOfInterpolating() {
        // A coalesced recording: the pointer is reported on cell 0, then 110 ms later on cell 2.
        double[] t = {0, 110};
        double[] x = {50, 250};
        PointerTrace trace = PointerTrace.of("jump", t, x, new double[] {50, 50}, 300, 100);
        Requests r = Requests.perSample(trace, ROW, 20, 20);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 2}, r.ids(), "no invented visit to cell 1");
    }

    @Test
    void perSample_withThinkTime_replaysTheSameRequestsAtThatPace() {
        Requests r = Requests.perSample(threeCells(), ROW, 20, 40);
        assertArrayEquals(Requests.perSample(threeCells(), ROW, 20, 20).ids(), r.ids());
        assertEquals(40.0 * 15, r.timeMillis(15));
    }

    @ParameterizedTest
    @ValueSource(strings = {"per-sample", "per-visit"})
    void simulator_registersEveryRequestOfTheMode(String mode) {
        RequestMode m = RequestMode.parse(mode);
        SimConfig config = SimConfig.builder().mosaic(1, 3).requestMode(m).build();
        Metrics metrics = Simulator.run(config, threeCells(), "baseline").metrics();
        assertEquals(m == RequestMode.PER_SAMPLE ? 16 : 3, metrics.requests());
        SimConfig paced = config.toBuilder().thinkTimeMillis(35).build();
        assertEquals(metrics.requests(), Simulator.run(paced, threeCells(), "baseline").metrics().requests(),
                "a think time changes the pace, not the requests");
    }

    @Test
    void sampleMillis_setsTheGrid() {
        SimConfig config = SimConfig.builder().mosaic(1, 3).sampleMillis(50).build();
        assertEquals(7, Simulator.run(config, threeCells(), "baseline").metrics().requests());
        assertThrows(IllegalArgumentException.class, () -> SimConfig.builder().sampleMillis(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RequestMode.parse("per-cell"));
        assertTrue(e.getMessage().contains("per-sample or per-visit"), e.getMessage());
    }

    /**
     * Baseline, per-sample, on a slow trace: cells 0, 1, 2 entered at 0, 2000 and 4000 ms (the
     * trace ends at 4000), 15 MB/s, 100 ms round trip, so each response lands 200 ms after its
     * first request. Repeats while it is in flight wait for it; later repeats hit the LRU cache.
     */
    @Test
    void baselinePerSample_repeatsWaitForTheResponseInFlightThenHit() {
        double[] t = {0, 2000, 4000};
        double[] x = {50, 150, 250};
        PointerTrace slow = PointerTrace.of("slow", t, x, new double[] {50, 50, 50}, 300, 100);
        SimConfig config = SimConfig.builder().profile(Profile.LEGACY_100K).mosaic(1, 3).bandwidthMBps(15).latencyMillis(100)
                .build();
        Metrics m = Simulator.run(config, slow, "baseline").metrics();
        // Grid 0..4000 ms: 100 requests on cell 0, 100 on cell 1, 1 on cell 2.
        assertEquals(201, m.requests());
        // Per cell 0 and 1: requests at 0..180 ms wait (200, 180, ..., 20 ms), the 90 from 200 ms on hit.
        assertEquals(180.0 / 201, m.hitRate(), 1e-12);
        assertEquals(0.0, m.preemptedRate());
        assertEquals(m.hitRate(), m.hitRateNonPreempted(), 1e-12);
        assertEquals((1100 + 1100 + 200) / 201.0, m.meanLatencyMs(), 1e-9);
        assertEquals(0.0, m.p50LatencyMs());
        // Sorted: 180 zeros, then 20, 20, 40, 40, ..., 180, 180, 200, 200, 200.
        assertEquals(120.0, m.p95LatencyMs(), 1e-9, "rank ceil(0.95 * 201) = 191");
        assertEquals(200.0, m.p99LatencyMs(), 1e-9, "rank ceil(0.99 * 201) = 199");
        assertEquals(1800.0 / 2400, m.tailLatencyShare(), 1e-9, "the slowest 11 of 201 hold 1800 of 2400 ms");
        // The pointer hovers 0..4000 ms; cell 0 has no answer for 200 ms, cell 1 for 200 ms.
        assertEquals(400.0 / 4000, m.staleHoverRate(), 1e-9);
        assertEquals(0, m.neverAnswered());
    }

    @ParameterizedTest
    @ValueSource(strings = {"uniform", "khameleon", "ideal-sender"})
    void pushPerSample_repeatsOfAnAnsweredRequestAreHits(String system) {
        // Everything is pushed during the 30 s warm-up (the server's pace climbs from its initial
        // 1 MB/s with the receive-rate reports): every request, repeats included, is a hit through
        // the library's CacheManager, and no hovered cell is ever without an answer.
        SimConfig config = SimConfig.builder().mosaic(10, 10).cacheMB(400).bandwidthMBps(2000).warmupMillis(30_000)
                .build();
        Metrics m = Simulator.run(config, SimulatorTest.sweep(120), system).metrics();
        assertEquals(299, m.requests(), "grid 0..5950 ms every 20 ms: 299 samples for 120 cell entries");
        assertEquals(1.0, m.hitRate(), system);
        assertEquals(0.0, m.meanLatencyMs(), system);
        assertEquals(0.0, m.staleHoverRate(), system);
    }
}
