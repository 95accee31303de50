package com.example.mount;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.ServerPredictorContract;
import java.util.List;

/** The server half keeps the {@link ServerPredictor} contract for the states its client half sends. */
class PredictorsTest extends ServerPredictorContract {
    @Override
    protected ServerPredictor predictor() {
        return Predictors.serverHalf(ChartsServer.CHARTS, ChartsServer.HORIZONS);
    }

    @Override
    protected int requestCount() {
        return ChartsServer.CHARTS;
    }

    @Override
    protected List<JsonNode> validStates() {
        ClientPredictor<Integer> client = Predictors.clientHalf();
        JsonNode first = client.state(0);                   // before any hover
        client.onEvent(ChartsServer.CHARTS - 1);
        return List.of(first, client.state(10));
    }

    @Override
    protected List<JsonNode> invalidStates() {
        return List.of(JSON.createObjectNode().put("request", ChartsServer.CHARTS),
                JSON.createObjectNode().put("request", -1),
                JSON.createObjectNode().put("request", "7"), JSON.createArrayNode(), JSON.nullNode());
    }
}
