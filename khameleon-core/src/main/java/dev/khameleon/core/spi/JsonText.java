package dev.khameleon.core.spi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Converts predictor states between Jackson's tree and JSON text for the {@code fromJsonText}
 * adapters. Thread-safe (the mapper is configured once and only used).
 */
final class JsonText {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonText() {
    }

    /** {@code state} as compact JSON text; {@code "null"} for a missing state. */
    static String write(JsonNode state) {
        if (state == null) {
            return "null";
        }
        try {
            return MAPPER.writeValueAsString(state);
        } catch (JsonProcessingException e) { // a tree always serialises; kept for the checked signature
            throw new IllegalStateException("cannot write the state as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Parses {@code text} as one JSON document.
     *
     * @throws IllegalStateException if it is null or not exactly one JSON document (a bug in the
     *     application's client half, not bad input from the network)
     */
    static JsonNode read(String text) {
        if (text == null) {
            throw new IllegalStateException("the client predictor returned no state text");
        }
        try {
            JsonNode node = MAPPER.readTree(text);
            if (node == null || node.isMissingNode()) {
                throw new IllegalStateException("the client predictor's state is empty");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the client predictor's state is not one JSON document: "
                    + e.getOriginalMessage(), e);
        }
    }
}
