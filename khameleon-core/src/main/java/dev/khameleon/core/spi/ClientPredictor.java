package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;

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
}
