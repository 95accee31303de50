package dev.khameleon.core;

/**
 * An axis-aligned rectangle in pixels: {@code [x, x + width) × [y, y + height)}.
 *
 * @param x      left edge
 * @param y      top edge
 * @param width  width, non-negative
 * @param height height, non-negative
 */
public record Rect(double x, double y, double width, double height) {

    /** Validates that all values are finite and the size non-negative. */
    public Rect {
        if (!Double.isFinite(x) || !Double.isFinite(y) || !Double.isFinite(width) || !Double.isFinite(height)) {
            throw new IllegalArgumentException("rectangle values must be finite: " + x + ", " + y + ", " + width + ", " + height);
        }
        if (width < 0 || height < 0) {
            throw new IllegalArgumentException("rectangle size must be >= 0, was " + width + " x " + height);
        }
    }

    /** Whether {@code (px, py)} lies inside (left and top edges inclusive). */
    public boolean contains(double px, double py) {
        return px >= x && px < x + width && py >= y && py < y + height;
    }

    /** The x coordinate of the centre. */
    public double centerX() {
        return x + width / 2;
    }

    /** The y coordinate of the centre. */
    public double centerY() {
        return y + height / 2;
    }
}
