package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.trace.PointerTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Strokes} and the {@code stroke-end-oracle-W[-E[-S]]} systems built on them. */
class StrokeEndOracleTest {

    /** Samples every 20 ms to 2,000 ms; the pointer moves 10 px a sample in [300, 600] and [1000, 1400] ms. */
    private static PointerTrace twoStrokes() {
        int n = 101;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        double pos = 0;
        for (int i = 0; i < n; i++) {
            t[i] = i * 20;
            if ((t[i] >= 300 && t[i] <= 600) || (t[i] >= 1000 && t[i] <= 1400)) {
                pos += 10;
            }
            x[i] = pos;
        }
        return PointerTrace.of("two", t, x, y, 2000, 1000);
    }

    @Test
    void strokes_areRunsOfMovingSamplesSplitByTheRestGap() {
        PointerTrace trace = twoStrokes();
        Strokes s = Strokes.of(trace, 100);
        assertEquals(2, s.count());
        assertEquals(300, s.startMillis(0), 1e-9);
        assertEquals(600, s.endMillis(0), 1e-9);
        assertEquals(1000, s.startMillis(1), 1e-9);
        assertEquals(1400, s.endMillis(1), 1e-9);
        assertEquals(1400, trace.timeMillis(s.endIndex(1)), 1e-9);
        assertEquals(-1, s.lastStartedBy(299));
        assertEquals(0, s.lastStartedBy(300));
        assertEquals(0, s.lastStartedBy(999));
        assertEquals(1, s.lastStartedBy(5000));
        // A rest gap longer than the 400 ms pause makes one stroke of both.
        assertEquals(1, Strokes.of(trace, 500).count());
        assertThrows(IllegalArgumentException.class, () -> Strokes.of(trace, -1));
    }

    @Test
    void knowingWhereStrokesEnd_cutsTheLatencyAtTheirEnds() {
        // On a real trace (the gallery demo's 10 s recording): the same run with the states of
        // each stroke's last 150 ms replaced by its final cell waits less at stroke ends.
        PointerTrace trace = SimulatorTest.galleryTrace();
        SimConfig config = SimConfig.builder().build();
        Simulator.Result plain = Simulator.run(config, trace, "ideal-sender");
        Simulator.Result told = Simulator.run(config, trace, "stroke-end-oracle-150");
        assertEquals("stroke-end-oracle-150", told.system());
        double plainEnd = strokeEnds(plain);
        double toldEnd = strokeEnds(told);
        assertTrue(toldEnd < plainEnd, "stroke ends: " + toldEnd + " ms with the stroke-end oracle, " + plainEnd
                + " ms without");
        assertTrue(told.metrics().meanLatencyMs() < plain.metrics().meanLatencyMs());
    }

    @Test
    void anEndTold200PxOff_isWorthLessThanTheExactEnd() {
        // The same trace: a forecast four cells or more off the stop point waits longer at stroke ends.
        PointerTrace trace = SimulatorTest.galleryTrace();
        SimConfig config = SimConfig.builder().build();
        Simulator.Result exact = Simulator.run(config, trace, "stroke-end-oracle-150");
        Simulator.Result off = Simulator.run(config, trace,
                SystemRegistry.strokeEndOracle("told-200-px-off", 150, 200, 100));
        assertEquals("told-200-px-off", off.system());
        double exactEnd = strokeEnds(exact);
        double offEnd = strokeEnds(off);
        assertTrue(offEnd > exactEnd, "stroke ends: " + offEnd + " ms told 200 px off, " + exactEnd + " ms exactly");
    }

    @ParameterizedTest
    @ValueSource(strings = {"stroke-end-oracle-0", "stroke-end-oracle-10001", "stroke-end-oracle-", "stroke-end-oracle-x"})
    void registry_refusesAnUnregisteredProbeName(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SystemRegistry.create(name));
        assertTrue(e.getMessage().startsWith("unknown system " + name + ";"), e.getMessage());
    }

    /** What the approach and landing phases add to the run's mean latency, ms. */
    private static double strokeEnds(Simulator.Result r) {
        return r.byPhase().contributionMillis(PointerPhase.APPROACH) + r.byPhase().contributionMillis(PointerPhase.LANDING);
    }
}
