package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The block size against a tile's first block: refused naming the view, or adapted to it. */
class TileEncoderBlockSizeTest {
    /** Six views of 50 bins: a first block of 6 + 24 header bytes plus 52 rows of 250 bins. */
    private static final Views WIDE;

    static {
        Views.Builder b = Views.builder("wide");
        for (int i = 0; i < 6; i++) {
            b.view("C" + i, "C" + i, "", new Bins.Range(0, 50, 1));
        }
        WIDE = b.build();
    }

    @Test
    void firstBlock_isHeaderTotalsAndBinEdgeRows() {
        // 7 pixels per bin: 51 distinct bin-edge rows, plus the totals, of 5 passive views x 50 bins x 4 bytes
        assertEquals(30 + (1 + 51) * 1000, TileEncoder.firstBlockBytes(WIDE.get(0)));
        assertEquals(52_030, TileEncoder.minimumBlockSize(WIDE));
        // DISTANCE (or AIR_TIME) active: 26 bin-edge rows and the totals of 105 passive bins
        assertEquals(30 + 27 * 105 * 4, TileEncoder.minimumBlockSize(Views.flights()),
                "the flights views' largest first block");
    }

    @Test
    void withBlockSize_refusesInOneLineNamingTheViewAndTheBytes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TileEncoder.withBlockSize(WIDE, TileEncoder.DEFAULT_BLOCK_SIZE));
        assertEquals("blockSize must be >= 52030, was 12288: the first block of a tile of view C0 (table wide) needs"
                + " 52030 bytes", e.getMessage());
    }

    @Test
    void fitting_keepsTheDefault_orRoundsTheLargestFirstBlockUpToAKiB() {
        assertEquals(TileEncoder.DEFAULT_BLOCK_SIZE, TileEncoder.fitting(Views.flights()).blockSize());
        TileEncoder wide = TileEncoder.fitting(WIDE);
        assertEquals(51 * 1024, wide.blockSize());
        // and the tile round-trips through it
        Views v = WIDE;
        TileKey key = new TileKey(v.get(2), Filters.none(v));
        List<Slice> slices = Tile.passives(v.get(2)).stream().map(p -> {
            long[][] counts = new long[View.PIXELS][p.bins()];
            counts[10][3] = 5;
            return Slice.fromPixelCounts(p, counts, new long[p.bins()]);
        }).toList();
        Tile tile = new Tile(key, slices);
        assertEquals(tile, TileDecoder.decode(v, wide.encode(2, tile)).toTile());
    }
}
