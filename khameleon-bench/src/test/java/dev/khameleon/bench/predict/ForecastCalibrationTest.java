package dev.khameleon.bench.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.bench.predict.ForecastCalibration.Forecaster;
import dev.khameleon.bench.predict.ForecastCalibration.Kind;
import dev.khameleon.bench.predict.ForecastCalibration.State;
import dev.khameleon.bench.predict.ForecastCalibration.Summary;
import dev.khameleon.bench.predict.ForecastCalibration.TraceCalibration;
import dev.khameleon.bench.sim.trace.PointerTrace;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
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
}
