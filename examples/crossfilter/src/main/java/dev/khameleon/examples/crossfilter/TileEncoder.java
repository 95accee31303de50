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
 * view index byte, then per view in order its brush as two shorts, {@code -1, -1} for none); the totals of every passive view; then rows in {@link #rowOrder} order, each the
 * counts of every passive view's bins. Block 0 holds the header, the totals and the bin-edge
 * rows; every later block holds whole rows; the unused end of a block is padding.
 *
 * <p>The block size must hold every view's first block ({@link #firstBlockBytes}), which grows
 * with the bins: {@link #withBlockSize} refuses a smaller one, naming the view and the bytes it
 * needs; {@link #fitting} adapts: {@value #DEFAULT_BLOCK_SIZE} bytes, or the largest first block
 * rounded up to a whole KiB when that is larger. Immutable and thread-safe.
 */
public final class TileEncoder implements ProgressiveEncoder<Tile> {
    /** Default block size: fits the largest first block of the flights views (about 11.4 KB). */
    public static final int DEFAULT_BLOCK_SIZE = 12 * 1024;

    static final int MAGIC = 0x4B584631; // "KXF1"
    static final byte VERSION = 1;
    private final Views views;
    private final int blockSize;

    private TileEncoder(Views views, int blockSize) {
        this.views = views;
        this.blockSize = blockSize;
    }

    /**
     * An encoder of the tiles of {@code views} with blocks of {@code blockSize} bytes.
     *
     * @throws IllegalArgumentException if {@code blockSize} is smaller than a view's first block,
     *     in one line naming the view with the largest and the bytes it needs
     */
    public static TileEncoder withBlockSize(Views views, int blockSize) {
        View largest = largestFirstBlock(views);
        int needed = firstBlockBytes(largest);
        if (blockSize < needed) {
            throw new IllegalArgumentException("blockSize must be >= " + needed + ", was " + blockSize
                    + ": the first block of a tile of view " + largest + " (table " + views.table() + ") needs "
                    + needed + " bytes");
        }
        return new TileEncoder(views, blockSize);
    }

    /**
     * An encoder of the tiles of {@code views} whose block size adapts to them
     * ({@link #fittingBlockSize}).
     */
    public static TileEncoder fitting(Views views) {
        return new TileEncoder(views, fittingBlockSize(views));
    }

    /**
     * The block size {@link #fitting} takes: {@value #DEFAULT_BLOCK_SIZE} bytes, or the largest
     * first block of {@code views} rounded up to a multiple of 1024 when that is larger.
     */
    public static int fittingBlockSize(Views views) {
        int needed = minimumBlockSize(views);
        return Math.max(DEFAULT_BLOCK_SIZE, (needed + 1023) / 1024 * 1024);
    }

    /** The smallest block size that holds the first block of a tile of any view of {@code views}. */
    public static int minimumBlockSize(Views views) {
        return firstBlockBytes(largestFirstBlock(views));
    }

    private static View largestFirstBlock(Views views) {
        View largest = null;
        for (View v : views) {
            if (largest == null || firstBlockBytes(v) > firstBlockBytes(largest)) {
                largest = v;
            }
        }
        return largest;
    }

    /** The views whose tiles this encoder encodes. */
    public Views views() {
        return views;
    }

    /** Bytes of a tile's header over {@code views}: magic, version, active view, one brush per view. */
    static int headerBytes(Views views) {
        return 4 + 1 + 1 + views.size() * 4;
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

    /** Bytes of the first block of a tile of {@code active}: header, totals and bin-edge rows. */
    public static int firstBlockBytes(View active) {
        return headerBytes(active.views()) + rowBytes(active) + edgeRows(active) * rowBytes(active);
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

    /** @throws IllegalArgumentException if the tile is not of this encoder's views */
    @Override
    public List<Block> encode(int requestId, Tile tile) {
        View active = tile.key().active();
        if (active.views() != views) {
            throw new IllegalArgumentException("tile of " + active.views() + ", encoder of " + views);
        }
        List<Integer> order = rowOrder(active);
        int rowBytes = rowBytes(active);
        int rowsPerBlock = blockSize / rowBytes;
        int count = blockCount(active);
        int edges = edgeRows(active);
        List<Block> blocks = new ArrayList<>(count);

        ByteBuffer first = ByteBuffer.allocate(blockSize);
        first.putInt(MAGIC).put(VERSION).put((byte) active.index());
        Filters f = tile.key().filters();
        for (View v : active.views()) {
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
