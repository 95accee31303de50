package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Rect;
import dev.khameleon.core.spi.Layout;

/**
 * Where the page draws the charts, in CSS pixels from the top-left corner of its chart area:
 * three columns, as many rows as the views need, each chart's brushable canvas {@link View#PIXELS} wide and
 * {@value #CHART_HEIGHT} high under a {@value #TITLE_HEIGHT}-pixel title. Request (view) {@code v}
 * is the canvas of view {@code v}, so the server's layout predictor and the page agree on every
 * rectangle: the page positions its canvases from these numbers (sent in {@code info.json}) and
 * feeds its pointer predictor coordinates in the same frame. Immutable.
 */
final class PageLayout implements Layout {
    /** Height of a chart's canvas. */
    static final int CHART_HEIGHT = 110;
    /** Height of the title line above each canvas. */
    static final int TITLE_HEIGHT = 24;
    /** Horizontal gap between two charts. */
    static final int GAP_X = 40;
    /** Vertical gap between a chart and the next row's title. */
    static final int GAP_Y = 26;
    /** Charts per row. */
    static final int COLUMNS = 3;

    private final int views;

    /** The layout of {@code views} charts. */
    PageLayout(int views) {
        this.views = views;
    }

    @Override
    public int requestCount() {
        return views;
    }

    @Override
    public int requestAt(double x, double y) {
        for (int v = 0; v < requestCount(); v++) {
            Rect r = bounds(v);
            if (x >= r.x() && x < r.x() + r.width() && y >= r.y() && y < r.y() + r.height()) {
                return v;
            }
        }
        return -1;
    }

    @Override
    public Rect bounds(int requestId) {
        if (requestId < 0 || requestId >= requestCount()) {
            throw new IllegalArgumentException("no view " + requestId);
        }
        int col = requestId % COLUMNS;
        int row = requestId / COLUMNS;
        return new Rect(col * (View.PIXELS + GAP_X), row * (TITLE_HEIGHT + CHART_HEIGHT + GAP_Y) + TITLE_HEIGHT,
                View.PIXELS, CHART_HEIGHT);
    }

    /** Width of the whole chart area. */
    int width() {
        return COLUMNS * View.PIXELS + (COLUMNS - 1) * GAP_X;
    }

    /** Height of the whole chart area. */
    int height() {
        int rows = (views + COLUMNS - 1) / COLUMNS;
        return rows * (TITLE_HEIGHT + CHART_HEIGHT) + (rows - 1) * GAP_Y;
    }
}
