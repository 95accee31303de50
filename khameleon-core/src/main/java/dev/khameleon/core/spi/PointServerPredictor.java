package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;

/** Decodes {@code {"request": id}} into mass on {@code id}, optionally decaying to uniform. */
final class PointServerPredictor implements ServerPredictor {
    private final int requestCount;
    private final long[] horizonsMillis;
    private final double halfLifeMillis;
    private final Distribution uniform;

    PointServerPredictor(int requestCount, long[] horizonsMillis, double halfLifeMillis) {
        this.uniform = Distribution.uniform(requestCount, horizonsMillis);
        this.requestCount = requestCount;
        this.horizonsMillis = horizonsMillis.clone();
        this.halfLifeMillis = halfLifeMillis;
    }

    @Override
    public Distribution decode(JsonNode state) {
        if (state == null || !state.isObject()) {
            throw new IllegalArgumentException("point predictor state must be a JSON object like {\"request\": 3}");
        }
        JsonNode field = state.get("request");
        if (field == null || field.isNull()) {
            return uniform;
        }
        if (!field.canConvertToInt() || !field.isIntegralNumber()) {
            throw new IllegalArgumentException("point predictor state: \"request\" must be an integer, was " + field);
        }
        int id = field.intValue();
        if (id == -1) {
            return uniform;
        }
        if (id < 0 || id >= requestCount) {
            throw new IllegalArgumentException("point predictor state: request " + id
                    + " out of range [0, " + requestCount + ")");
        }
        Distribution.Builder b = Distribution.builder(requestCount, horizonsMillis);
        for (int j = 0; j < horizonsMillis.length; j++) {
            double mass = Double.isInfinite(halfLifeMillis) ? 1.0 : Math.pow(2, -horizonsMillis[j] / halfLifeMillis);
            b.explicit(j, id, mass);
            b.residual(j, requestCount > 1 ? 1.0 - mass : 0.0);
        }
        return b.build();
    }

    @Override
    public String toString() {
        return "ServerPredictor.point(n=" + requestCount + ", halfLife=" + halfLifeMillis + " ms)";
    }
}
