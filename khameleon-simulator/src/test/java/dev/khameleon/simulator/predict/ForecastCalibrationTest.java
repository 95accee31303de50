package dev.khameleon.simulator.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.GridSize;
import dev.khameleon.simulator.predict.ForecastCalibration.Forecaster;
import dev.khameleon.simulator.predict.ForecastCalibration.GridScoring;
import dev.khameleon.simulator.predict.ForecastCalibration.Instant;
import dev.khameleon.simulator.predict.ForecastCalibration.Kind;
import dev.khameleon.simulator.predict.ForecastCalibration.State;
import dev.khameleon.simulator.predict.ForecastCalibration.Summary;
import dev.khameleon.simulator.predict.ForecastCalibration.TraceCalibration;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ForecastCalibrationTest {
    private static final double EPS = 1e-12;
    private static final double R2 = Math.sqrt(2);

    /**
     * Forecasts that the pointer stays at the last sample fed, with a fixed covariance per
     * horizon {10, 20, 40} ms: [[5,4],[4,5]] (axes 3 and 1 along (1,1) and (1,−1)), 16·I, 4·I.
     */
    static final class StayPut implements Forecaster {
        final List<Long> fedTimes = new ArrayList<>();
        private PointerEvent last;

        @Override
        public void onEvent(PointerEvent event) {
            fedTimes.add(event.timeMillis());
            last = event;
        }

        @Override
        public Optional<PointerForecast> forecast(long nowMillis) {
            if (last == null) {
                return Optional.empty();
            }
            assertTrue(last.timeMillis() <= nowMillis, "a sample from after now was fed");
            return Optional.of(new PointerForecast(last.x(), last.y(), List.of(
                    new GaussianAtHorizon(10, last.x(), last.y(), 5, 4, 5),
                    new GaussianAtHorizon(20, last.x(), last.y(), 16, 0, 16),
                    new GaussianAtHorizon(40, last.x(), last.y(), 4, 0, 4))));
        }

        @Override
        public long[] horizonsMillis() {
            return new long[] {10, 20, 40};
        }
    }

    /**
     * Every 10 ms from 0 to 200 ms the pointer moves by (+1, −1) px, then stops at (120, 280);
     * one last sample there at 400 ms ends the trace.
     */
    private static PointerTrace strokeThenStop() {
        int n = 22;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < 21; i++) {
            t[i] = 10 * i;
            x[i] = 100 + i;
            y[i] = 300 - i;
        }
        t[21] = 400;
        x[21] = 120;
        y[21] = 280;
        return PointerTrace.of("stroke", t, x, y, 1920, 1080);
    }

    private static Summary find(List<Summary> all, State state, long horizon) {
        return all.stream().filter(s -> s.state() == state && s.horizonMillis() == horizon).findFirst().orElseThrow();
    }

    @Test
    void evaluate_strokeThenStop_matchesHandComputedErrorsSigmasAndCoverage() {
        // Grid 0, 20, …, 360 (400 − 40): 19 instants. The forecast mean lags the truth by the
        // motion during the horizon: (1, −1) px per 10 ms while the stroke lasts, 0 after it.
        TraceCalibration c = ForecastCalibration.evaluate(strokeThenStop(), new StayPut(), 20, 100);
        assertEquals(19, c.instants().size());
        List<Summary> s = ForecastCalibration.summaries(List.of(c), false);

        // 10 ms: offset (1,−1) at 0..180 (10 instants), 0 after (9). Along the short axis (σ=1):
        // d² = |(1,−1)|²/1 = 2, outside 1σ, inside 2σ. σ = det^¼ = 9^¼ = √3.
        Summary h10 = find(s, State.ALL, 10);
        assertEquals(19, h10.count());
        assertEquals(R2, h10.medianErrorPx(), EPS);
        assertEquals(R2, h10.p90ErrorPx(), EPS);
        assertEquals(Math.sqrt(3), h10.medianSigmaPx(), EPS);
        assertEquals(9.0 / 19, h10.coverage1Sigma(), EPS);
        assertEquals(1.0, h10.coverage2Sigma(), EPS);

        // 20 ms: offset (2,−2) at 0..180, d² = 8/16 = 0.5: all inside 1σ.
        Summary h20 = find(s, State.ALL, 20);
        assertEquals(2 * R2, h20.medianErrorPx(), EPS);
        assertEquals(4, h20.medianSigmaPx(), EPS);
        assertEquals(1.0, h20.coverage1Sigma(), EPS);

        // 40 ms: (4,−4) at 0..160 (9 instants, d² = 8), (2,−2) at 180 (d² = 2), 0 at 200..360 (9).
        // Sorted errors: 9 × 0, 2√2, 9 × 4√2 → nearest-rank median (10th) 2√2, p90 (18th) 4√2.
        Summary h40 = find(s, State.ALL, 40);
        assertEquals(2 * R2, h40.medianErrorPx(), EPS);
        assertEquals(4 * R2, h40.p90ErrorPx(), EPS);
        assertEquals(2, h40.medianSigmaPx(), EPS);
        assertEquals(9.0 / 19, h40.coverage1Sigma(), EPS);
        assertEquals(10.0 / 19, h40.coverage2Sigma(), EPS);

        // The last sample before 400 is at 200: moving up to 300 (16 instants), at rest at 320..360.
        Summary rest = find(s, State.AT_REST, 40);
        assertEquals(3, rest.count());
        assertEquals(0, rest.p90ErrorPx());
        assertEquals(1.0, rest.coverage1Sigma());
        Summary moving = find(s, State.MOVING, 40);
        assertEquals(16, moving.count());
        assertEquals(6.0 / 16, moving.coverage1Sigma(), EPS);
        assertEquals(7.0 / 16, moving.coverage2Sigma(), EPS);
        assertEquals(4 * R2, moving.medianErrorPx(), EPS);
        assertEquals(3, c.atRest());
    }

    @Test
    void evaluate_restThreshold_isAnOption() {
        TraceCalibration c = ForecastCalibration.evaluate(strokeThenStop(), new StayPut(), 20, 50);
        // Rest after 50 ms without a sample: 260..360 are at rest.
        assertEquals(6, c.atRest());
    }

    @Test
    void evaluate_kalmanOnAPointerAtRest_hasZeroErrorAndFullCoverage() {
        PointerTrace still = PointerTrace.of("still", new double[] {0, 992}, new double[] {640, 640},
                new double[] {400, 400}, 1920, 1080);
        TraceCalibration c = ForecastCalibration.evaluate(still, Forecaster.of(KalmanPredictor.create()), 20, 100);
        // Grid 0..480 (992 − 500): 25 instants; the only sample before them is at 0, so 0..100 are
        // moving (6) and 120..480 at rest (19).
        assertEquals(25, c.instants().size());
        assertEquals(19, c.atRest());
        for (Summary s : ForecastCalibration.summaries(List.of(c), false)) {
            assertEquals(0, s.p90ErrorPx(), s.toString());
            assertEquals(1.0, s.coverage1Sigma(), s.toString());
            assertEquals(s.state() == State.ALL ? 25 : s.state() == State.MOVING ? 6 : 19, s.count(), s.toString());
        }
    }

    @Test
    void evaluate_feedsEverySampleUpToNowInWholeMilliseconds() {
        PointerTrace t = PointerTrace.of("balabit-like", new double[] {0, 15.6, 31.2, 46.8, 62.4, 78.0},
                new double[] {1, 2, 3, 4, 5, 6}, new double[] {1, 1, 1, 1, 1, 1}, 100, 100);
        StayPut f = new StayPut();
        TraceCalibration c = ForecastCalibration.evaluate(t, f, 20, 100);
        // Grid 0, 20 (78 − 40 = 38): by 20 ms the samples at 0 and 15 were fed, not the one at 31.
        assertEquals(2, c.instants().size());
        assertEquals(List.of(0L, 15L), f.fedTimes);
    }

    @Test
    void evaluate_traceShorterThanLargestHorizon_hasNoInstantsAndNaNSummaries() {
        PointerTrace t = PointerTrace.of("short", new double[] {0, 16, 32}, new double[] {1, 2, 3},
                new double[] {1, 1, 1}, 100, 100);
        TraceCalibration c = ForecastCalibration.evaluate(t, new StayPut(), 20, 100);
        assertEquals(0, c.instants().size());
        Summary s = find(ForecastCalibration.summaries(List.of(c), false), State.ALL, 10);
        assertEquals(0, s.count());
        assertTrue(Double.isNaN(s.medianErrorPx()) && Double.isNaN(s.coverage1Sigma()), s.toString());
    }

    @Test
    void evaluate_rejectsANonPositiveGridStepAndANegativeRestThreshold() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ForecastCalibration.evaluate(strokeThenStop(), new StayPut(), 0, 100));
        assertEquals("--every-ms must be > 0, was 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ForecastCalibration.evaluate(strokeThenStop(), new StayPut(), 20, -1));
        assertEquals("--rest-ms must be >= 0, was -1", e.getMessage());
    }

    private static PointerTrace everyMillis(String name, double... gaps) {
        double[] t = new double[gaps.length + 1];
        for (int i = 0; i < gaps.length; i++) {
            t[i + 1] = t[i] + gaps[i];
        }
        return PointerTrace.of(name, t, new double[t.length], new double[t.length], 100, 100);
    }

    @Test
    void kind_isSixtyHzUpToA25msMedianInterval() {
        assertEquals(Kind.SIXTY_HZ, kindOf(everyMillis("a", 25, 25, 25)));
        assertEquals(Kind.COALESCED, kindOf(everyMillis("b", 26, 26, 26)));
        // The median, not the mean: two long gaps among three short ones.
        TraceCalibration mixed = ForecastCalibration.evaluate(everyMillis("c", 16, 500, 16, 500, 16),
                new StayPut(), 20, 100);
        assertEquals(16, mixed.medianIntervalMillis());
        assertEquals(Kind.SIXTY_HZ, mixed.kind());
        assertEquals(Kind.COALESCED, kindOf(everyMillis("d", 120, 110, 16)));
    }

    private static Kind kindOf(PointerTrace t) {
        return ForecastCalibration.evaluate(t, new StayPut(), 20, 100).kind();
    }

    @Test
    void summaries_poolEveryTraceOfAKindAndListKindsInOrder() {
        TraceCalibration a = ForecastCalibration.evaluate(strokeThenStop(), new StayPut(), 20, 100);
        TraceCalibration slow = ForecastCalibration.evaluate(everyMillis("slow", 120, 120, 120, 120), new StayPut(),
                20, 100);
        List<Summary> s = ForecastCalibration.summaries(List.of(slow, a, a), true);
        // Per kind: 3 states × 3 horizons for "all", then the same for each trace.
        assertEquals(9 * 3 + 9 * 2, s.size());
        assertEquals(Kind.SIXTY_HZ, s.get(0).kind());
        assertEquals("all", s.get(0).scope());
        assertEquals(2 * 19, s.get(0).count());
        assertEquals("stroke", s.get(9).scope());
        assertEquals(19, s.get(9).count());
        Summary coalesced = s.get(27);
        assertEquals(Kind.COALESCED, coalesced.kind());
        // 480 − 40 = 440: 0..440, 23 instants.
        assertEquals(23, coalesced.count());
    }

    // The mass on the true cell. Screens of 1920×1080 px under the default 100×100 mosaic: cells
    // of 19.2 × 10.8 px. A pointer at a cell's centre is 9.6 px from its left and right edges and
    // 5.4 px from its top and bottom.
    private static final double HALF_W = 1920 / 100.0 / 2;
    private static final double HALF_H = 1080 / 100.0 / 2;
    private static final int CELLS = 100 * 100;

    /** The centre of mosaic cell (row, col) on a 1920×1080 screen. */
    private static double[] centre(int row, int col) {
        return new double[] {(col + 0.5) * 2 * HALF_W, (row + 0.5) * 2 * HALF_H};
    }

    /**
     * A lower bound on the mass the server predictor, at the library's defaults, puts on the cell
     * centred on the mean of {@code g}: the Gaussian part has weight at least
     * {@code 1 − DEFAULT_TAIL_WEIGHT} (the tail's weight only fades from there; the default point
     * mass is 0), and by Chebyshev's inequality on each axis (a union bound, whatever the
     * correlation) it puts at least {@code 1 − varX/(w/2)² − varY/(h/2)²} inside the cell.
     */
    private static double restBound(GaussianAtHorizon g) {
        double inside = 1 - g.varX() / (HALF_W * HALF_W) - g.varY() / (HALF_H * HALF_H);
        return (1 - GaussianGridPredictor.DEFAULT_TAIL_WEIGHT) * inside;
    }

    /**
     * A short 60 Hz approach (1 px right every 16 ms, 10 samples) that stops at the centre of cell
     * (37, 33) at 144 ms, then nothing until a last sample there at 3000 ms. The approach teaches
     * the predictor a 16 ms interval, so it takes the pointer to rest about 32 ms after it stops,
     * well before the calibration's 100 ms.
     */
    private static PointerTrace stillPointer() {
        double[] p = centre(37, 33);
        int n = 11;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < 10; i++) {
            t[i] = 16 * i;
            x[i] = p[0] - 9 + i;
            y[i] = p[1];
        }
        t[10] = 3000;
        x[10] = p[0];
        y[10] = p[1];
        return PointerTrace.of("still", t, x, y, 1920, 1080);
    }

    /** The forecast a fresh library Kalman predictor fed {@code trace}'s samples up to {@code now} gives. */
    private static PointerForecast kalmanAt(PointerTrace trace, long now) {
        KalmanPredictor k = KalmanPredictor.create();
        for (int i = 0; i < trace.size() && trace.timeMillis(i) <= now; i++) {
            k.onEvent(new PointerEvent(trace.x(i), trace.y(i), (long) trace.timeMillis(i)));
        }
        return k.forecast(now).orElseThrow();
    }

    @Test
    void mass_pointerAtRest_isAtLeastTheGaussianPartInsideItsCellAndFarAboveUniform() {
        PointerTrace still = stillPointer();
        TraceCalibration c = ForecastCalibration.evaluate(still, Forecaster.of(KalmanPredictor.create()), 20, 100);
        assertEquals(CELLS, c.requestCount());
        int atRest = 0;
        double[] least = {1, 1, 1, 1};
        for (Instant i : c.instants()) {
            if (i.moving()) {
                continue;
            }
            atRest++;
            PointerForecast f = kalmanAt(still, i.nowMillis());
            assertTrue(f.restMillis() > 0, "the predictor, too, has the pointer at rest at " + i.nowMillis());
            for (int j = 0; j < 4; j++) {
                double bound = restBound(f.horizons().get(j));
                assertTrue(bound > 0.5, "a bound worth testing: " + bound);
                assertTrue(i.massTrueCell()[j] >= bound, i.nowMillis() + " ms, horizon " + j + ": "
                        + i.massTrueCell()[j] + " < " + bound);
                assertTrue(i.trueCellExplicit()[j], "the cell under a resting pointer is explicit");
                least[j] = Math.min(least[j], bound);
            }
        }
        assertEquals(c.atRest(), atRest);
        assertTrue(atRest > 50, "instants at rest: " + atRest);
        for (int j = 0; j < 4; j++) {
            Summary s = find(ForecastCalibration.summaries(List.of(c), false), State.AT_REST, c.horizonsMillis()[j]);
            assertEquals(1.0 / CELLS, s.uniformMass(), EPS);
            assertTrue(s.meanMass() >= least[j] && s.medianMass() >= least[j], s.toString());
            assertTrue(s.meanMass() > 1000 * s.uniformMass(), s.toString());
            assertTrue(s.meanLogLikelihood() >= Math.log(least[j]), s.toString());
            assertEquals(1.0, s.trueCellExplicit(), s.toString());
        }
    }

    @Test
    void mass_pointerThatJumpsAcrossTheScreen_isAtMostUniformAtTheHorizonsThatSeeTheJump() {
        // A 60 Hz approach to the centre of cell (9, 5) (1 px right every 16 ms, reached at
        // 144 ms), reported there every 16 ms up to 992 ms, then at 1000 ms at the far corner of
        // the screen, where it stays until 2600 ms.
        double[] a = centre(9, 5);
        List<double[]> samples = new ArrayList<>();
        for (int t = 0; t < 1000; t += 16) {
            samples.add(new double[] {t, a[0] - Math.max(0, 9 - t / 16), a[1]});
        }
        for (int t = 1000; t <= 2600; t += 16) {
            samples.add(new double[] {t, 1900, 1070});
        }
        PointerTrace jump = PointerTrace.of("jump", samples.stream().mapToDouble(v -> v[0]).toArray(),
                samples.stream().mapToDouble(v -> v[1]).toArray(), samples.stream().mapToDouble(v -> v[2]).toArray(),
                1920, 1080);
        TraceCalibration c = ForecastCalibration.evaluate(jump, Forecaster.of(KalmanPredictor.create()), 20, 100);
        long[] h = c.horizonsMillis();
        int seen = 0;
        for (Instant i : c.instants()) {
            long now = i.nowMillis();
            if (now < 200 || now >= 1000) {
                continue;
            }
            PointerForecast f = kalmanAt(jump, now);
            for (int j = 0; j < h.length; j++) {
                double mass = i.massTrueCell()[j];
                if (now + h[j] >= 1000) {
                    // The truth is the far corner, the forecast knows only the start: the corner's
                    // cell gets no more than a share of the residual, less than a uniform guess.
                    seen++;
                    assertFalse(i.trueCellExplicit()[j], now + " ms, horizon " + h[j]);
                    assertTrue(mass <= 1.0 / CELLS, now + " ms, horizon " + h[j] + ": " + mass);
                    assertTrue(ForecastCalibration.logLikelihood(mass) <= Math.log(1.0 / CELLS));
                } else {
                    assertTrue(f.restMillis() > 0, "the predictor has the pointer at rest at " + now);
                    double bound = restBound(f.horizons().get(j));
                    assertTrue(bound > 0.5, "a bound worth testing: " + bound);
                    assertTrue(mass >= bound, now + " ms, horizon " + h[j] + ": " + mass + " < " + bound);
                }
            }
        }
        // Grid instants in [1000 − Δ, 1000): 960, 980 for 50 ms; 860..980 for 150; 760..980 for
        // 250; 500..980 for 500.
        assertEquals(2 + 7 + 12 + 25, seen);
    }

    @Test
    void mass_aWiderSigmaScaleTakesMassOffTheRestingPointersCell() {
        TraceCalibration narrow = ForecastCalibration.evaluate(stillPointer(), Forecaster.of(KalmanPredictor.create()),
                20, 100, new GridScoring(new GridSize(100, 100), 1));
        TraceCalibration wide = ForecastCalibration.evaluate(stillPointer(), Forecaster.of(KalmanPredictor.create()),
                20, 100, new GridScoring(new GridSize(100, 100), 4));
        Summary n = find(ForecastCalibration.summaries(List.of(narrow), false), State.AT_REST, 50);
        Summary w = find(ForecastCalibration.summaries(List.of(wide), false), State.AT_REST, 50);
        assertTrue(w.meanMass() < n.meanMass(), w + " vs " + n);
    }

    @Test
    void mass_theMosaicSetsTheRequestsAndTheUniformReference() {
        TraceCalibration c = ForecastCalibration.evaluate(stillPointer(), Forecaster.of(KalmanPredictor.create()), 20,
                100, new GridScoring(new GridSize(4, 5), 1));
        assertEquals(20, c.requestCount());
        Summary s = find(ForecastCalibration.summaries(List.of(c), false), State.AT_REST, 500);
        assertEquals(1.0 / 20, s.uniformMass(), EPS);
        // The pointer (643.2, 405) in cell (1, 1) of 384 × 270 px, 124.8 px from its nearest
        // vertical edge and 135 px from both horizontal ones. At rest both parts of the mixture
        // have a variance of at most the tail's 20² px per axis (the core's is a few px²), so by
        // Chebyshev each puts at least 1 − 400/124.8² − 400/135² > 0.95 inside the cell.
        assertTrue(s.meanMass() > 0.95, s.toString());
        assertEquals(1.0, s.trueCellExplicit(), s.toString());
    }

    @Test
    void logLikelihood_floorsAMassOf0() {
        assertEquals(Math.log(ForecastCalibration.MIN_MASS), ForecastCalibration.logLikelihood(0), EPS);
        assertEquals(Math.log(0.25), ForecastCalibration.logLikelihood(0.25), EPS);
    }

    @Test
    void gridScoring_rejectsASigmaScaleTheServerPredictorRefuses() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new GridScoring(new GridSize(10, 10), 0));
        assertEquals("sigmaScale must be in (0, 4], was 0.0", e.getMessage());
    }
}
