package dev.khameleon.examples.crossfilter;

import java.util.Arrays;

/**
 * One passive view's part of a {@link Tile}: for active view A and passive view B, the
 * cumulative counts {@code row[p][b]} = number of rows passing the other views' brushes whose A
 * pixel is below {@code p} and whose B value is in bin {@code b}, for {@code p = 0..PIXELS}, and
 * the totals {@code total[b]} over all rows passing those brushes whatever their A value (what B
 * shows while A has no brush). Immutable.
 *
 * @param passive  the passive view B
 * @param cumulative {@code (PIXELS + 1) × B.bins()} counts, row-major
 * @param totals   {@code B.bins()} counts
 */
public record Slice(View passive, int[] cumulative, int[] totals) {
    /** Rows of every slice: one per pixel edge of the active view. */
    public static final int ROWS = View.PIXELS + 1;

    /**
     * Validates the shape.
     *
     * @throws IllegalArgumentException if an array has the wrong length
     */
    public Slice {
        if (cumulative.length != ROWS * passive.bins() || totals.length != passive.bins()) {
            throw new IllegalArgumentException("slice of " + passive + " must have " + ROWS + " x " + passive.bins()
                    + " cumulative counts and " + passive.bins() + " totals, had " + cumulative.length + " and "
                    + totals.length);
        }
    }

    /**
     * Builds the slice from per-pixel counts: {@code pixelCounts[p][b]} for {@code p} in
     * {@code [0, PIXELS)} and {@code outside[b]} for rows whose A value lies in no pixel.
     */
    static Slice fromPixelCounts(View passive, long[][] pixelCounts, long[] outside) {
        int bins = passive.bins();
        int[] cumulative = new int[ROWS * bins];
        int[] totals = new int[bins];
        long[] running = new long[bins];
        for (int p = 0; p < View.PIXELS; p++) {
            for (int b = 0; b < bins; b++) {
                running[b] += pixelCounts[p][b];
                cumulative[(p + 1) * bins + b] = Math.toIntExact(running[b]);
            }
        }
        for (int b = 0; b < bins; b++) {
            totals[b] = Math.toIntExact(running[b] + outside[b]);
        }
        return new Slice(passive, cumulative, totals);
    }

    /** Count in row {@code row} (pixel edge), bin {@code bin}. */
    public int at(int row, int bin) {
        return cumulative[row * passive.bins() + bin];
    }

    /**
     * The histogram B shows for a brush {@code [from, to)} on the active view: row {@code to}
     * minus row {@code from}; the totals when the brush is empty.
     */
    public int[] histogram(int from, int to) {
        int bins = passive.bins();
        if (from == to) {
            return totals.clone();
        }
        int[] h = new int[bins];
        for (int b = 0; b < bins; b++) {
            h[b] = at(to, b) - at(from, b);
        }
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Slice s && s.passive == passive && Arrays.equals(s.cumulative, cumulative)
                && Arrays.equals(s.totals, totals);
    }

    @Override
    public int hashCode() {
        return (passive.hashCode() * 31 + Arrays.hashCode(cumulative)) * 31 + Arrays.hashCode(totals);
    }

    @Override
    public String toString() {
        return "Slice[" + passive + ", totals=" + Arrays.toString(totals) + "]";
    }
}
