package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * A progressive encoding of a {@link Tile}: the first block is coarse but complete (the totals
 * and the rows at the active view's bin edges, so every passive histogram can be drawn), and
 * each later block adds rows in order of halving stride (every 256th pixel row, then every
 * 128th, ..., then every row), so any prefix is an evenly spread subset of the rows that
 * {@link TileDecoder} interpolates between. All blocks give the tile exactly.
 *
 * <p>Format (big-endian), in order: the header (magic {@code "KXF1"}, version byte 1, active
 * view ordinal byte, then per view in {@link View} order its brush as two shorts, {@code -1, -1}
 * for none); the totals of every passive view; then rows in {@link #rowOrder} order, each the
 * counts of every passive view's bins. Block 0 holds the header, the totals and the bin-edge
 * rows; every later block holds whole rows; the unused end of a block is padding.
 * Thread-safe and stateless.
 */
public final class TileEncoder implements ProgressiveEncoder<Tile> {
    /** Default block size: fits the largest first block of the flights views (about 11.4 KB). */
    public static final int DEFAULT_BLOCK_SIZE = 12 * 1024;

    static final int MAGIC = 0x4B584631; // "KXF1"
    static final byte VERSION = 1;
    static final int HEADER_BYTES = 4 + 1 + 1 + View.values().length * 4;

    private final int blockSize;

    private TileEncoder(int blockSize) {
        this.blockSize = blockSize;
    }

    /**
     * An encoder with blocks of {@code blockSize} bytes.
     *
     * @throws IllegalArgumentException if {@code blockSize} is smaller than the largest first
     *     block ({@link #minimumBlockSize()}), naming both
     */
    public static TileEncoder withBlockSize(int blockSize) {
        if (blockSize < minimumBlockSize()) {
            throw new IllegalArgumentException("blockSize must be >= " + minimumBlockSize()
                    + " (the largest first block of a flights tile), was " + blockSize);
        }
        return new TileEncoder(blockSize);
    }

    /** The smallest block size that holds the first block of a tile of any active view. */
    public static int minimumBlockSize() {
        int max = 0;
        for (View v : View.values()) {
            max = Math.max(max, firstBlockBytes(v));
        }
        return max;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    /** Bytes of one row of a tile of {@code active}: 4 per bin of every passive view. */
    static int rowBytes(View active) {
        int bins = 0;
        for (View p : Tile.passives(active)) {
            bins += p.bins();
        }
        return bins * 4;
    }

    /** Number of rows in the first block: the distinct bin-edge pixels of {@code active}. */
    static int edgeRows(View active) {
        TreeSet<Integer> edges = new TreeSet<>();
        for (int k = 0; k <= active.bins(); k++) {
            edges.add(active.binEdgePixel(k));
        }
        return edges.size();
    }

    static int firstBlockBytes(View active) {
        return HEADER_BYTES + rowBytes(active) + edgeRows(active) * rowBytes(active);
    }

    /**
     * The order rows are sent in for a tile of {@code active}: the bin-edge rows ascending, then
     * for stride 256, 128, ..., 1 the not yet sent multiples of the stride, ascending.
     */
    static List<Integer> rowOrder(View active) {
        TreeSet<Integer> sent = new TreeSet<>();
        List<Integer> order = new ArrayList<>(Slice.ROWS);
        for (int k = 0; k <= active.bins(); k++) {
            if (sent.add(active.binEdgePixel(k))) {
                order.add(active.binEdgePixel(k));
            }
        }
        Collections.sort(order);
        for (int stride = 256; stride >= 1; stride /= 2) {
            for (int p = 0; p < Slice.ROWS; p += stride) {
                if (sent.add(p)) {
                    order.add(p);
                }
            }
        }
        return Collections.unmodifiableList(order);
    }

    /** Number of blocks a tile of {@code active} takes with this encoder's block size. */
    public int blockCount(View active) {
        int rowsPerBlock = blockSize / rowBytes(active);
        int rest = Slice.ROWS - edgeRows(active);
        return 1 + (rest + rowsPerBlock - 1) / rowsPerBlock;
    }

    @Override
    public List<Block> encode(int requestId, Tile tile) {
        View active = tile.key().active();
        List<Integer> order = rowOrder(active);
        int rowBytes = rowBytes(active);
        int rowsPerBlock = blockSize / rowBytes;
        int count = blockCount(active);
        int edges = edgeRows(active);
        List<Block> blocks = new ArrayList<>(count);

        ByteBuffer first = ByteBuffer.allocate(blockSize);
        first.putInt(MAGIC).put(VERSION).put((byte) active.ordinal());
        Filters f = tile.key().filters();
        for (View v : View.values()) {
            first.putShort((short) f.from(v)).putShort((short) f.to(v));
        }
        for (Slice s : tile.slices()) {
            for (int t : s.totals()) {
                first.putInt(t);
            }
        }
        for (int i = 0; i < edges; i++) {
            putRow(first, tile, order.get(i));
        }
        blocks.add(Block.wrap(requestId, 0, count, first.array(), blockSize - first.position()));

        int next = edges;
        for (int b = 1; b < count; b++) {
            ByteBuffer buf = ByteBuffer.allocate(blockSize);
            for (int i = 0; i < rowsPerBlock && next < order.size(); i++) {
                putRow(buf, tile, order.get(next++));
            }
            blocks.add(Block.wrap(requestId, b, count, buf.array(), blockSize - buf.position()));
        }
        return Collections.unmodifiableList(blocks);
    }

    private static void putRow(ByteBuffer buf, Tile tile, int row) {
        for (Slice s : tile.slices()) {
            for (int b = 0; b < s.passive().bins(); b++) {
                buf.putInt(s.at(row, b));
            }
        }
    }

    @Override
    public String toString() {
        return "TileEncoder(" + blockSize + ")";
    }
}
