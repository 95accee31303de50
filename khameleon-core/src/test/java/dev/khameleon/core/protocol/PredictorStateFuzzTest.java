package dev.khameleon.core.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the server halves of the built-in predictors with the {@code state} a client sends:
 * any JSON value either decodes to a valid {@link Distribution} over the application's requests
 * and horizons, or is rejected with an {@link IllegalArgumentException} (which the server turns
 * into {@code invalid_state}). A well-formed state — one the documented format accepts, at the
 * configured horizons — must decode: rejecting it would close a healthy session. Any other
 * exception or error is a finding.
 *
 * <p>{@code mvn verify} replays the seeds in {@code PredictorStateFuzzTestInputs/}; see
 * {@code docs/protocol.md} ("Fuzzing") for the long-run command.
 */
class PredictorStateFuzzTest {
    private static final long[] HORIZONS = {50, 150, 250, 500};
    /** The gallery's grid: 8 rows of 12 cells of 160 × 135 px. */
    private static final GridLayout GRID = Layout.grid(8, 12, 0, 0, 160, 135);
    private static final ServerPredictor GAUSSIAN = GaussianGridPredictor.builder(GRID).build();
    private static final ServerPredictor POINT = ServerPredictor.point(GRID.requestCount(), HORIZONS);
    private static final ServerPredictor POINT_DECAYING =
            ServerPredictor.pointDecaying(GRID.requestCount(), 200, HORIZONS);

    @FuzzTest(maxDuration = "3m")
    void gaussianGrid_decodesAValidDistributionOrRejects(byte[] input) {
        JsonNode state = jsonOrNull(input);
        if (state != null) {
            checkDecode(GAUSSIAN, state, PointerForecast.isEmptyState(state) || isForecastAtOurHorizons(state));
        }
    }

    @FuzzTest(maxDuration = "3m")
    void point_decodesAValidDistributionOrRejects(byte[] input) {
        JsonNode state = jsonOrNull(input);
        if (state != null) {
            boolean wellFormed = isPointState(state);
            checkDecode(POINT, state, wellFormed);
            checkDecode(POINT_DECAYING, state, wellFormed);
        }
    }

    /** The state as the server would get it: the JSON value of a decoded {@code state} message. */
    private static JsonNode jsonOrNull(byte[] input) {
        try {
            return ControlCodec.mapper().readTree(new String(input, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return null; // not JSON: the control codec refuses it before any predictor sees it
        }
    }

    /** A pointer forecast (docs/client.md) whose horizons are the configured ones. */
    private static boolean isForecastAtOurHorizons(JsonNode state) {
        PointerForecast f;
        try {
            f = PointerForecast.fromJson(state);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return f.horizons().stream().mapToLong(GaussianAtHorizon::horizonMillis).boxed().toList()
                .equals(java.util.Arrays.stream(HORIZONS).boxed().toList());
    }

    /** {@code {"request": id}} with an integer id in {@code [-1, n)}, or without an id (see ServerPredictor.point). */
    private static boolean isPointState(JsonNode state) {
        if (!state.isObject()) {
            return false;
        }
        JsonNode id = state.get("request");
        return id == null || id.isNull()
                || id.isIntegralNumber() && id.canConvertToInt() && id.intValue() >= -1 && id.intValue() < GRID.requestCount();
    }

    private static void checkDecode(ServerPredictor predictor, JsonNode state, boolean wellFormed) {
        Distribution d;
        try {
            d = predictor.decode(state);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), "a rejection without a reason");
            assertFalse(wellFormed, predictor + " rejected the well-formed state " + state + ": " + e.getMessage());
            return;
        }
        assertEquals(GRID.requestCount(), d.requestCount(), predictor + " for " + state);
        assertArrayEquals(HORIZONS, d.horizonsMillis(), predictor + " for " + state);
        for (int j = 0; j < HORIZONS.length; j++) {
            double sum = d.residualMass(j);
            assertTrue(Double.isFinite(sum) && sum >= 0, "residual " + sum + " at horizon " + j + " for " + state);
            for (int k = 0; k < d.explicitCount(j); k++) {
                int id = d.explicitId(j, k);
                double p = d.explicitProbability(j, k);
                assertTrue(id >= 0 && id < GRID.requestCount(), "id " + id + " for " + state);
                assertTrue(Double.isFinite(p) && p >= 0, "probability " + p + " of " + id + " for " + state);
                sum += p;
            }
            assertTrue(sum <= 1 + 1e-9, "mass " + sum + " at horizon " + j + " for " + state);
        }
    }
}
