package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link StrokeEndForecast}: where a stroke ends, exactly or with a given error, and its mixture. */
class StrokeEndForecastTest {
    private static final long[] HORIZONS = {50, 150, 250, 500};
    /** 2 px cells on a 1000 x 1000 screen: small beside the errors tested. */
    private static final double CELL = 2;
    private static final GridLayout GRID = new GridLayout(500, 500, 0, 0, CELL, CELL);

    /**
     * {@code strokes} strokes along y = 500, one a second, each moving 10 px a 20 ms sample from 120
     * to 400 ms into its second: right from x = 300 to 450, then back, and so on.
     */
    private static PointerTrace strokes(int strokes) {
        int perStroke = 50;
        int n = strokes * perStroke;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        for (int k = 0; k < strokes; k++) {
            for (int i = 0; i < perStroke; i++) {
                int s = k * perStroke + i;
                double travelled = 10 * Math.min(15, Math.max(0, i - 5));
                t[s] = k * 1000.0 + i * 20;
                x[s] = k % 2 == 0 ? 300 + travelled : 450 - travelled;
                y[s] = 500;
            }
        }
        return PointerTrace.of("strokes", t, x, y, 1000, 1000);
    }

    /** Where stroke {@code k} stops. */
    private static double endX(int k) {
        return k % 2 == 0 ? 450 : 300;
    }

    /** Each stroke's last moving sample, ms into its second. */
    private static final double FIRST_END_MILLIS = 400;

    @Test
    void exact_isThePointOnTheEndCell_onlyInTheWindow() {
        StrokeEndForecast f = new StrokeEndForecast(strokes(3), GRID, 150, 0, 1, 7);
        int endCell = GRID.requestAt(450, 500);
        Distribution d = f.endAt(FIRST_END_MILLIS - 100, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            assertEquals(1.0, d.probability(j, endCell), 1e-12);
        }
        assertNull(f.endAt(FIRST_END_MILLIS - 151, HORIZONS), "before the window");
        assertNull(f.endAt(FIRST_END_MILLIS + 1, HORIZONS), "after the stroke's last moving sample");
        assertNull(f.endAt(10, HORIZONS), "before the first stroke");
    }

    @Test
    void withAnError_isOneOffsetPerStroke_keptThroughTheStroke_andDeterministic() {
        PointerTrace trace = strokes(3);
        StrokeEndForecast f = new StrokeEndForecast(trace, GRID, 150, 20, 1, 7);
        Distribution early = f.endAt(FIRST_END_MILLIS - 140, HORIZONS);
        Distribution late = f.endAt(FIRST_END_MILLIS - 10, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            assertEquals(1.0, early.totalMass(j), 1e-9);
        }
        assertEquals(mean(early, 0)[0], mean(late, 0)[0], 1e-12);
        assertEquals(mean(early, 0)[1], mean(late, 0)[1], 1e-12);
        Distribution again = new StrokeEndForecast(trace, GRID, 150, 20, 1, 7).endAt(FIRST_END_MILLIS - 10, HORIZONS);
        assertEquals(mean(late, 0)[0], mean(again, 0)[0], 1e-12);
        Distribution otherSeed = new StrokeEndForecast(trace, GRID, 150, 20, 1, 8).endAt(FIRST_END_MILLIS - 10, HORIZONS);
        assertNotEquals(mean(late, 0)[0], mean(otherSeed, 0)[0]);
        Distribution secondStroke = f.endAt(1000 + FIRST_END_MILLIS - 10, HORIZONS);
        assertNotEquals(mean(late, 0)[0] - endX(0), mean(secondStroke, 0)[0] - endX(1), "each stroke its own offset");
    }

    @Test
    void withAnError_isOffByThatErrorOnAverage_andSpreadAsWideAsIt() {
        // 300 strokes: the offsets' root mean square per axis and the forecasts' spread are both E.
        int strokes = 300;
        double error = 12;
        StrokeEndForecast f = new StrokeEndForecast(strokes(strokes), GRID, 150, error, 1, 42);
        double sumSq = 0;
        double spread = 0;
        for (int k = 0; k < strokes; k++) {
            Distribution d = f.endAt(k * 1000 + FIRST_END_MILLIS - 50, HORIZONS);
            double[] m = mean(d, 2);
            sumSq += Math.pow(m[0] - endX(k), 2) + Math.pow(m[1] - 500, 2);
            spread += m[2];
        }
        double rmsPerAxis = Math.sqrt(sumSq / (2 * strokes));
        assertEquals(error, rmsPerAxis, 0.1 * error, "rms offset per axis");
        // A cell's width adds its own spread (w^2 / 12) to the Gaussian's.
        assertEquals(Math.sqrt(error * error + CELL * CELL / 12), spread / strokes, 0.02 * error,
                "the forecast's own standard deviation per axis");
    }

    @Test
    void mix_splitsTheMassHorizonByHorizon() {
        int n = GRID.requestCount();
        Distribution end = Distribution.point(n, 5, HORIZONS);
        Distribution library = Distribution.builder(n, HORIZONS)
                .explicit(0, 5, 0.5).explicit(0, 6, 0.5)
                .explicit(1, 7, 1.0).explicit(2, 7, 1.0).residual(3, 1.0).build();
        Distribution m = StrokeEndForecast.mix(end, library, 0.25);
        assertEquals(0.25 + 0.75 * 0.5, m.probability(0, 5), 1e-12);
        assertEquals(0.75 * 0.5, m.probability(0, 6), 1e-12);
        assertEquals(0.25, m.probability(1, 5), 1e-12);
        assertEquals(0.75, m.probability(1, 7), 1e-12);
        assertEquals(0.75, m.residualMass(3), 1e-12);
        for (int j = 0; j < HORIZONS.length; j++) {
            assertEquals(1.0, m.totalMass(j), 1e-9);
        }
        Distribution fewer = Distribution.point(n, 5, 50, 150);
        assertThrows(IllegalArgumentException.class, () -> StrokeEndForecast.mix(fewer, library, 0.5));
    }

    @Test
    void rejectsAnEmptyWindow_aNegativeError_andAShareOutsideZeroToOne() {
        PointerTrace trace = strokes(1);
        assertThrows(IllegalArgumentException.class, () -> new StrokeEndForecast(trace, GRID, 0, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new StrokeEndForecast(trace, GRID, 150, -1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new StrokeEndForecast(trace, GRID, 150, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new StrokeEndForecast(trace, GRID, 150, 0, 1.5, 1));
    }

    @Test
    void registry_namesAnErrorAndAShare() {
        assertEquals("stroke-end-oracle-150-10-50", Simulator.run(SimConfig.builder().build(), strokes(4),
                "stroke-end-oracle-150-10-50").system());
    }

    @ParameterizedTest
    @CsvSource({"150, 1001, 100, the error must be 0 to 1000 px", "150, -5, 100, the error must be 0 to 1000 px",
            "150, 10, 0, the share must be 1 to 100 %", "150, 10, 101, the share must be 1 to 100 %",
            "0, 0, 100, the window must be 1 to 10000 ms", "10001, 0, 100, the window must be 1 to 10000 ms"})
    void strokeEndOracle_refusesABadWindowErrorOrShare(int windowMs, int errorPx, int share, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SystemRegistry.strokeEndOracle("probe", windowMs, errorPx, share));
        assertTrue(e.getMessage().startsWith("system probe: " + message), e.getMessage());
    }

    @Test
    void registry_holdsTheDocumentedProbeGridAndNoOther() {
        List<String> probes = SystemRegistry.all().stream().filter(s -> s.group() == SystemSpec.Group.PROBE)
                .map(SystemSpec::name).toList();
        assertEquals(21, probes.size(), probes.toString());
        for (String name : List.of("stroke-end-oracle-150", "stroke-end-oracle-75-0", "stroke-end-oracle-300-40",
                "stroke-end-oracle-150-0-50", "stroke-end-oracle-150-40-50")) {
            assertTrue(probes.contains(name), name + " in " + probes);
        }
        assertThrows(IllegalArgumentException.class, () -> SystemRegistry.create("stroke-end-oracle-150-200"));
    }

    /** The probability-weighted mean x and y of horizon {@code j}'s explicit cells, and the spread per axis. */
    private static double[] mean(Distribution d, int j) {
        double x = 0;
        double y = 0;
        double xx = 0;
        double yy = 0;
        for (int i = 0; i < d.explicitCount(j); i++) {
            int id = d.explicitId(j, i);
            double p = d.explicitProbability(j, i);
            double cx = (id % GRID.cols() + 0.5) * CELL;
            double cy = (id / GRID.cols() + 0.5) * CELL;
            x += p * cx;
            y += p * cy;
            xx += p * cx * cx;
            yy += p * cy * cy;
        }
        double sd = Math.sqrt(((xx - x * x) + (yy - y * y)) / 2);
        return new double[] {x, y, sd};
    }
}
