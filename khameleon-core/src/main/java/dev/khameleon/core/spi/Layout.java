package dev.khameleon.core.spi;

import dev.khameleon.core.Rect;

/**
 * Maps screen geometry to request ids for pointer-driven applications: which request a
 * point triggers and which region each request occupies. Implementations are immutable.
 */
public interface Layout {

    /** The number of requests {@code n} this layout covers. */
    int requestCount();

    /** The request at pixel {@code (x, y)}, or {@code -1} when the point triggers none. */
    int requestAt(double x, double y);

    /** The screen region of {@code requestId}, in pixels. */
    Rect bounds(int requestId);

    /**
     * A grid of {@code rows × cols} cells of {@code cellWidth × cellHeight} pixels whose top-left
     * corner is at {@code (originX, originY)}; cell {@code (r, c)} is request {@code r·cols + c}.
     *
     * @throws IllegalArgumentException if a dimension is not positive or the grid has more
     *     than {@code Integer.MAX_VALUE} cells
     */
    static GridLayout grid(int rows, int cols, double originX, double originY, double cellWidth, double cellHeight) {
        return new GridLayout(rows, cols, originX, originY, cellWidth, cellHeight);
    }
}
