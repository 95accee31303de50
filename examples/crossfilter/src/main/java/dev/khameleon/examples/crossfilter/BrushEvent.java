package dev.khameleon.examples.crossfilter;

/**
 * One recorded brush movement: at {@code timeMs} after the task started, the brush on
 * {@code view} covered pixels {@code [from, to)} ({@code from == to}: an empty brush, filtering
 * nothing).
 *
 * @param timeMs  milliseconds since the start of the task
 * @param view    the brushed view, which is the active view
 * @param from    first brushed pixel
 * @param to      pixel after the last brushed one
 * @param brushId the benchmark's brush identifier
 */
public record BrushEvent(long timeMs, View view, int from, int to, int brushId) {
    /**
     * Validates the range.
     *
     * @throws IllegalArgumentException unless {@code 0 <= from <= to <= PIXELS}
     */
    public BrushEvent {
        if (from < 0 || from > to || to > View.PIXELS) {
            throw new IllegalArgumentException("brush on " + view + " must satisfy 0 <= from <= to <= "
                    + View.PIXELS + ", was [" + from + ", " + to + ")");
        }
    }

    /** Whether the brush covers at least one pixel. */
    public boolean isEmpty() {
        return from == to;
    }
}
