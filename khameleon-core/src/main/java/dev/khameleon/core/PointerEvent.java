package dev.khameleon.core;

/**
 * One pointer position sample: where the pointer was, in pixels, and when, in milliseconds on
 * the client's clock. The event type of pointer-driven predictors such as the Kalman filter.
 *
 * @param x          horizontal position in pixels, finite
 * @param y          vertical position in pixels, finite
 * @param timeMillis the time of the sample in milliseconds (any fixed origin, e.g. session start)
 */
public record PointerEvent(double x, double y, long timeMillis) {

    /**
     * Validates the position.
     *
     * @throws IllegalArgumentException if {@code x} or {@code y} is not finite
     */
    public PointerEvent {
        if (!Double.isFinite(x) || !Double.isFinite(y)) {
            throw new IllegalArgumentException("pointer position must be finite, was (" + x + ", " + y + ")");
        }
    }
}
