package dev.khameleon.core.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.ServerPredictor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link ServerPredictor} promises: valid states decode to distributions over the
 * application's requests; anything else from the network is an {@link IllegalArgumentException},
 * never another exception or a garbage distribution.
 */
public abstract class ServerPredictorContract {
    /** For building states in subclasses. */
    protected static final ObjectMapper JSON = new ObjectMapper();

    /** The predictor under test. */
    protected abstract ServerPredictor predictor();

    /** The number of requests the predictor's distributions must cover. */
    protected abstract int requestCount();

    /** States the client half can send; at least one. */
    protected abstract List<JsonNode> validStates();

    /**
     * States a hostile or broken client could send that must be rejected; empty only for a
     * predictor that ignores its state.
     */
    protected abstract List<JsonNode> invalidStates();

    @Test
    void decode_validState_coversAllRequests() {
        for (JsonNode state : validStates()) {
            Distribution d = predictor().decode(state);
            assertEquals(requestCount(), d.requestCount(), "for state " + state);
            for (int j = 0; j < d.horizonCount(); j++) {
                assertTrue(d.totalMass(j) <= 1 + Distribution.MASS_TOLERANCE);
            }
        }
    }

    @Test
    void decode_invalidState_isIllegalArgument() {
        for (JsonNode state : invalidStates()) {
            assertThrows(IllegalArgumentException.class, () -> predictor().decode(state), "for state " + state);
        }
    }
}
