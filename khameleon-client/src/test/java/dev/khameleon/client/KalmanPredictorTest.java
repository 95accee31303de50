package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.PointerForecast;
import org.junit.jupiter.api.Test;

import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KalmanPredictorTest {
    private static final long STEP = 16;

    /** Mean forecast error at horizon index {@code j} over events {@code [from, to)} of a path. */
    private static double meanError(KalmanPredictor k, LongFunction<double[]> path, int from, int to, int j,
                                    long[] horizons) {
        double sum = 0;
        for (int i = 0; i < to; i++) {
            long t = i * STEP;
            double[] pos = path.apply(t);
            k.onEvent(new PointerEvent(pos[0], pos[1], t));
            if (i >= from) {
                GaussianAtHorizon g = k.forecast(t).orElseThrow().horizons().get(j);
                double[] truth = path.apply(t + horizons[j]);
                sum += Math.hypot(g.meanX() - truth[0], g.meanY() - truth[1]);
            }
        }
        return sum / (to - from);
    }

    private static double errorAfter(LongFunction<double[]> path, int events, int j) {
        return errorAfter(KalmanPredictor.builder().velocityDecayMillis(0), path, events, j);
    }

    private static double errorAfter(KalmanPredictor.Builder config, LongFunction<double[]> path, int events, int j) {
        KalmanPredictor k = config.build();
        // the error of the last few forecasts after `events` samples
        return meanError(k, path, events - 3, events, j, k.horizonsMillis());
    }

    @Test
    void straightLine_forecastErrorShrinksAsDataArrives() {
        LongFunction<double[]> line = t -> new double[] {100 + 0.8 * t, 50 + 0.3 * t}; // 800 px/s, 300 px/s
        for (int j = 0; j < 4; j++) {
            double early = errorAfter(line, 3, j);
            double later = errorAfter(line, 20, j);
            double late = errorAfter(line, 60, j);
            assertTrue(later < early, "horizon " + j + ": " + early + " -> " + later);
            assertTrue(late <= later, "horizon " + j + ": " + later + " -> " + late);
            assertTrue(late < 2, "horizon " + j + ": on a straight line the forecast converges, error " + late);
        }
    }

    @Test
    void dampedVelocity_errorStillShrinksAsDataArrives() {
        LongFunction<double[]> line = t -> new double[] {100 + 0.8 * t, 50 + 0.3 * t};
        for (int j = 0; j < 4; j++) {
            double early = errorAfter(KalmanPredictor.builder(), line, 3, j);
            double late = errorAfter(KalmanPredictor.builder(), line, 60, j);
            assertTrue(late < early, "horizon " + j + ": " + early + " -> " + late);
        }
    }

    @Test
    void curvedMotion_forecastErrorShrinksAsDataArrives() {
        // A circle of radius 300 px at 0.5 rad/s: gentle curvature that a velocity model tracks.
        LongFunction<double[]> circle = t -> new double[] {
            500 + 300 * Math.cos(t / 2000.0), 400 + 300 * Math.sin(t / 2000.0)};
        for (int j = 0; j < 4; j++) {
            double early = errorAfter(circle, 3, j);
            double late = errorAfter(circle, 60, j);
            assertTrue(late < early, "horizon " + j + ": " + early + " -> " + late);
        }
        double late50 = errorAfter(circle, 60, 0);
        assertTrue(late50 < 2, "at 50 ms the curved path is nearly straight, error " + late50);
    }

    @Test
    void constantAcceleration_tracksAcceleratingMotionBetterThanConstantVelocity() {
        LongFunction<double[]> accel = t -> new double[] {0.5 * 2e-3 * t * t, 10};  // 2000 px/s²
        KalmanPredictor cv = KalmanPredictor.builder().velocityDecayMillis(0).build();
        KalmanPredictor ca = KalmanPredictor.builder().model(KalmanPredictor.Model.CONSTANT_ACCELERATION).build();
        double cvError = meanError(cv, accel, 40, 60, 3, cv.horizonsMillis());
        double caError = meanError(ca, accel, 40, 60, 3, ca.horizonsMillis());
        assertTrue(caError < cvError, "CA " + caError + " vs CV " + cvError);
    }

    @Test
    void forecast_isDeterministic() {
        KalmanPredictor a = KalmanPredictor.create();
        KalmanPredictor b = KalmanPredictor.create();
        for (int i = 0; i < 30; i++) {
            PointerEvent e = new PointerEvent(i * 3.0 + (i % 4), i * 1.5, i * STEP);
            a.onEvent(e);
            b.onEvent(e);
        }
        assertEquals(a.state(30 * STEP), b.state(30 * STEP));
    }

    @Test
    void covariance_growsWithHorizon_andIsPositiveDefinite() {
        KalmanPredictor k = KalmanPredictor.create();
        for (int i = 0; i < 20; i++) {
            k.onEvent(new PointerEvent(i * 10.0, i * 5.0, i * STEP));
        }
        PointerForecast f = k.forecast(19 * STEP).orElseThrow();
        double previous = 0;
        for (GaussianAtHorizon g : f.horizons()) {
            double det = g.varX() * g.varY() - g.covXY() * g.covXY();
            assertTrue(det > 0, "covariance must be positive definite: " + g);
            assertTrue(g.varX() > previous, "variance must grow with the horizon: " + g);
            previous = g.varX();
        }
    }

    @Test
    void state_roundTripsThroughPointerForecastJson() {
        KalmanPredictor k = KalmanPredictor.create();
        assertTrue(PointerForecast.isEmptyState(k.state(0)), "before any event the state is {}");
        k.onEvent(new PointerEvent(10, 20, 0));
        k.onEvent(new PointerEvent(14, 23, 16));
        JsonNode state = k.state(20);
        PointerForecast parsed = PointerForecast.fromJson(state);
        assertEquals(k.forecast(20).orElseThrow(), parsed);
        assertEquals(4, parsed.horizons().size());
        assertEquals(500, parsed.horizons().get(3).horizonMillis());
    }

    @Test
    void restingPointer_forecastStaysAtLastPosition() {
        KalmanPredictor k = KalmanPredictor.builder().idleMillis(100).velocityDecayMillis(0).build();
        for (int i = 0; i < 20; i++) {
            k.onEvent(new PointerEvent(i * 10.0, 0, i * STEP));
        }
        long last = 19 * STEP;
        PointerForecast moving = k.forecast(last).orElseThrow();
        PointerForecast resting = k.forecast(last + 500).orElseThrow();
        assertTrue(moving.horizons().get(3).meanX() > 300, "a moving pointer is extrapolated");
        assertEquals(resting.x(), resting.horizons().get(3).meanX(), 1e-9);
    }

    @Test
    void state_reportsHowLongThePointerHasRested_cappedSoALongRestStopsChangingIt() {
        KalmanPredictor k = KalmanPredictor.builder().idleMillis(100).build();
        for (int i = 0; i < 20; i++) {
            k.onEvent(new PointerEvent(i * 10.0, 0, i * STEP));
        }
        long last = 19 * STEP;
        // Polling the unchanged position does not reset the rest.
        k.onEvent(new PointerEvent(190, 0, last + 40));
        assertEquals(0, k.forecast(last).orElseThrow().restMillis(), "moving");
        assertFalse(k.state(last).has("rest"), "a moving pointer's state has no rest field");
        long restAfter = k.restAfterMillis();
        assertEquals(0, k.forecast(last + restAfter).orElseThrow().restMillis(), "not yet at rest");
        assertEquals(restAfter + 1, k.forecast(last + restAfter + 1).orElseThrow().restMillis(), "rest since the stop");
        assertEquals(700, PointerForecast.fromJson(k.state(last + 700)).restMillis());
        JsonNode longRest = k.state(last + KalmanPredictor.MAX_REPORTED_REST_MILLIS + 1);
        assertEquals(KalmanPredictor.MAX_REPORTED_REST_MILLIS, longRest.get("rest").asLong());
        assertEquals(longRest, k.state(last + 60_000), "past the cap the state no longer changes, so it is not resent");
    }

    @Test
    void stoppedPointer_isForecastAtItsLastObservedPosition_notWhereTheFilteredMeanTrails() {
        KalmanPredictor k = KalmanPredictor.create();
        // A fast stroke (1250 px/s) that stops dead at x = 500.
        for (int i = 0; i <= 25; i++) {
            k.onEvent(new PointerEvent(Math.min(500, 100 + i * 20.0), 40, i * STEP));
        }
        long last = 25 * STEP;
        PointerForecast f = k.forecast(last + 1000).orElseThrow();
        assertEquals(500, f.x(), 1e-9, "the state's position is the last sample");
        for (GaussianAtHorizon g : f.horizons()) {
            assertEquals(500, g.meanX(), 1e-9, "at rest every horizon sits on the last sample");
            assertEquals(40, g.meanY(), 1e-9);
        }
    }

    @Test
    void restIsDetectedAfterAFewTypicalEventIntervals_soA60HzPointerRestsWithinTensOfMillis() {
        KalmanPredictor fast = KalmanPredictor.create();
        KalmanPredictor batched = KalmanPredictor.create();
        for (int i = 0; i < 40; i++) {
            fast.onEvent(new PointerEvent(i * 8.0, 0, i * STEP));          // 60 Hz, 500 px/s
            batched.onEvent(new PointerEvent(i * 55.0, 0, i * 110L));      // remote desktop, 500 px/s
        }
        long fastLast = 39 * STEP;
        long batchedLast = 39 * 110L;
        assertEquals(32, fast.restAfterMillis(), "two 16 ms intervals");
        assertEquals(220, batched.restAfterMillis(), "two 110 ms intervals");
        KalmanPredictor capped = KalmanPredictor.builder().idleMillis(150).build();
        for (int i = 0; i < 40; i++) {
            capped.onEvent(new PointerEvent(i * 55.0, 0, i * 110L));
        }
        assertEquals(150, capped.restAfterMillis(), "idleMillis caps it");
        // 60 ms after its last event the 60 Hz pointer is at rest, the batched one still moves.
        assertEquals(39 * 8.0, fast.forecast(fastLast + 60).orElseThrow().horizons().get(3).meanX(), 1e-9);
        assertTrue(batched.forecast(batchedLast + 60).orElseThrow().horizons().get(3).meanX() > 39 * 55.0 + 10,
                "between two batches the pointer is still extrapolated");
    }

    @Test
    void polledPointer_thatRepeatsItsPosition_isAtRestAsSoonAsOneThatFallsSilent() {
        // The same stroke twice, then a stop at x = 312: one client falls silent, the other keeps
        // reporting the unchanged position every 20 ms (a page that polls the pointer).
        KalmanPredictor silent = KalmanPredictor.create();
        KalmanPredictor polled = KalmanPredictor.create();
        for (int i = 0; i < 40; i++) {
            silent.onEvent(new PointerEvent(i * 8.0, 0, i * 20L));
            polled.onEvent(new PointerEvent(i * 8.0, 0, i * 20L));
        }
        long stoppedAt = 39 * 20L;
        for (long t = stoppedAt + 20; t <= stoppedAt + 100; t += 20) {
            polled.onEvent(new PointerEvent(39 * 8.0, 0, t));
        }
        long now = stoppedAt + 100;
        assertEquals(39 * 8.0, silent.forecast(now).orElseThrow().horizons().get(3).meanX(), 1e-9);
        assertEquals(39 * 8.0, polled.forecast(now).orElseThrow().horizons().get(3).meanX(), 1e-9,
                "100 ms without a movement is rest, whether or not events keep coming");
        // Still moving: 10 ms after a movement neither is at rest.
        KalmanPredictor moving = KalmanPredictor.create();
        for (int i = 0; i < 40; i++) {
            moving.onEvent(new PointerEvent(i * 8.0, 0, i * 20L));
        }
        assertTrue(moving.forecast(stoppedAt + 10).orElseThrow().horizons().get(3).meanX() > 39 * 8.0 + 5);
    }

    @Test
    void sameInstantSamples_laterSupersedesEarlier() {
        KalmanPredictor k = KalmanPredictor.create();
        k.onEvent(new PointerEvent(0, 0, 0));
        k.onEvent(new PointerEvent(100, 100, 0));
        PointerForecast f = k.forecast(0).orElseThrow();
        assertEquals(100, f.x(), 1e-3);
        assertEquals(100, f.y(), 1e-3);
    }

    @Test
    void builder_rejectsBadSettingsNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KalmanPredictor.builder().processNoise(Double.NaN));
        assertTrue(e.getMessage().contains("processNoise"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KalmanPredictor.builder().measurementNoise(-1));
        assertTrue(e.getMessage().contains("measurementNoise"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KalmanPredictor.builder().horizons(50, 50));
        assertTrue(e.getMessage().contains("horizons"), e.getMessage());
    }

    @Test
    void alongTrackSpread_widensTheForecastAlongThePredictedDisplacementOnly() {
        KalmanPredictor round = KalmanPredictor.builder().alongTrackSpread(0).build();
        KalmanPredictor spread = KalmanPredictor.builder().alongTrackSpread(0.5).build();
        // A diagonal stroke, 3 px right and 4 px down every 16 ms.
        for (int i = 0; i < 12; i++) {
            PointerEvent e = new PointerEvent(100 + 3 * i, 200 + 4 * i, 16L * i);
            round.onEvent(e);
            spread.onEvent(e);
        }
        long now = 16L * 11;
        PointerForecast r = round.forecast(now).orElseThrow();
        PointerForecast s = spread.forecast(now).orElseThrow();
        for (int j = 0; j < r.horizons().size(); j++) {
            GaussianAtHorizon a = r.horizons().get(j);
            GaussianAtHorizon b = s.horizons().get(j);
            assertEquals(a.meanX(), b.meanX(), 1e-9, "the mean does not move");
            assertEquals(a.meanY(), b.meanY(), 1e-9);
            // D is the forecast mean's displacement from the last sample (133, 244).
            double dx = a.meanX() - 133;
            double dy = a.meanY() - 244;
            assertTrue(dx > 5 && dy > 5, "the stroke is forecast to go on");
            assertEquals(a.varX() + 0.25 * dx * dx, b.varX(), 1e-6 * b.varX());
            assertEquals(a.varY() + 0.25 * dy * dy, b.varY(), 1e-6 * b.varY());
            assertEquals(a.covXY() + 0.25 * dx * dy, b.covXY(), 1e-6 * Math.abs(b.covXY()));
            // Across the stroke (direction (4, -3)/5) the variance is the round filter's.
            double across = (16 * b.varX() - 24 * b.covXY() + 9 * b.varY()) / 25;
            double acrossRound = (16 * a.varX() - 24 * a.covXY() + 9 * a.varY()) / 25;
            assertEquals(acrossRound, across, 1e-6 * acrossRound);
        }
    }

    @Test
    void alongTrackSpread_leavesARestingPointerAlone() {
        KalmanPredictor round = KalmanPredictor.builder().alongTrackSpread(0).build();
        KalmanPredictor spread = KalmanPredictor.create();
        for (int i = 0; i < 12; i++) {
            PointerEvent e = new PointerEvent(100 + 5 * i, 100, 16L * i);
            round.onEvent(e);
            spread.onEvent(e);
        }
        assertEquals(round.forecast(16L * 11 + 1000).orElseThrow(), spread.forecast(16L * 11 + 1000).orElseThrow());
    }

    @Test
    void alongTrackSpread_refusesNegativeAndNonFiniteValues() {
        for (double bad : new double[] {-0.1, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KalmanPredictor.builder().alongTrackSpread(bad));
            assertEquals("alongTrackSpread must be finite and >= 0, was " + bad, e.getMessage());
        }
    }
}
