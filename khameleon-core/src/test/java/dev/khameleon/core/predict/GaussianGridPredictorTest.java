package dev.khameleon.core.predict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.spi.Layout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GaussianGridPredictorTest {
    /** The largest per-cell error against the reference integration that the tests accept. */
    static final double CELL_TOLERANCE = 1e-7;
    /**
     * Simpson points per cell side of the reference integration: 80 keeps the test fast (the
     * reference itself is then good to about 2e-8); docs/benchmarks.md quotes a run with 200.
     */
    static final int REFERENCE_POINTS = Integer.getInteger("khameleon.gaussian.referencePoints", 80);
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final ObjectMapper JSON = new ObjectMapper();

    private static GaussianAtHorizon randomGaussian(SplittableRandom rnd, long horizon, GridLayout grid) {
        double sx = 3 + rnd.nextDouble() * 60;
        double sy = 3 + rnd.nextDouble() * 60;
        double rho = -0.9 + 1.8 * rnd.nextDouble();
        double mx = grid.originX() + rnd.nextDouble() * grid.cols() * grid.cellWidth();
        double my = grid.originY() + rnd.nextDouble() * grid.rows() * grid.cellHeight();
        return new GaussianAtHorizon(horizon, mx, my, sx * sx, rho * sx * sy, sy * sy);
    }

    private static PointerForecast randomForecast(SplittableRandom rnd, GridLayout grid) {
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(randomGaussian(rnd, h, grid));
        }
        return new PointerForecast(hs.get(0).meanX(), hs.get(0).meanY(), hs);
    }

    /** Composite Simpson over the cell of the bivariate normal density: the reference. */
    static double reference(GaussianAtHorizon g, double x0, double y0, double w, double h, int n) {
        double det = g.varX() * g.varY() - g.covXY() * g.covXY();
        double norm = 1 / (2 * Math.PI * Math.sqrt(det));
        double sum = 0;
        for (int i = 0; i <= n; i++) {
            double x = x0 + w * i / n;
            double wi = i == 0 || i == n ? 1 : (i % 2 == 1 ? 4 : 2);
            double dx = x - g.meanX();
            for (int k = 0; k <= n; k++) {
                double y = y0 + h * k / n;
                double wk = k == 0 || k == n ? 1 : (k % 2 == 1 ? 4 : 2);
                double dy = y - g.meanY();
                double q = (g.varY() * dx * dx - 2 * g.covXY() * dx * dy + g.varX() * dy * dy) / det;
                sum += wi * wk * Math.exp(-q / 2);
            }
        }
        return sum * norm * (w / n / 3) * (h / n / 3);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void cellProbabilities_matchNumericalIntegration(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        GridLayout grid = Layout.grid(12, 14, 10, 20, 20, 15);
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).threshold(1e-12).tail(0, 1, 0).build();
        PointerForecast forecast = randomForecast(rnd, grid);
        Distribution d = predictor.distribution(forecast);
        double worst = 0;
        for (int j = 0; j < HORIZONS.length; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            double explicitTotal = 0;
            for (int id = 0; id < grid.requestCount(); id++) {
                var r = grid.bounds(id);
                double expected = reference(g, r.x(), r.y(), r.width(), r.height(), REFERENCE_POINTS);
                double actual = d.probability(j, id);
                worst = Math.max(worst, Math.abs(expected - actual));
                assertEquals(expected, actual, CELL_TOLERANCE, "seed " + seed + " horizon " + j + " cell " + id + " " + g);
            }
            for (int k = 0; k < d.explicitCount(j); k++) {
                explicitTotal += d.explicitProbability(j, k);
            }
            assertTrue(explicitTotal + d.residualMass(j) <= 1 + 1e-12, "mass exceeds 1: " + d);
        }
        System.out.printf("seed %d: worst cell error %.2e%n", seed, worst);
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void totalMass_isAtMostOne_andEqualsMassOnGrid(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        GridLayout grid = Layout.grid(30, 40, 0, 0, 8, 8);
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).tail(0, 1, 0).build();
        PointerForecast forecast = randomForecast(rnd, grid);
        Distribution d = predictor.distribution(forecast);
        for (int j = 0; j < HORIZONS.length; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            double onGrid = 0;
            for (int col = 0; col < grid.cols(); col++) {
                onGrid += reference(g, col * 8.0, 0, 8, grid.rows() * 8.0, 200);
            }
            assertTrue(d.totalMass(j) <= 1 + 1e-12, "total " + d.totalMass(j));
            assertEquals(onGrid, d.totalMass(j), 1e-5, "horizon " + j);
            for (int k = 0; k < d.explicitCount(j); k++) {
                assertTrue(d.explicitProbability(j, k) >= 1e-4, "explicit cells are above the threshold");
            }
        }
    }

    @Test
    void hugeGrid_workIsBoundedByThreshold_notByCellCount() {
        GridLayout grid = Layout.grid(20_000, 20_000, 0, 0, 1, 1); // 4·10^8 cells
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).threshold(1e-3).tail(0, 1, 0).build();
        List<GaussianAtHorizon> hs = new ArrayList<>();
        double[] sigmas = {2, 20, 200, 1000};
        for (int j = 0; j < 4; j++) {
            double s = sigmas[j];
            hs.add(new GaussianAtHorizon(HORIZONS[j], 10_000, 10_000, s * s, 0.5 * s * s, s * s));
        }
        Distribution d = predictor.distribution(new PointerForecast(10_000, 10_000, hs));
        for (int j = 0; j < 4; j++) {
            assertTrue(d.explicitCount(j) <= 1000, "at most 1/threshold cells can reach the threshold");
            assertEquals(1.0, d.totalMass(j), 1e-6, "a Gaussian well inside the grid puts all its mass on it");
        }
        assertEquals(0, d.explicitCount(3), "at sigma 1000 px no 1-px cell reaches 1e-3");
        assertEquals(1.0, d.residualMass(3), 1e-6);
    }

    /** The tail's Gaussian, computed here from its definition: σ four times wider, at least 40 px, same ρ. */
    private static GaussianAtHorizon widened(GaussianAtHorizon g) {
        double sx = Math.max(4 * Math.sqrt(g.varX()), 40);
        double sy = Math.max(4 * Math.sqrt(g.varY()), 40);
        return new GaussianAtHorizon(g.horizonMillis(), g.meanX(), g.meanY(), sx * sx, g.correlation() * sx * sy, sy * sy);
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24})
    void tail_isTheMixtureOfTheForecastAndAWiderGaussian(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        GridLayout grid = Layout.grid(12, 14, 10, 20, 20, 15);
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).threshold(1e-12).tail(0.2, 4, 40).build();
        PointerForecast forecast = randomForecast(rnd, grid);
        Distribution d = predictor.distribution(forecast);
        for (int j = 0; j < HORIZONS.length; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            GaussianAtHorizon wide = widened(g);
            for (int id = 0; id < grid.requestCount(); id++) {
                var r = grid.bounds(id);
                double expected = 0.8 * reference(g, r.x(), r.y(), r.width(), r.height(), REFERENCE_POINTS)
                        + 0.2 * reference(wide, r.x(), r.y(), r.width(), r.height(), REFERENCE_POINTS);
                assertEquals(expected, d.probability(j, id), CELL_TOLERANCE, "seed " + seed + " horizon " + j
                        + " cell " + id);
            }
        }
    }

    /** A scaled predictor gives each cell the probability of the reference integral of the scaled Gaussian. */
    @ParameterizedTest
    @ValueSource(longs = {31, 32, 33})
    void sigmaScale_integratesTheForecastWithItsStandardDeviationsScaled(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        GridLayout grid = Layout.grid(12, 14, 10, 20, 20, 15);
        double scale = 0.5 + rnd.nextDouble();
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).threshold(1e-12).tail(0, 1, 0)
                .sigmaScale(scale).build();
        PointerForecast forecast = randomForecast(rnd, grid);
        Distribution d = predictor.distribution(forecast);
        double k = scale * scale;
        for (int j = 0; j < HORIZONS.length; j++) {
            GaussianAtHorizon g = forecast.horizons().get(j);
            GaussianAtHorizon s = new GaussianAtHorizon(g.horizonMillis(), g.meanX(), g.meanY(), k * g.varX(),
                    k * g.covXY(), k * g.varY());
            for (int id = 0; id < grid.requestCount(); id++) {
                var r = grid.bounds(id);
                assertEquals(reference(s, r.x(), r.y(), r.width(), r.height(), REFERENCE_POINTS), d.probability(j, id),
                        CELL_TOLERANCE, "seed " + seed + " scale " + scale + " horizon " + j + " cell " + id);
            }
        }
    }

    @Test
    void sigmaScale_outsideItsRange_isRefusedWithItsName() {
        GridLayout grid = Layout.grid(2, 2, 0, 0, 10, 10);
        for (double bad : new double[] {0, -1, 4.01, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GaussianGridPredictor.builder(grid).sigmaScale(bad));
            assertTrue(e.getMessage().contains("sigmaScale"), e.getMessage());
        }
        assertEquals(4, GaussianGridPredictor.checkSigmaScale(4));
    }

    @Test
    void tail_spreadsANarrowForecastOverTheNeighbouringCells() {
        GridLayout grid = Layout.grid(20, 20, 0, 0, 10, 10);
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(new GaussianAtHorizon(h, 105, 105, 1, 0, 1)); // σ = 1 px inside cell (10, 10)
        }
        PointerForecast f = new PointerForecast(105, 105, hs);
        Distribution narrow = GaussianGridPredictor.builder(grid).tail(0, 1, 0).build().distribution(f);
        Distribution tailed = GaussianGridPredictor.builder(grid).tail(0.2, 4, 40).build().distribution(f);
        int centre = grid.requestAt(105, 105);
        int neighbour = grid.requestAt(125, 105);
        assertTrue(narrow.probability(0, neighbour) < 1e-6, "without a tail the neighbour gets next to nothing");
        assertEquals(0.8, tailed.probability(0, centre), 0.02, "the core keeps 1 − weight on its cell");
        assertTrue(tailed.probability(0, neighbour) > 1e-3, "the tail reaches two cells away: "
                + tailed.probability(0, neighbour));
    }

    @Test
    void tail_isOnByDefault_andFadesWhileThePointerRests() {
        GridLayout grid = Layout.grid(20, 20, 0, 0, 10, 10);
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(new GaussianAtHorizon(h, 105, 105, 1, 0, 1));
        }
        GaussianGridPredictor p = GaussianGridPredictor.builder(grid).build();
        int centre = grid.requestAt(105, 105);
        double moving = p.distribution(new PointerForecast(105, 105, hs)).probability(0, centre);
        double fade = GaussianGridPredictor.DEFAULT_TAIL_REST_FADE_MILLIS;
        double rested = p.distribution(new PointerForecast(105, 105, hs, Math.round(fade))).probability(0, centre);
        double longRest = p.distribution(new PointerForecast(105, 105, hs, 60_000)).probability(0, centre);
        // The tail (σ ≥ 20 px) keeps only a small part of its mass on the 10-px centre cell, so
        // the centre holds about 1 − w·(1 − that part), with w fading as exp(−rest / fade).
        assertEquals(1 - GaussianGridPredictor.DEFAULT_TAIL_WEIGHT, moving, 0.05, "default tail while moving");
        assertTrue(rested > moving && rested < longRest, "one time constant of rest: " + rested);
        assertEquals(1 - GaussianGridPredictor.DEFAULT_TAIL_WEIGHT * Math.exp(-1), rested, 0.04);
        assertEquals(1, longRest, 1e-5, "after a long rest the picture under the pointer has it all");
        GaussianGridPredictor kept = GaussianGridPredictor.builder(grid).tailRestFadeMillis(Double.POSITIVE_INFINITY)
                .build();
        assertEquals(moving, kept.distribution(new PointerForecast(105, 105, hs, 60_000)).probability(0, centre),
                1e-12, "an infinite time constant keeps the tail at rest");
        GaussianGridPredictor dropped = GaussianGridPredictor.builder(grid).tailRestFadeMillis(0).build();
        assertEquals(1, dropped.distribution(new PointerForecast(105, 105, hs, 1)).probability(0, centre), 1e-5,
                "0 drops it at once");
        assertThrows(IllegalArgumentException.class, () -> GaussianGridPredictor.builder(grid).tailRestFadeMillis(-1));
        assertThrows(IllegalArgumentException.class,
                () -> GaussianGridPredictor.builder(grid).tailRestFadeMillis(Double.NaN));
    }

    @Test
    void rest_roundTripsThroughJson_andBadValuesAreRefused() {
        List<GaussianAtHorizon> hs = List.of(new GaussianAtHorizon(50, 1, 2, 1, 0, 1));
        PointerForecast resting = new PointerForecast(1, 2, hs, 750);
        assertEquals(resting, PointerForecast.fromJson(resting.toJson()));
        assertFalse(new PointerForecast(1, 2, hs).toJson().has("rest"), "a moving pointer's state stays as before");
        for (String bad : new String[] {"-1", "1.5", "\"7\"", "86400001", "1e30"}) {
            ObjectNode o = resting.toJson();
            try {
                o.set("rest", new ObjectMapper().readTree(bad));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new AssertionError(e);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PointerForecast.fromJson(o),
                    bad);
            assertTrue(e.getMessage().contains("\"rest\""), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new PointerForecast(1, 2, hs, -1));
    }

    @Test
    void tail_rejectsBadSettingsNamingThem() {
        GaussianGridPredictor.Builder b = GaussianGridPredictor.builder(Layout.grid(2, 2, 0, 0, 1, 1));
        for (double[] bad : new double[][] {{1, 4, 40}, {-0.1, 4, 40}, {Double.NaN, 4, 40}, {0.2, 0.5, 40},
            {0.2, Double.POSITIVE_INFINITY, 40}, {0.2, 4, -1}, {0.2, 4, Double.NaN}}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> b.tail(bad[0], bad[1], bad[2]));
            assertTrue(e.getMessage().startsWith("tail "), e.getMessage());
        }
    }

    @Test
    void pointMass_goesToTheCurrentCell() {
        GridLayout grid = Layout.grid(10, 10, 0, 0, 10, 10);
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).pointMass(0.3).tail(0, 1, 0).build();
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(new GaussianAtHorizon(h, 75, 75, 4, 0, 4)); // far from the current cell
        }
        Distribution d = predictor.distribution(new PointerForecast(5, 5, hs));
        for (int j = 0; j < 4; j++) {
            assertEquals(0.3, d.probability(j, 0), 1e-9);
            assertEquals(1.0, d.totalMass(j), 1e-6);
        }
    }

    @Test
    void emptyState_decodesToUniform() {
        GridLayout grid = Layout.grid(4, 4, 0, 0, 10, 10);
        Distribution d = GaussianGridPredictor.builder(grid).build().decode(JSON.createObjectNode());
        assertEquals(1.0 / 16, d.probability(0, 5), 1e-12);
    }

    @Test
    void decode_roundTripsAKalmanLikeState() {
        GridLayout grid = Layout.grid(10, 10, 0, 0, 10, 10);
        GaussianGridPredictor predictor = GaussianGridPredictor.builder(grid).build();
        PointerForecast f = randomForecast(new SplittableRandom(3), grid);
        assertEquals(predictor.distribution(f).toString(), predictor.decode(f.toJson()).toString());
    }

    private static ObjectNode validState() {
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(new GaussianAtHorizon(h, 5, 5, 4, 1, 4));
        }
        return new PointerForecast(5, 5, hs).toJson();
    }

    @Test
    void decode_rejectsUntrustedGarbage() {
        GaussianGridPredictor p = GaussianGridPredictor.builder(Layout.grid(4, 4, 0, 0, 10, 10)).build();
        ObjectNode nan = validState();
        ((com.fasterxml.jackson.databind.node.ArrayNode) nan.get("mean").get(1)).set(0, JSON.getNodeFactory().numberNode(Double.NaN));
        assertRejected(p, nan, "finite");
        ObjectNode negative = validState();
        ((com.fasterxml.jackson.databind.node.ArrayNode) negative.get("cov").get(0)).set(0, JSON.getNodeFactory().numberNode(-1.0));
        assertRejected(p, negative, "variance");
        ObjectNode notPsd = validState();
        ((com.fasterxml.jackson.databind.node.ArrayNode) notPsd.get("cov").get(2)).set(1, JSON.getNodeFactory().numberNode(10.0));
        assertRejected(p, notPsd, "positive semi-definite");
        ObjectNode wrongHorizons = validState();
        ((com.fasterxml.jackson.databind.node.ArrayNode) wrongHorizons.get("horizons")).set(3, JSON.getNodeFactory().numberNode(600));
        assertRejected(p, wrongHorizons, "expected");
        ObjectNode missing = validState();
        missing.remove("cov");
        assertRejected(p, missing, "cov");
        assertRejected(p, JSON.getNodeFactory().textNode("hi"), "object");
    }

    /**
     * Regression: a valid state with variances above ~1e154 (finite, positive semi-definite) was
     * refused with a NaN covariance it never sent, because the tail's widening multiplied the
     * variances together. Any finite variance now decodes, with or without tail and sigma scale.
     */
    @ParameterizedTest
    @ValueSource(doubles = {1e154, 1e200, 1e300, Double.MAX_VALUE})
    void hugeFiniteVariances_decodeToAFiniteDistribution(double variance) {
        GridLayout grid = Layout.grid(30, 40, 0, 0, 160, 120);
        List<GaussianGridPredictor> predictors = List.of(GaussianGridPredictor.builder(grid).build(),
                GaussianGridPredictor.builder(grid).tail(0, 1, 0).build(),
                GaussianGridPredictor.builder(grid).sigmaScale(4).build());
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : HORIZONS) {
            hs.add(new GaussianAtHorizon(h, 3200, 1800, variance, 0.5 * Math.sqrt(variance) * Math.sqrt(variance), variance));
        }
        // One horizon with the other variance ordinary: both extremes in one state.
        hs.set(1, new GaussianAtHorizon(HORIZONS[1], 3200, 1800, variance, 0, 100));
        JsonNode state = new PointerForecast(3200, 1800, hs).toJson();
        for (GaussianGridPredictor p : predictors) {
            Distribution d = p.decode(state);
            for (int j = 0; j < HORIZONS.length; j++) {
                double total = d.totalMass(j);
                assertTrue(total >= 0 && total <= 1, p + " horizon " + j + ": total " + total);
            }
        }
    }

    @Test
    void bounded_lowersHugeVariancesKeepingTheCorrelation() {
        GaussianAtHorizon g = new GaussianAtHorizon(50, 0, 0, Double.MAX_VALUE, -0.5 * Double.MAX_VALUE, Double.MAX_VALUE);
        assertEquals(-0.5, g.correlation(), 1e-12, "the correlation itself must not overflow");
        GaussianAtHorizon b = GaussianGridPredictor.bounded(g);
        assertEquals(GaussianGridPredictor.MAX_VARIANCE, b.varX());
        assertEquals(GaussianGridPredictor.MAX_VARIANCE, b.varY());
        assertEquals(-0.5, b.correlation(), 1e-12);
        GaussianAtHorizon ordinary = new GaussianAtHorizon(50, 0, 0, 100, 30, 400);
        assertTrue(ordinary == GaussianGridPredictor.bounded(ordinary), "ordinary forecasts pass unchanged");
    }

    private static void assertRejected(GaussianGridPredictor p, JsonNode state, String mention) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.decode(state));
        assertTrue(e.getMessage().contains(mention), "message should mention '" + mention + "': " + e.getMessage());
    }

    @Test
    void normalCdf_matchesKnownValues() {
        assertEquals(0.5, Normal.cdf(0), 1e-16);
        assertEquals(0.8413447460685429, Normal.cdf(1), 1e-15);
        assertEquals(0.022750131948179195, Normal.cdf(-2), 1e-15);
        assertEquals(6.220960574271785e-16, Normal.cdf(-8), 1e-20);
        assertEquals(1.0, Normal.cdf(40), 0);
    }
}
