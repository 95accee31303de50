package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;

import java.util.Objects;
import java.util.function.Function;

/**
 * The server half of a predictor: decodes a state sent by the client half into a
 * {@link Distribution} over the application's requests.
 *
 * <p>States come from the network: an implementation must treat them as untrusted and throw
 * {@link IllegalArgumentException} with a clear message for anything malformed, never
 * return a distribution built from garbage. Implementations must be thread-safe.
 */
public interface ServerPredictor {

    /**
     * Decodes {@code state} into a distribution.
     *
     * @throws IllegalArgumentException if the state is malformed or out of range
     */
    Distribution decode(JsonNode state);

    /**
     * A server half written against each state's JSON text rather than Jackson's tree, so that an
     * application can read states with the JSON library of its choice (or none) and does not
     * depend on the Jackson version Khameleon uses. {@code decoder} gets the state the client half
     * sent as one compact JSON document (RFC 8259: no insignificant whitespace, members in the
     * order sent; {@code null} for a missing state) and must keep {@link #decode}'s contract:
     * thread-safe, {@link IllegalArgumentException} with a clear message for a malformed or
     * out-of-range state, never {@code null}. The text is a stable form of the state: it does not
     * change with Khameleon's JSON library.
     *
     * <p>Costs one serialisation of the (small) state per decode.
     *
     * @throws NullPointerException if {@code decoder} is null
     */
    static ServerPredictor fromJsonText(Function<String, Distribution> decoder) {
        Objects.requireNonNull(decoder, "decoder");
        return state -> {
            Distribution d = decoder.apply(JsonText.write(state));
            if (d == null) {
                throw new IllegalStateException("the state decoder returned null for " + JsonText.write(state));
            }
            return d;
        };
    }

    /** Ignores the state: every request is equally likely at every horizon. */
    static ServerPredictor uniform(int requestCount, long... horizonsMillis) {
        Distribution d = Distribution.uniform(requestCount, horizonsMillis);
        return state -> d;
    }

    /**
     * The point predictor: the state {@code {"request": id}} names the last request, which gets
     * all the mass at every horizon; {@code {"request": -1}} or a missing id means no request
     * yet and decodes to the uniform distribution.
     */
    static ServerPredictor point(int requestCount, long... horizonsMillis) {
        return new PointServerPredictor(requestCount, horizonsMillis, Double.POSITIVE_INFINITY);
    }

    /**
     * The point predictor with decay towards uniform: at horizon {@code Δ} the last request has
     * mass {@code 2^(-Δ / halfLifeMillis)} and the rest is spread uniformly over the others.
     *
     * @throws IllegalArgumentException if {@code halfLifeMillis} is not positive
     */
    static ServerPredictor pointDecaying(int requestCount, double halfLifeMillis, long... horizonsMillis) {
        if (!(halfLifeMillis > 0)) {
            throw new IllegalArgumentException("halfLifeMillis must be > 0, was " + halfLifeMillis);
        }
        return new PointServerPredictor(requestCount, horizonsMillis, halfLifeMillis);
    }
}
