package dev.khameleon.examples.timeseries;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketSumEncoderTest {
    private final BucketSumEncoder encoder = new BucketSumEncoder(TimeseriesApp.BLOCK_SIZE);

    private static double[] asDoubles(int[] series) {
        return Arrays.stream(series).asDoubleStream().toArray();
    }

    private static byte[] prefix(List<Block> blocks, int count) {
        return BucketSumEncoder.content(blocks.subList(0, count));
    }

    @Test
    void decodeAllBlocks_givesEveryRealWindowBackExactly() {
        for (int[] window : TraceData.windows()) {
            assertArrayEquals(asDoubles(window), BucketSumEncoder.decode(BucketSumEncoder.content(encoder.encode(0, window))));
        }
    }

    @Test
    void decodeAllBlocks_givesShortSeriesBackExactly() {
        for (int[] series : new int[][] {{7}, {3, 1, 4, 1, 5, 9, 2, 6}, new int[64]}) {
            assertArrayEquals(asDoubles(series), BucketSumEncoder.decode(BucketSumEncoder.content(encoder.encode(0, series))));
        }
    }

    @Test
    void firstBlock_drawsEightPointMeansThenSixteenPointMeans() {
        // 512 bytes = n + 127 values: 16 sums of 64 points, 16 left halves (→ 32), 32 (→ 16), and 62
        // of the 64 left halves that refine 16-point buckets to 8: points 0..991 at width 8, the rest at 16.
        int[] window = TraceData.windows().get(3);
        double[] chart = BucketSumEncoder.decode(prefix(encoder.encode(0, window), 1));
        for (int i = 0; i < window.length; i++) {
            int width = i < 992 ? 8 : 16;
            int start = i / width * width;
            double mean = Arrays.stream(window, start, start + width).sum() / (double) width;
            assertEquals(mean, chart[i], 1e-12, "point " + i);
        }
    }

    @Test
    void everyPrefix_keepsBucketTotalsAndNeverDrawsAWorseChartThanAShorterOne() {
        for (int[] window : TraceData.windows().subList(0, 20)) {
            List<Block> blocks = encoder.encode(0, window);
            double previous = Double.POSITIVE_INFINITY;
            for (int k = 1; k <= blocks.size(); k++) {
                double[] chart = BucketSumEncoder.decode(prefix(blocks, k));
                for (int start = 0; start < window.length; start += 64) {
                    assertEquals(Arrays.stream(window, start, start + 64).sum(),
                            Arrays.stream(chart, start, start + 64).sum(), 1e-9, "bucket at " + start);
                }
                // Each refinement is a finer projection of the series: the squared error cannot grow.
                double error = 0;
                for (int i = 0; i < window.length; i++) {
                    error += (chart[i] - window[i]) * (chart[i] - window[i]);
                }
                assertTrue(error <= previous + 1e-9, "prefix of " + k + " blocks: " + error + " > " + previous);
                previous = error;
            }
            assertEquals(0, previous, "all blocks");
        }
    }

    private static byte[] ints(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    private static void assertRejected(byte[] bytes, String messagePart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BucketSumEncoder.decode(bytes));
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void decode_rejectsBytesThatAreNoPrefixOfTheFormat() {
        assertRejected(new byte[0], "4-byte values");
        assertRejected(new byte[6], "4-byte values");
        assertRejected(ints(0), "power of two");
        assertRejected(ints(3, 1, 1, 1), "power of two");
        assertRejected(ints(1 << 17), "power of two");
        assertRejected(ints(-8), "power of two");
        assertRejected(ints(2, 5), "top sums");
        assertRejected(ints(2, 5, 6, 7), "has 2 values");
        assertRejected(ints(2, -1, 6), ">= 0");
        assertRejected(ints(32, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2), "exceeds");
    }

    @Test
    void encode_rejectsWhatTheFormatCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> encoder.encode(0, new int[1000]));
        assertThrows(IllegalArgumentException.class, () -> encoder.encode(0, new int[0]));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> encoder.encode(0, new int[] {1, -2}));
        assertTrue(negative.getMessage().contains("-2"), negative.getMessage());
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> new BucketSumEncoder(130));
        assertTrue(size.getMessage().contains("blockSize") && size.getMessage().contains("130"), size.getMessage());
    }
}
