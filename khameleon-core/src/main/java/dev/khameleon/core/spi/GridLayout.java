package dev.khameleon.core.spi;

import dev.khameleon.core.Rect;

/**
 * A grid of {@code rows × cols} equal cells; cell {@code (r, c)} is request {@code r·cols + c}.
 * Immutable. Create with {@link Layout#grid}.
 */
public final class GridLayout implements Layout {
    private final int rows;
    private final int cols;
    private final double originX;
    private final double originY;
    private final double cellWidth;
    private final double cellHeight;

    /** See {@link Layout#grid}. */
    public GridLayout(int rows, int cols, double originX, double originY, double cellWidth, double cellHeight) {
        if (rows < 1 || cols < 1) {
            throw new IllegalArgumentException("grid must have >= 1 row and column, was " + rows + " x " + cols);
        }
        if ((long) rows * cols > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("grid of " + rows + " x " + cols + " has too many cells");
        }
        if (!(cellWidth > 0) || !(cellHeight > 0) || Double.isInfinite(cellWidth) || Double.isInfinite(cellHeight)) {
            throw new IllegalArgumentException("cell size must be finite and > 0, was " + cellWidth + " x " + cellHeight);
        }
        if (!Double.isFinite(originX) || !Double.isFinite(originY)) {
            throw new IllegalArgumentException("grid origin must be finite, was (" + originX + ", " + originY + ")");
        }
        this.rows = rows;
        this.cols = cols;
        this.originX = originX;
        this.originY = originY;
        this.cellWidth = cellWidth;
        this.cellHeight = cellHeight;
    }

    @Override
    public int requestCount() {
        return rows * cols;
    }

    @Override
    public int requestAt(double x, double y) {
        int c = column(x);
        int r = row(y);
        return c < 0 || r < 0 ? -1 : r * cols + c;
    }

    @Override
    public Rect bounds(int requestId) {
        if (requestId < 0 || requestId >= requestCount()) {
            throw new IllegalArgumentException("request id " + requestId + " out of range [0, " + requestCount() + ")");
        }
        int r = requestId / cols;
        int c = requestId % cols;
        return new Rect(originX + c * cellWidth, originY + r * cellHeight, cellWidth, cellHeight);
    }

    /** The column containing pixel x, or {@code -1} outside the grid. */
    public int column(double x) {
        double c = Math.floor((x - originX) / cellWidth);
        return c >= 0 && c < cols ? (int) c : -1;
    }

    /** The row containing pixel y, or {@code -1} outside the grid. */
    public int row(double y) {
        double r = Math.floor((y - originY) / cellHeight);
        return r >= 0 && r < rows ? (int) r : -1;
    }

    /** The number of rows. */
    public int rows() {
        return rows;
    }

    /** The number of columns. */
    public int cols() {
        return cols;
    }

    /** The left edge of the grid in pixels. */
    public double originX() {
        return originX;
    }

    /** The top edge of the grid in pixels. */
    public double originY() {
        return originY;
    }

    /** The width of one cell in pixels. */
    public double cellWidth() {
        return cellWidth;
    }

    /** The height of one cell in pixels. */
    public double cellHeight() {
        return cellHeight;
    }

    /** The whole grid's region in pixels. */
    public Rect area() {
        return new Rect(originX, originY, cols * cellWidth, rows * cellHeight);
    }

    /**
     * The ids of the cells that overlap {@code region} (clipped to the grid), in ascending
     * order; empty if it misses the grid.
     */
    public int[] requestsIn(Rect region) {
        int c0 = clampCol(Math.floor((region.x() - originX) / cellWidth));
        int c1 = clampCol(Math.ceil((region.x() + region.width() - originX) / cellWidth) - 1);
        int r0 = clampRow(Math.floor((region.y() - originY) / cellHeight));
        int r1 = clampRow(Math.ceil((region.y() + region.height() - originY) / cellHeight) - 1);
        if (region.x() >= originX + cols * cellWidth || region.y() >= originY + rows * cellHeight
                || region.x() + region.width() <= originX || region.y() + region.height() <= originY
                || c1 < c0 || r1 < r0) {
            return new int[0];
        }
        int[] ids = new int[(r1 - r0 + 1) * (c1 - c0 + 1)];
        int k = 0;
        for (int r = r0; r <= r1; r++) {
            for (int c = c0; c <= c1; c++) {
                ids[k++] = r * cols + c;
            }
        }
        return ids;
    }

    private int clampCol(double c) {
        return (int) Math.max(0, Math.min(cols - 1, c));
    }

    private int clampRow(double r) {
        return (int) Math.max(0, Math.min(rows - 1, r));
    }

    @Override
    public String toString() {
        return "GridLayout[" + rows + "x" + cols + " cells of " + cellWidth + "x" + cellHeight + " at ("
                + originX + ", " + originY + ")]";
    }
}
