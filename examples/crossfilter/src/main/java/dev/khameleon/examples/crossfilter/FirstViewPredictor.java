package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.core.spi.ServerPredictor;

import java.util.Objects;

/**
 * The predicted application's predictor: before the page has seen the pointer (the empty state
 * {@code {}} its Kalman filter sends until then), the probability of each view being the first
 * one brushed; afterwards {@code delegate}'s decoding of the pointer forecast. The layout
 * predictor alone would answer the empty state with its prior for "no chart under the pointer",
 * which is meant for a pointer between charts, later in a session. Thread-safe if
 * {@code delegate} is.
 */
final class FirstViewPredictor implements ServerPredictor {
    private final Distribution first;
    private final ServerPredictor delegate;

    /**
     * @param first    the distribution before the first pointer position (also the application's
     *                 initial distribution)
     * @param delegate decodes every other state
     */
    FirstViewPredictor(Distribution first, ServerPredictor delegate) {
        this.first = Objects.requireNonNull(first, "first");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public Distribution decode(JsonNode state) {
        return PointerForecast.isEmptyState(state) ? first : delegate.decode(state);
    }

    /** The delegate, for tests. */
    ServerPredictor delegate() {
        return delegate;
    }

    @Override
    public String toString() {
        return "FirstViewPredictor[" + delegate + "]";
    }
}
