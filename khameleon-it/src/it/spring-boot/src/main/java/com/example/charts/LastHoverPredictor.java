package com.example.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.spi.ClientPredictor;

/**
 * Client half of a "the user stays where they are" predictor: the state is the last hover.
 * It pairs with {@link NeighbourPredictor}; a UI (here the test's Java client) uses it.
 */
public final class LastHoverPredictor implements ClientPredictor<Integer> {
    private int lastRequest = -1;

    @Override
    public void onEvent(Integer hoveredRequest) {
        lastRequest = hoveredRequest;
    }

    @Override
    public JsonNode state(long nowMillis) {
        return JsonNodeFactory.instance.objectNode().put("request", lastRequest);
    }
}
