package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reconstructs a tile from any prefix of the blocks {@link TileEncoder} made: rows that have
 * not arrived are interpolated linearly between the nearest rows that have (the cumulative
 * counts grow evenly across the gap), so a prefix draws every passive histogram for every
 * brush, approximately, and all blocks draw it exactly.
 *
 * <p>Input from the network is checked: a wrong magic or version, an unknown view, a brush out
 * of range, a length that is not whole rows, negative counts, rows that decrease or exceed
 * the totals, or blocks that are not a prefix of one response are rejected with an
 * {@link IllegalArgumentException} that says what is wrong. Stateless and thread-safe.
 */
public final class TileDecoder {
    private TileDecoder() {
    }

    /**
     * Decodes the blocks {@code 0..k-1} of one response, a tile of one of {@code views}.
     *
     * @throws IllegalArgumentException if the blocks are not such a prefix or are corrupt
     */
    public static DecodedTile decode(Views views, List<Block> prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("corrupt tile: no blocks (block 0 is needed)");
        }
        Block head = prefix.get(0);
        int total = 0;
        for (int i = 0; i < prefix.size(); i++) {
            Block b = prefix.get(i);
            if (b.index() != i || b.count() != head.count() || b.requestId() != head.requestId()) {
                throw new IllegalArgumentException("corrupt tile: blocks are not a prefix of one response: block " + i
                        + " is " + b);
            }
            total += b.content().remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(total);
        List<Integer> blockEnds = new ArrayList<>();
        for (Block b : prefix) {
            all.put(b.content());
            blockEnds.add(all.position());
        }
        all.flip();
        try {
            return parse(views, all, blockEnds, prefix.size() == head.count());
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("corrupt tile: block 0 is truncated", e);
        }
    }

    private static DecodedTile parse(Views views, ByteBuffer in, List<Integer> blockEnds, boolean complete) {
        int magic = in.getInt();
        if (magic != TileEncoder.MAGIC) {
            throw new IllegalArgumentException("corrupt tile: bad magic 0x" + Integer.toHexString(magic));
        }
        byte version = in.get();
        if (version != TileEncoder.VERSION) {
            throw new IllegalArgumentException("corrupt tile: unsupported version " + version);
        }
        int activeOrdinal = in.get();
        if (activeOrdinal < 0 || activeOrdinal >= views.size()) {
            throw new IllegalArgumentException("corrupt tile: unknown active view " + activeOrdinal);
        }
        View active = views.get(activeOrdinal);
        Filters filters = Filters.none(views);
        for (View v : views) {
            int from = in.getShort();
            int to = in.getShort();
            if (from == -1 && to == -1) {
                continue;
            }
            if (v == active || from < 0 || from >= to || to > View.PIXELS) {
                throw new IllegalArgumentException("corrupt tile: bad brush [" + from + ", " + to + ") on " + v);
            }
            filters = filters.with(v, from, to);
        }
        TileKey key = new TileKey(active, filters);
        List<View> passives = Tile.passives(active);
        int[][] totals = new int[passives.size()][];
        for (int i = 0; i < passives.size(); i++) {
            totals[i] = new int[passives.get(i).bins()];
            for (int b = 0; b < totals[i].length; b++) {
                totals[i][b] = nonNegative(in.getInt(), "total");
            }
        }
        int rowBytes = TileEncoder.rowBytes(active);
        int edges = TileEncoder.edgeRows(active);
        if (in.position() + edges * rowBytes > blockEnds.get(0)) {
            throw new IllegalArgumentException("corrupt tile: block 0 holds fewer than the " + edges + " bin-edge rows");
        }
        int start = in.position();
        for (int i = 0; i < blockEnds.size(); i++) {
            int from = i == 0 ? start : blockEnds.get(i - 1);
            if ((blockEnds.get(i) - from) % rowBytes != 0) {
                throw new IllegalArgumentException("corrupt tile: block " + i + " does not hold whole rows of "
                        + rowBytes + " bytes");
            }
        }
        int rowsPresent = (in.limit() - start) / rowBytes;
        List<Integer> order = TileEncoder.rowOrder(active);
        if (rowsPresent > order.size() || (complete && rowsPresent != order.size())) {
            throw new IllegalArgumentException("corrupt tile: " + rowsPresent + " rows, expected "
                    + (complete ? "" : "at most ") + order.size());
        }
        int[][][] rows = new int[passives.size()][Slice.ROWS][];
        for (int r = 0; r < rowsPresent; r++) {
            int pixel = order.get(r);
            for (int i = 0; i < passives.size(); i++) {
                int[] row = new int[passives.get(i).bins()];
                for (int b = 0; b < row.length; b++) {
                    row[b] = nonNegative(in.getInt(), "count");
                }
                rows[i][pixel] = row;
            }
        }
        checkMonotone(passives, rows, totals);
        return new DecodedTile(key, rows, totals, rowsPresent);
    }

    private static int nonNegative(int v, String what) {
        if (v < 0) {
            throw new IllegalArgumentException("corrupt tile: negative " + what + " " + v);
        }
        return v;
    }

    private static void checkMonotone(List<View> passives, int[][][] rows, int[][] totals) {
        for (int i = 0; i < passives.size(); i++) {
            int[] previous = null;
            int previousRow = -1;
            for (int p = 0; p < Slice.ROWS; p++) {
                int[] row = rows[i][p];
                if (row == null) {
                    continue;
                }
                for (int b = 0; b < row.length; b++) {
                    if ((previous == null && p == 0 && row[b] != 0) || (previous != null && row[b] < previous[b])
                            || row[b] > totals[i][b]) {
                        throw new IllegalArgumentException("corrupt tile: cumulative counts of " + passives.get(i)
                                + " bin " + b + " are not non-decreasing from 0 up to the total at row " + p
                                + " (previous known row " + previousRow + ")");
                    }
                }
                previous = row;
                previousRow = p;
            }
        }
    }
}
