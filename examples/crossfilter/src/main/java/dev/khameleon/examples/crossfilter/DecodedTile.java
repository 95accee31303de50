package dev.khameleon.examples.crossfilter;

import java.util.List;

/**
 * A tile reconstructed from a prefix of its blocks by {@link TileDecoder}: exact where its rows
 * arrived, linearly interpolated between them elsewhere. Immutable.
 */
public final class DecodedTile {
    private final TileKey key;
    private final int[][][] rows; // [passive index][row] -> counts per bin, null when absent
    private final int[][] totals;
    private final int rowsPresent;

    DecodedTile(TileKey key, int[][][] rows, int[][] totals, int rowsPresent) {
        this.key = key;
        this.rows = rows;
        this.totals = totals;
        this.rowsPresent = rowsPresent;
    }

    /** The active view and the other views' brushes this tile answers for. */
    public TileKey key() {
        return key;
    }

    /** How many of the {@link Slice#ROWS} rows arrived; the rest are interpolated. */
    public int rowsPresent() {
        return rowsPresent;
    }

    /** Whether every row arrived, so every answer is exact. */
    public boolean isExact() {
        return rowsPresent == Slice.ROWS;
    }

    /**
     * The histogram {@code passive} shows for a brush {@code [from, to)} on the active view
     * (its totals for an empty brush): row {@code to} minus row {@code from}, each interpolated
     * when it has not arrived.
     *
     * @throws IllegalArgumentException if {@code passive} is the active view or the brush is
     *     not {@code 0 <= from <= to <= PIXELS}
     */
    public double[] histogram(View passive, int from, int to) {
        if (from < 0 || from > to || to > View.PIXELS) {
            throw new IllegalArgumentException("brush must satisfy 0 <= from <= to <= " + View.PIXELS + ", was ["
                    + from + ", " + to + ")");
        }
        int i = index(passive);
        double[] h = new double[passive.bins()];
        for (int b = 0; b < h.length; b++) {
            h[b] = from == to ? totals[i][b] : row(i, to, b) - row(i, from, b);
        }
        return h;
    }

    /** The exact tile. @throws IllegalStateException unless {@link #isExact()} */
    public Tile toTile() {
        if (!isExact()) {
            throw new IllegalStateException("only " + rowsPresent + " of " + Slice.ROWS + " rows arrived");
        }
        List<View> passives = Tile.passives(key.active());
        java.util.ArrayList<Slice> slices = new java.util.ArrayList<>();
        for (int i = 0; i < passives.size(); i++) {
            int bins = passives.get(i).bins();
            int[] cumulative = new int[Slice.ROWS * bins];
            for (int p = 0; p < Slice.ROWS; p++) {
                System.arraycopy(rows[i][p], 0, cumulative, p * bins, bins);
            }
            slices.add(new Slice(passives.get(i), cumulative, totals[i].clone()));
        }
        return new Tile(key, slices);
    }

    private int index(View passive) {
        int i = Tile.passives(key.active()).indexOf(passive);
        if (i < 0) {
            throw new IllegalArgumentException(passive + " is the active view of this tile, not a passive one");
        }
        return i;
    }

    private double row(int i, int p, int b) {
        int[][] r = rows[i];
        if (r[p] != null) {
            return r[p][b];
        }
        int lo = p - 1;
        while (r[lo] == null) { // row 0 is always present (a bin edge)
            lo--;
        }
        int hi = p + 1;
        while (r[hi] == null) { // so is row PIXELS
            hi++;
        }
        return r[lo][b] + (r[hi][b] - r[lo][b]) * (double) (p - lo) / (hi - lo);
    }
}
