package dev.khameleon.core.predict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.Rect;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.ServerPredictorContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GaussianLayoutPredictorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long[] H = {50, 150, 250, 500};

    /** Three charts of different sizes on a page, with gaps between them. */
    static final Layout CHARTS = new Layout() {
        private final Rect[] r = {new Rect(0, 0, 300, 100), new Rect(400, 0, 100, 100), new Rect(0, 200, 500, 50)};

        @Override
        public int requestCount() {
            return r.length;
        }

        @Override
        public int requestAt(double x, double y) {
            for (int i = 0; i < r.length; i++) {
                if (r[i].contains(x, y)) {
                    return i;
                }
            }
            return -1;
        }

        @Override
        public Rect bounds(int requestId) {
            return r[requestId];
        }
    };

    private static PointerForecast forecast(double x, double y, double mx, double my, double vx, double cxy, double vy) {
        return new PointerForecast(x, y, List.of(new GaussianAtHorizon(50, mx, my, vx, cxy, vy),
                new GaussianAtHorizon(150, mx, my, vx, cxy, vy), new GaussianAtHorizon(250, mx, my, vx, cxy, vy),
                new GaussianAtHorizon(500, mx, my, vx, cxy, vy)));
    }

    private static double p(Distribution d, int j, int id) {
        return d.probability(j, id);
    }

    @Test
    void regionMass_matchesTheProductOfNormalIntervals_forAnUncorrelatedForecast() {
        GaussianLayoutPredictor pred = GaussianLayoutPredictor.builder(CHARTS).horizons(H).build();
        // Mean on the edge between chart 0 and the gap, sigma 40 px in x and 30 px in y.
        Distribution d = pred.distribution(forecast(300, 50, 300, 50, 1600, 0, 900));
        double px0 = Normal.cdf((300 - 300) / 40.0) - Normal.cdf((0 - 300) / 40.0);
        double py0 = Normal.cdf((100 - 50) / 30.0) - Normal.cdf((0 - 50) / 30.0);
        assertEquals(px0 * py0, p(d, 0, 0), 1e-9, "P(chart 0) = P(x in [0,300)) P(y in [0,100))");
        double px1 = Normal.cdf((500 - 300) / 40.0) - Normal.cdf((400 - 300) / 40.0);
        assertEquals(px1 * py0, p(d, 0, 1), 1e-9);
        double total = p(d, 0, 0) + p(d, 0, 1) + p(d, 0, 2);
        assertEquals(px0 * py0 + px1 * py0, total, 1e-6, "the mass over the gaps goes to no chart");
    }

    @Test
    void correlation_movesMassAlongTheDiagonal() {
        GaussianLayoutPredictor pred = GaussianLayoutPredictor.builder(CHARTS).horizons(H).build();
        // Centre between chart 1 (up-right) and chart 2 (down-left); strong correlation either way.
        double var = 100 * 100;
        Distribution up = pred.distribution(forecast(350, 150, 350, 150, var, -0.9 * var, var));
        Distribution down = pred.distribution(forecast(350, 150, 350, 150, var, 0.9 * var, var));
        assertTrue(p(up, 0, 1) > 2 * p(down, 0, 1), "negative correlation favours up-right: " + p(up, 0, 1)
                + " vs " + p(down, 0, 1));
    }

    @Test
    void prior_isMixedWithItsWeight_givenTheRequestUnderThePointer() {
        double[] fromChart0 = {0, 0.75, 0.25};
        GaussianLayoutPredictor plain = GaussianLayoutPredictor.builder(CHARTS).horizons(H).build();
        GaussianLayoutPredictor mixed = GaussianLayoutPredictor.builder(CHARTS).horizons(H)
                .prior(current -> current == 0 ? fromChart0.clone() : new double[] {1.0 / 3, 1.0 / 3, 1.0 / 3}, 0.4)
                .build();
        PointerForecast f = forecast(150, 50, 150, 50, 25, 0, 25);   // resting on chart 0
        Distribution a = plain.distribution(f);
        Distribution b = mixed.distribution(f);
        // Charts 1 and 2 lie far beyond the forecast's support: all their mass comes from the prior.
        assertEquals(0.6 * p(a, 3, 0), p(b, 3, 0), 1e-12, "chart 0");
        assertEquals(0.4 * 0.75, p(b, 3, 1), 1e-12, "chart 1");
        assertEquals(0.4 * 0.25, p(b, 3, 2), 1e-12, "chart 2");
        assertTrue(p(a, 3, 0) > 0.99, "resting well inside chart 0");
        Distribution none = mixed.decode(JSON.createObjectNode());
        assertEquals(1.0 / 3, p(none, 0, 2), 1e-12, "no position yet: the prior for 'no request'");
    }

    @Test
    void badPrior_andBadSettings_areRefusedWithAMessage() {
        GaussianLayoutPredictor wrongLength = GaussianLayoutPredictor.builder(CHARTS)
                .prior(current -> new double[] {1}, 0.5).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> wrongLength.distribution(forecast(10, 10, 10, 10, 4, 0, 4)));
        assertTrue(e.getMessage().contains("3 entries"), e.getMessage());
        GaussianLayoutPredictor tooMuch = GaussianLayoutPredictor.builder(CHARTS)
                .prior(current -> new double[] {0.6, 0.6, 0}, 0.5).build();
        assertThrows(IllegalArgumentException.class, () -> tooMuch.distribution(forecast(10, 10, 10, 10, 4, 0, 4)));
        assertThrows(IllegalArgumentException.class,
                () -> GaussianLayoutPredictor.builder(CHARTS).prior(c -> new double[3], 1.5));
    }

    @Test
    void transitionPrior_learnsSmoothedFollowFrequencies() {
        TransitionPrior prior = TransitionPrior.learn(3, List.of(new int[] {0, 1, 0, 2}, new int[] {0, 1}), 0);
        assertArrayEquals(new double[] {0, 2.0 / 3, 1.0 / 3}, prior.apply(0), 1e-12, "0 -> 1 twice, 0 -> 2 once");
        assertArrayEquals(new double[] {1, 0, 0}, prior.apply(1), 1e-12);
        assertArrayEquals(new double[] {1.0 / 3, 1.0 / 3, 1.0 / 3}, prior.apply(2), 1e-12, "never left: uniform");
        assertArrayEquals(new double[] {0.5, 2.0 / 6, 1.0 / 6}, prior.apply(-1), 1e-12, "overall frequencies");
        TransitionPrior smoothed = TransitionPrior.learn(3, List.of(new int[] {0, 1}), 1);
        assertArrayEquals(new double[] {0.25, 0.5, 0.25}, smoothed.apply(0), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> TransitionPrior.learn(3, List.of(new int[] {3}), 0));
    }

    @Nested
    class Contract extends ServerPredictorContract {
        @Override
        protected ServerPredictor predictor() {
            return GaussianLayoutPredictor.builder(CHARTS).horizons(H).build();
        }

        @Override
        protected int requestCount() {
            return 3;
        }

        @Override
        protected List<JsonNode> validStates() {
            return List.of(forecast(150, 50, 160, 60, 100, 10, 80).toJson(), forecast(-500, -500, -500, -500, 1, 0, 1)
                    .toJson(), JSON.createObjectNode());
        }

        @Override
        protected List<JsonNode> invalidStates() {
            return List.of(json("{\"x\": 1}"), json("[1]"), json("{\"x\": 1, \"y\": 1, \"horizons\": [50], "
                    + "\"mean\": [[1, 1]], \"cov\": [[1, 0, 1]]}"));
        }

        private JsonNode json(String s) {
            try {
                return JSON.readTree(s);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
