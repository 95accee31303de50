package com.example.charts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.ServerPredictor;

/**
 * Server half for a list of items: the user is likely to move to a neighbour of the last
 * item, more so the further ahead we look. Decodes {@code {"request": id}}; the client half's
 * {@code -1} (nothing hovered yet) makes every item equally likely.
 */
final class NeighbourPredictor implements ServerPredictor {
    private final int requestCount;
    private final long[] horizonsMillis;

    NeighbourPredictor(int requestCount, long... horizonsMillis) {
        this.requestCount = requestCount;
        this.horizonsMillis = horizonsMillis.clone();
    }

    @Override
    public Distribution decode(JsonNode state) {
        JsonNode id = state == null ? null : state.get("request");
        if (id == null || !id.isInt() || id.intValue() < -1 || id.intValue() >= requestCount) {
            throw new IllegalArgumentException("state must be {\"request\": id} with id in [-1, "
                    + requestCount + "), was " + state);
        }
        int last = id.intValue();
        if (last == -1) {
            return Distribution.uniform(requestCount, horizonsMillis);   // no hover yet
        }
        Distribution.Builder d = Distribution.builder(requestCount, horizonsMillis);
        for (int j = 0; j < horizonsMillis.length; j++) {
            double stay = 0.6 / (j + 1);
            double explicit = stay;
            d.explicit(j, last, stay);
            for (int next : new int[] {last - 1, last + 1}) {
                if (next >= 0 && next < requestCount) {
                    d.explicit(j, next, 0.15);
                    explicit += 0.15;
                }
            }
            // Whatever is left is spread evenly over every other item.
            d.residual(j, requestCount > 3 ? 1.0 - explicit : 0.0);
        }
        return d.build();
    }
}
