package dev.khameleon.examples.crossfilter;

/** Tiles counted row by row in Java: the reference the SQL backends are checked against. */
final class JavaCounts {
    private JavaCounts() {
    }

    static Slice slice(FlightsTable table, TileKey key, View passive) {
        View a = key.active();
        long[][] counts = new long[View.PIXELS][passive.bins()];
        long[] outside = new long[passive.bins()];
        for (int r = 0; r < table.size(); r++) {
            double[] row = table.row(r);
            int b = passive.binOf(row[passive.index()]);
            if (b < 0 || !key.filters().accepts(row, a, passive)) {
                continue;
            }
            int p = Double.isNaN(row[a.index()]) ? -1 : a.pixelOf(row[a.index()]);
            if (p >= 0 && p < View.PIXELS) {
                counts[p][b]++;
            } else {
                outside[b]++;
            }
        }
        return Slice.fromPixelCounts(passive, counts, outside);
    }

    static Tile tile(FlightsTable table, TileKey key) {
        return new Tile(key, Tile.passives(key.active()).stream().map(p -> slice(table, key, p)).toList());
    }
}
