package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.khameleon.simulator.trace.PointerTrace;
import org.junit.jupiter.api.Test;

class PointerPhaseTest {

    /**
     * Samples every {@code stepMillis} from 0 to 2000 ms; the pointer moves 10 px per sample
     * from {@code fromMillis} to {@code toMillis} (inclusive) and is still otherwise.
     */
    private static PointerTrace stroke(double stepMillis, double fromMillis, double toMillis) {
        int n = (int) (2000 / stepMillis) + 1;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        double pos = 0;
        for (int i = 0; i < n; i++) {
            t[i] = i * stepMillis;
            if (t[i] >= fromMillis && t[i] <= toMillis) {
                pos += 10;
            }
            x[i] = pos;
        }
        return PointerTrace.of("stroke", t, x, y, 1000, 1000);
    }

    @Test
    void classify_namesEachPhaseOfOneStroke() {
        // Moving samples at 500, 520, ..., 1000 ms: one stroke from 500 to 1000 ms.
        PointerTrace trace = stroke(20, 500, 1000);
        double[] times = {0, 499, 500, 649, 650, 850, 851, 1000, 1001, 1149, 1150, 2000};
        PointerPhase[] expected = {PointerPhase.REST, PointerPhase.REST, PointerPhase.ONSET, PointerPhase.ONSET,
            PointerPhase.MID_STROKE, PointerPhase.MID_STROKE, PointerPhase.APPROACH, PointerPhase.APPROACH,
            PointerPhase.LANDING, PointerPhase.LANDING, PointerPhase.REST, PointerPhase.REST};
        assertArrayEquals(expected, PointerPhase.classify(trace, times));
    }

    @Test
    void classify_aGapLongerThanTheRestGapStartsANewStroke() {
        // Still samples between 600 and 800 ms: with a 100 ms rest gap the stroke ends at 600 ms
        // and a new one starts at 820 ms.
        PointerTrace first = stroke(20, 500, 600);
        double[] t = new double[first.size()];
        double[] x = new double[first.size()];
        double[] y = new double[first.size()];
        double extra = 0;
        for (int i = 0; i < first.size(); i++) {
            t[i] = first.timeMillis(i);
            if (t[i] >= 820 && t[i] <= 1200) {
                extra += 10;
            }
            x[i] = first.x(i) + extra;
        }
        PointerTrace trace = PointerTrace.of("two", t, x, y, 1000, 1000);
        assertArrayEquals(new PointerPhase[] {PointerPhase.LANDING, PointerPhase.ONSET, PointerPhase.MID_STROKE},
                PointerPhase.classify(trace, new double[] {700, 820, 1000}, 100, 150));
        // A rest gap longer than the pause joins the two into one stroke.
        assertArrayEquals(new PointerPhase[] {PointerPhase.MID_STROKE, PointerPhase.MID_STROKE},
                PointerPhase.classify(trace, new double[] {700, 820}, 300, 150));
    }

    @Test
    void classify_aBatchingTraceStaysInOneStrokeBetweenItsJumps() {
        // A jump every 110 ms: the median interval is 110 ms, so the rest gap is 220 ms and the
        // 110 ms between two jumps is not a rest.
        PointerTrace trace = stroke(110, 330, 1100);
        assertEquals(PointerPhase.MID_STROKE, PointerPhase.classify(trace, new double[] {600})[0]);
        assertEquals(PointerPhase.LANDING, PointerPhase.classify(trace, new double[] {1120})[0]);
    }

    @Test
    void classify_rejectsANegativeWindow() {
        PointerTrace trace = stroke(20, 500, 1000);
        assertThrows(IllegalArgumentException.class,
                () -> PointerPhase.classify(trace, new double[] {0}, 100, -1));
    }

    @Test
    void phaseLatency_contributionsAddUpToTheMeanAndSkipPreempted() {
        PointerPhase[] phases = {PointerPhase.ONSET, PointerPhase.REST, PointerPhase.REST, PointerPhase.LANDING};
        PhaseLatency p = PhaseLatency.of(phases, new double[] {30, 0, Double.NaN, 90});
        assertEquals(1, p.requests(PointerPhase.REST));
        assertEquals(90, p.meanMillis(PointerPhase.LANDING), 1e-12);
        assertEquals(Double.NaN, p.meanMillis(PointerPhase.MID_STROKE));
        double sum = 0;
        for (PointerPhase phase : PointerPhase.values()) {
            sum += p.contributionMillis(phase);
        }
        assertEquals(40, sum, 1e-12);
        assertThrows(IllegalArgumentException.class, () -> PhaseLatency.of(phases, new double[] {1}));
    }

    @Test
    void simulator_phaseContributionsAddUpToTheRunsMeanLatency() {
        for (RequestMode mode : RequestMode.values()) {
            Simulator.Result r = Simulator.run(SimConfig.builder().requestMode(mode).build(),
                    SimulatorTest.sweep(120), "khameleon");
            double sum = 0;
            int counted = 0;
            for (PointerPhase phase : PointerPhase.values()) {
                sum += r.byPhase().contributionMillis(phase);
                counted += r.byPhase().requests(phase);
            }
            Metrics m = r.metrics();
            assertEquals(m.meanLatencyMs(), sum, 1e-9, mode.label());
            assertEquals(Math.round(m.requests() * (1 - m.preemptedRate())), counted, mode.label());
        }
    }
}
