package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * The client half of a predictor: turns the user's interaction events into a compact
 * <em>state</em> that the client streams to the server, where the matching
 * {@link ServerPredictor} decodes it into a distribution over requests.
 *
 * <p>Single-threaded: a client calls {@link #onEvent} and {@link #state} from one thread (or
 * under its own lock); implementations need no synchronisation of their own.
 *
 * @param <E> the event type, e.g. a pointer position with its timestamp
 */
public interface ClientPredictor<E> {

    /** Feeds one interaction event, in time order. */
    void onEvent(E event);

    /**
     * The state to send now, {@code nowMillis} being the client's clock; a small JSON value
     * that the server half understands (e.g. a Kalman filter's mean and covariance per horizon).
     */
    JsonNode state(long nowMillis);

    /**
     * A client half written against JSON text rather than Jackson's tree, the counterpart of
     * {@link ServerPredictor#fromJsonText}: {@code onEvent} receives each event and
     * {@code stateJson} returns the state to send as one JSON document (RFC 8259), which the
     * adapter parses. Same threading as {@link ClientPredictor}.
     *
     * @throws NullPointerException if either argument is null
     */
    static <E> ClientPredictor<E> fromJsonText(Consumer<? super E> onEvent, LongFunction<String> stateJson) {
        Objects.requireNonNull(onEvent, "onEvent");
        Objects.requireNonNull(stateJson, "stateJson");
        return new ClientPredictor<>() {
            @Override
            public void onEvent(E event) {
                onEvent.accept(event);
            }

            @Override
            public JsonNode state(long nowMillis) { // IllegalStateException if the text is not one JSON document

                return JsonText.read(stateJson.apply(nowMillis));
            }
        };
    }
}
