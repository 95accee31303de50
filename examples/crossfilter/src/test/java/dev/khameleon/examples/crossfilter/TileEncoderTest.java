package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TileEncoderTest {
    private static final Filters OTHERS = FlightsViews.none().with(FlightsViews.DEP_DELAY, 35, 210).with(FlightsViews.AIR_TIME, 0, 200);
    private static FlightsTable table;
    private static final TileEncoder ENCODER = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);

    @BeforeAll
    static void read() throws Exception {
        table = FlightsTable.read(FlightsData.flightsCsv());
    }

    @Test
    void encode_allBlocks_roundTripExactly_forEveryActiveView() {
        for (View active : FlightsViews.values()) {
            Tile tile = JavaCounts.tile(table, new TileKey(active, OTHERS));
            List<Block> blocks = ENCODER.encode(7, tile);
            assertEquals(ENCODER.blockCount(active), blocks.size());
            assertTrue(blocks.size() > 5, "a tile is progressive: " + blocks.size() + " blocks");
            blocks.forEach(b -> assertEquals(TileEncoder.DEFAULT_BLOCK_SIZE, b.size()));
            DecodedTile decoded = TileDecoder.decode(FlightsViews.VIEWS, blocks);
            assertTrue(decoded.isExact());
            assertEquals(tile, decoded.toTile());
        }
    }

    @Test
    void firstBlock_isExactAtBinEdgesAndForTotals() {
        View active = FlightsViews.DISTANCE; // bins of 200 miles = 14 pixels
        Tile tile = JavaCounts.tile(table, new TileKey(active, OTHERS));
        DecodedTile coarse = TileDecoder.decode(FlightsViews.VIEWS, ENCODER.encode(0, tile).subList(0, 1));
        assertFalse(coarse.isExact());
        for (View passive : Tile.passives(active)) {
            Slice exact = tile.slice(passive);
            assertArrayEquals(toDouble(exact.histogram(14, 70)), coarse.histogram(passive, 14, 70));
            assertArrayEquals(toDouble(exact.totals()), coarse.histogram(passive, 3, 3));
        }
    }

    @Test
    void longerPrefixes_areCloserToTheExactHistograms() {
        View active = FlightsViews.DEP_DELAY;
        Tile tile = JavaCounts.tile(table, new TileKey(active, FlightsViews.none().with(FlightsViews.DISTANCE, 14, 140)));
        List<Block> blocks = ENCODER.encode(0, tile);
        double previous = Double.MAX_VALUE;
        double first = 0;
        for (int k = 1; k <= blocks.size(); k++) {
            DecodedTile d = TileDecoder.decode(FlightsViews.VIEWS, blocks.subList(0, k));
            double sum = 0;
            int n = 0;
            for (int from = 0; from < View.PIXELS; from += 7) {
                for (int to = from + 3; to <= View.PIXELS; to += 29) {
                    for (View passive : Tile.passives(active)) {
                        sum += HistogramDistance.tvd(tile.slice(passive).histogram(from, to), d.histogram(passive, from, to));
                        n++;
                    }
                }
            }
            double mean = sum / n;
            if (k == 1) {
                first = mean;
            }
            // Monotone up to a small tolerance: interpolation can be luckier with fewer rows.
            assertTrue(mean <= previous + 0.01, "prefix " + k + ": " + mean + " after " + previous);
            previous = mean;
        }
        assertTrue(first > 0.01, "the first block alone is approximate: " + first);
        assertEquals(0.0, previous, 1e-12);
    }

    @Test
    void decode_rejectsCorruptInputWithClearErrors() {
        Tile tile = JavaCounts.tile(table, new TileKey(FlightsViews.ARR_TIME, OTHERS));
        List<Block> blocks = ENCODER.encode(3, tile);
        assertError("bad magic", List.of(patch(blocks.get(0), 0, 0)));
        assertError("unsupported version", List.of(patch(blocks.get(0), 4, 9)));
        assertError("unknown active view", List.of(patch(blocks.get(0), 5, 17)));
        assertError("negative", List.of(patch(blocks.get(0), TileEncoder.headerBytes(FlightsViews.VIEWS), 0xFF)));
        // a count inflated past its total in the second block's first row
        assertError("non-decreasing", List.of(blocks.get(0), patch(blocks.get(1), 0, 0x7F)));
        assertError("not a prefix", List.of(blocks.get(0), blocks.get(2)));
        assertError("no blocks", List.of());
        Block truncated = Block.of(3, 0, blocks.size(), java.util.Arrays.copyOf(blocks.get(0).payloadBytes(), 20), 0);
        assertError("truncated", List.of(truncated));
        Block ragged = Block.of(3, 1, blocks.size(), blocks.get(1).payloadBytes(), blocks.get(1).padding() + 1);
        assertError("whole rows", List.of(blocks.get(0), ragged));
    }

    @Test
    void withBlockSize_rejectsBlocksSmallerThanTheFirstBlock() {
        int min = TileEncoder.minimumBlockSize(FlightsViews.VIEWS);
        assertTrue(min <= TileEncoder.DEFAULT_BLOCK_SIZE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TileEncoder.withBlockSize(FlightsViews.VIEWS, min - 1));
        assertTrue(e.getMessage().contains("blockSize must be >= " + min), e.getMessage());
        Tile tile = JavaCounts.tile(table, new TileKey(FlightsViews.DISTANCE, OTHERS));
        assertEquals(tile, TileDecoder.decode(FlightsViews.VIEWS, TileEncoder.withBlockSize(FlightsViews.VIEWS, min).encode(0, tile)).toTile());
    }

    private static void assertError(String expected, List<Block> blocks) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TileDecoder.decode(FlightsViews.VIEWS, blocks));
        assertTrue(e.getMessage().contains(expected) && e.getMessage().startsWith("corrupt tile"), e.getMessage());
    }

    private static Block patch(Block b, int offset, int value) {
        byte[] bytes = b.payloadBytes();
        bytes[offset] = (byte) value;
        return Block.of(b.requestId(), b.index(), b.count(), bytes, b.padding());
    }

    private static double[] toDouble(int[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i];
        }
        return d;
    }

}
