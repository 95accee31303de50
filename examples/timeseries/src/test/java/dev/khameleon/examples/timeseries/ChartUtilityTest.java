package dev.khameleon.examples.timeseries;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartUtilityTest {

    @Test
    void measure_isOneMinusTheErrorRelativeToAFlatLine_andSkipsFlatWindows() {
        // 32 points in blocks of 128 bytes: block 0 holds n, the 16 pair sums and 15 of the 16
        // left halves, so it draws points 0..29 exactly and points 30, 31 at their mean.
        int[] series = new int[32];
        series[30] = 2;
        // Flat line at 1/16: error 31/16 + 31/16 = 31/8. Block 0: error |1 - 2| + |1 - 0| = 2.
        ChartUtility u = ChartUtility.measure(List.of(series, new int[32]), new BucketSumEncoder(128));
        assertArrayEquals(new double[] {0.5, 1.0}, u.fractions());
        assertEquals(1 - 2 / (31 / 8.0), u.utilities()[0], 1e-12);
        assertEquals(1.0, u.utilities()[1]);
    }

    @Test
    void measure_rejectsWindowsThatDifferInLengthOrNeverVary() {
        BucketSumEncoder encoder = new BucketSumEncoder(128);
        IllegalArgumentException flat = assertThrows(IllegalArgumentException.class,
                () -> ChartUtility.measure(List.of(new int[32], new int[32]), encoder));
        assertTrue(flat.getMessage().contains("no window varies"), flat.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChartUtility.measure(List.of(new int[32], new int[1024]), encoder));
    }

    @Test
    void realWindows_firstBlockBeatsAFlatLineAndAllBlocksAreExact() {
        ChartUtility u = ChartUtility.measure(TraceData.windows(), new BucketSumEncoder(TimeseriesApp.BLOCK_SIZE));
        assertEquals(9, u.utilities().length, "4 KB + 4 bytes in 512-byte blocks");
        assertTrue(u.utilities()[0] > 0, "the first block draws a chart better than a flat line: " + u);
        assertEquals(1.0, u.utilities()[8]);
    }
}
