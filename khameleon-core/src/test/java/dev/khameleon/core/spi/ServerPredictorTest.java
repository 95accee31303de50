package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.testkit.ServerPredictorContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerPredictorTest {
    static final long[] H = {50, 150, 250, 500};

    @Nested
    class Point extends ServerPredictorContract {
        @Override
        protected ServerPredictor predictor() {
            return ServerPredictor.point(100, H);
        }

        @Override
        protected int requestCount() {
            return 100;
        }

        @Override
        protected List<JsonNode> validStates() {
            return List.of(json("{\"request\": 0}"), json("{\"request\": 99}"), json("{\"request\": -1}"), json("{}"));
        }

        @Override
        protected List<JsonNode> invalidStates() {
            return List.of(json("{\"request\": 100}"), json("{\"request\": -2}"), json("{\"request\": 1.5}"),
                    json("{\"request\": \"3\"}"), json("{\"request\": 1e300}"), json("[1]"), json("\"x\""),
                    JSON.nullNode());
        }
    }

    @Nested
    class Uniform extends ServerPredictorContract {
        @Override
        protected ServerPredictor predictor() {
            return ServerPredictor.uniform(1_000_000, H);
        }

        @Override
        protected int requestCount() {
            return 1_000_000;
        }

        @Override
        protected List<JsonNode> validStates() {
            return List.of(json("{}"), JSON.nullNode());
        }

        @Override
        protected List<JsonNode> invalidStates() {
            return List.of();
        }
    }

    @Test
    void point_givesAllMassToTheLastRequest() {
        Distribution d = ServerPredictor.point(10, H).decode(json("{\"request\": 4}"));
        for (int j = 0; j < H.length; j++) {
            assertEquals(1.0, d.probability(j, 4));
            assertEquals(0.0, d.probability(j, 3));
        }
    }

    @Test
    void pointDecaying_halvesMassEveryHalfLifeAndSpreadsTheRest() {
        Distribution d = ServerPredictor.pointDecaying(11, 250, H).decode(json("{\"request\": 4}"));
        assertEquals(Math.pow(2, -50 / 250.0), d.probability(0, 4), 1e-12);
        assertEquals(0.5, d.probability(2, 4), 1e-12);
        assertEquals(0.25, d.probability(3, 4), 1e-12);
        assertEquals(0.75 / 10, d.probability(3, 0), 1e-12);
        for (int j = 0; j < H.length; j++) {
            assertEquals(1.0, d.totalMass(j), 1e-12);
        }
        assertThrows(IllegalArgumentException.class, () -> ServerPredictor.pointDecaying(11, 0, H));
        assertThrows(IllegalArgumentException.class, () -> ServerPredictor.pointDecaying(11, Double.NaN, H));
    }

    @Test
    void point_noRequestYet_isUniform() {
        Distribution d = ServerPredictor.point(8, H).decode(json("{\"request\": null}"));
        assertEquals(1.0 / 8, d.probability(1, 7), 1e-15);
        assertTrue(d.explicitCount(0) == 0);
    }

    static JsonNode json(String s) {
        try {
            return MAPPER.readTree(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
            new com.fasterxml.jackson.databind.ObjectMapper();
}
