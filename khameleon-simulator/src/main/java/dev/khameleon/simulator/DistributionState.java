package dev.khameleon.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.ServerPredictor;

/**
 * The simulator's server predictor: decodes the client's Kalman state with the library's own
 * server half, and a whole distribution sent as a state ({@link #encode}) as itself. The second
 * is how the oracle and the stroke-end forecasts, which the client side of the simulator computes,
 * reach the server's push engine through the same path as a real state.
 *
 * <p>Thread-safe if the wrapped predictor is.
 */
final class DistributionState implements ServerPredictor {
    private static final String EXPLICIT = "explicitDistribution";

    private final ServerPredictor states;
    private final int requestCount;
    private final long[] horizonsMillis;

    /**
     * @param states the server half for the client's own states; null if every state is a
     *               distribution
     */
    DistributionState(ServerPredictor states, int requestCount, long[] horizonsMillis) {
        this.states = states;
        this.requestCount = requestCount;
        this.horizonsMillis = horizonsMillis.clone();
    }

    /** {@code d} as a state this predictor decodes back into {@code d}. */
    static JsonNode encode(Distribution d) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode horizons = root.putArray(EXPLICIT);
        for (int j = 0; j < d.horizonCount(); j++) {
            ObjectNode h = horizons.addObject();
            ArrayNode ids = h.putArray("ids");
            ArrayNode ps = h.putArray("p");
            for (int k = 0; k < d.explicitCount(j); k++) {
                ids.add(d.explicitId(j, k));
                ps.add(d.explicitProbability(j, k));
            }
            h.put("residual", d.residualMass(j));
        }
        return root;
    }

    @Override
    public Distribution decode(JsonNode state) {
        JsonNode horizons = state.get(EXPLICIT);
        if (horizons == null) {
            if (states == null) {
                throw new IllegalArgumentException("expected a distribution state, got " + state);
            }
            return states.decode(state);
        }
        Distribution.Builder b = Distribution.builder(requestCount, horizonsMillis);
        for (int j = 0; j < horizons.size(); j++) {
            JsonNode h = horizons.get(j);
            JsonNode ids = h.get("ids");
            JsonNode ps = h.get("p");
            for (int k = 0; k < ids.size(); k++) {
                b.explicit(j, ids.get(k).asInt(), ps.get(k).asDouble());
            }
            b.residual(j, h.get("residual").asDouble());
        }
        return b.build();
    }
}
