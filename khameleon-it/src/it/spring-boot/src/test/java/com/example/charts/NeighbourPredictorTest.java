package com.example.charts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.ServerPredictorContract;
import java.util.List;

/** The server half keeps the {@link ServerPredictor} contract for the states its client half sends. */
class NeighbourPredictorTest extends ServerPredictorContract {
    @Override
    protected ServerPredictor predictor() {
        return new NeighbourPredictor(ChartsApplication.CHARTS, ChartsApplication.HORIZONS);
    }

    @Override
    protected int requestCount() {
        return ChartsApplication.CHARTS;
    }

    @Override
    protected List<JsonNode> validStates() {
        LastHoverPredictor client = new LastHoverPredictor();
        JsonNode noHoverYet = client.state(0);
        client.onEvent(0);
        JsonNode first = client.state(1);
        client.onEvent(ChartsApplication.CHARTS - 1);
        return List.of(noHoverYet, first, client.state(10));
    }

    @Override
    protected List<JsonNode> invalidStates() {
        return List.of(JSON.createObjectNode().put("request", -2),
                JSON.createObjectNode().put("request", ChartsApplication.CHARTS),
                JSON.createObjectNode().put("request", "7"), JSON.createArrayNode(), JSON.nullNode());
    }
}
