package dev.khameleon.client;

import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.testing.BalabitTraces;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kalman predictor on real pointer traces (Balabit): mean Euclidean error of the forecast
 * mean at each horizon, against the "pointer stays put" baseline. Prints the table recorded in
 * docs/benchmarks.md, section "Client / Kalman".
 */
class KalmanBalabitTest {
    static final long[] HORIZONS = {50, 150, 250, 500};
    static final long INTERPOLATION_GAP_MILLIS = 200;

    /** Mean errors per horizon: [kalman..., stay..., samples...]. */
    static double[][] evaluate(List<Path> sessions, KalmanPredictor.Builder config) {
        int m = HORIZONS.length;
        double[] kalman = new double[m];
        double[] stay = new double[m];
        double[] within2Sigma = new double[m];
        long[] n = new long[m];
        for (Path session : sessions) {
            for (List<PointerEvent> seg : BalabitTraces.segments(session)) {
                KalmanPredictor k = config.build();
                int[] cursor = new int[m];
                for (int i = 0; i < seg.size(); i++) {
                    PointerEvent e = seg.get(i);
                    k.onEvent(e);
                    if (i + 1 < seg.size() && seg.get(i + 1).timeMillis() == e.timeMillis()) {
                        continue; // predict once all samples of this instant are in
                    }
                    PointerForecast f = k.forecast(e.timeMillis()).orElseThrow();
                    for (int j = 0; j < m; j++) {
                        long target = e.timeMillis() + HORIZONS[j];
                        if (target > seg.get(seg.size() - 1).timeMillis()) {
                            continue;
                        }
                        // The pointer is where its last sample at or before the target put it.
                        int c = Math.max(cursor[j], i);
                        while (c + 1 < seg.size() && seg.get(c + 1).timeMillis() <= target) {
                            c++;
                        }
                        cursor[j] = c;
                        double[] truth = positionAt(seg, c, target);
                        GaussianAtHorizon g = f.horizons().get(j);
                        double dx = g.meanX() - truth[0];
                        double dy = g.meanY() - truth[1];
                        kalman[j] += Math.hypot(dx, dy);
                        stay[j] += Math.hypot(e.x() - truth[0], e.y() - truth[1]);
                        double det = g.varX() * g.varY() - g.covXY() * g.covXY();
                        double maha = (g.varY() * dx * dx - 2 * g.covXY() * dx * dy + g.varX() * dy * dy) / det;
                        if (maha <= 4) {
                            within2Sigma[j]++;
                        }
                        n[j]++;
                    }
                }
            }
        }
        double[][] out = new double[4][m];
        for (int j = 0; j < m; j++) {
            out[0][j] = kalman[j] / n[j];
            out[1][j] = stay[j] / n[j];
            out[2][j] = within2Sigma[j] / n[j];
            out[3][j] = n[j];
        }
        return out;
    }

    /**
     * Where the pointer was at {@code target}, {@code seg.get(c)} being its last sample at or
     * before it: interpolated linearly towards the next sample when that follows within
     * {@link #INTERPOLATION_GAP_MILLIS} (the trace's samples arrive in remote-desktop batches, so
     * the last sample lags the real motion), else the last sample (the pointer was at rest).
     */
    static double[] positionAt(List<PointerEvent> seg, int c, long target) {
        PointerEvent a = seg.get(c);
        if (c + 1 < seg.size()) {
            PointerEvent b = seg.get(c + 1);
            long gap = b.timeMillis() - a.timeMillis();
            if (gap > 0 && gap <= INTERPOLATION_GAP_MILLIS) {
                double w = (double) (target - a.timeMillis()) / gap;
                return new double[] {a.x() + w * (b.x() - a.x()), a.y() + w * (b.y() - a.y())};
            }
        }
        return new double[] {a.x(), a.y()};
    }

    private static String table(double[][] r) {
        StringBuilder table = new StringBuilder("| horizon | Kalman mean error (px) | stay-put error (px) "
                + "| truth within 2σ ellipse | samples |\n|---|---|---|---|---|\n");
        for (int j = 0; j < HORIZONS.length; j++) {
            table.append(String.format(Locale.ROOT, "| %d ms | %.1f | %.1f | %.1f %% | %d |%n",
                    HORIZONS[j], r[0][j], r[1][j], 100 * r[2][j], (long) r[3][j]));
        }
        return table.toString();
    }

    @Test
    void kalman_onRealTraces_beatsStayingPutAtShortHorizons() {
        Path dir = BalabitTraces.directoryOrSkip();
        List<Path> sessions = BalabitTraces.sessions(dir);
        assertTrue(!sessions.isEmpty(), "no session files under " + dir);
        double[][] r = evaluate(sessions, KalmanPredictor.builder());
        String table = table(r);
        System.out.println("Kalman (defaults) on " + sessions.size() + " balabit sessions:\n" + table);
        if (Boolean.getBoolean("khameleon.kalman.compare")) {
            System.out.println("Undamped constant velocity, q=1e6:\n" + table(evaluate(sessions,
                    KalmanPredictor.builder().velocityDecayMillis(0).processNoise(1e6))));
            System.out.println("Constant acceleration, defaults:\n" + table(evaluate(sessions,
                    KalmanPredictor.builder().model(KalmanPredictor.Model.CONSTANT_ACCELERATION))));
        }
        assertTrue(r[0][0] < r[1][0], "at 50 ms the Kalman forecast must beat the stay-put guess: " + table);
        assertTrue(r[0][1] < r[1][1], "at 150 ms the Kalman forecast must beat the stay-put guess: " + table);
        for (int j = 1; j < HORIZONS.length; j++) {
            assertTrue(r[0][j] >= r[0][j - 1], "error must not shrink with the horizon: " + table);
        }
    }
}
