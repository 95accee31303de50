package dev.khameleon.examples.timeseries;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Encodes a chart's series of non-negative counts coarse-to-fine, so that every prefix of its
 * blocks draws the whole chart at some resolution and all blocks give it back exactly.
 *
 * <p>Format (big-endian ints): the length {@code n} (a power of two, at most {@link #MAX_POINTS});
 * the sums of {@link #TOP_BUCKETS} equal buckets (fewer if {@code n} is smaller); then, halving the
 * bucket width each round, the sum of the left half of every bucket in order. The right half is
 * the parent's sum minus the left, so the format has exactly {@code n} values, no more than the
 * raw series. A prefix ending part-way through a round refines the buckets it reached and draws the
 * others at the coarser width. Why sums rather than every 64th, 32nd… point: a point sample of a
 * noisy series is often far from its neighbours, while a bucket mean is the chart one would draw at
 * that width anyway.
 *
 * <p>Immutable and thread-safe. {@link #decode} takes bytes from the network: anything that is not
 * a prefix of this format is rejected with {@link IllegalArgumentException}.
 */
final class BucketSumEncoder implements ProgressiveEncoder<int[]> {
    /** Longest series accepted, in points. */
    static final int MAX_POINTS = 1 << 16;
    /** Buckets of the coarsest chart, the one the first block draws. */
    static final int TOP_BUCKETS = 16;

    private final int blockSize;

    /** An encoder cutting blocks of {@code blockSize} bytes, a multiple of 4 in [128, 65536]. */
    BucketSumEncoder(int blockSize) {
        // 128 bytes hold the header and the 16 top sums, so block 0 alone always draws a chart.
        if (blockSize < 128 || blockSize > 65_536 || blockSize % 4 != 0) {
            throw new IllegalArgumentException("blockSize must be a multiple of 4 in [128, 65536], was " + blockSize);
        }
        this.blockSize = blockSize;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    /**
     * The series' blocks, coarsest first.
     *
     * @throws IllegalArgumentException if the length is not a power of two up to {@link #MAX_POINTS}
     *     or a value is negative
     */
    @Override
    public List<Block> encode(int requestId, int[] series) {
        int n = checkLength(series.length);
        long[] prefixSums = new long[n + 1];
        for (int i = 0; i < n; i++) {
            if (series[i] < 0) {
                throw new IllegalArgumentException("series values must be >= 0, value " + i + " was " + series[i]);
            }
            prefixSums[i + 1] = prefixSums[i] + series[i];
        }
        if (prefixSums[n] > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("series total must fit an int, was " + prefixSums[n]);
        }
        ByteBuffer out = ByteBuffer.allocate(4 + 4 * n).putInt(n);
        int width = n / Math.min(TOP_BUCKETS, n);
        for (int start = 0; start < n; start += width) {
            out.putInt((int) (prefixSums[start + width] - prefixSums[start]));
        }
        for (; width > 1; width /= 2) {
            for (int start = 0; start < n; start += width) {
                out.putInt((int) (prefixSums[start + width / 2] - prefixSums[start]));
            }
        }
        return ProgressiveEncoder.split(requestId, out.array(), blockSize);
    }

    /**
     * The chart a prefix of an encoded series draws: one value per point, the mean of the finest
     * bucket the prefix resolves around it. With the whole encoding, the series itself.
     *
     * @param prefix the content of blocks {@code 0..j} (padding removed), concatenated
     * @throws IllegalArgumentException if it is not a prefix of this format holding at least the
     *     top sums (the message says what is wrong)
     */
    static double[] decode(byte[] prefix) {
        if (prefix.length < 4 || prefix.length % 4 != 0) {
            throw new IllegalArgumentException("an encoded series is a whole number of 4-byte values, was "
                    + prefix.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(prefix);
        int n = checkLength(in.getInt());
        if (in.remaining() > 4L * n) {
            throw new IllegalArgumentException("a series of " + n + " points has " + n + " values, got "
                    + in.remaining() / 4);
        }
        int buckets = Math.min(TOP_BUCKETS, n);
        if (in.remaining() < 4 * buckets) {
            throw new IllegalArgumentException("a prefix must hold the " + buckets + " top sums, had "
                    + in.remaining() / 4);
        }
        // Sums as doubles: exact for ints, and a bucket not refined yet is drawn as two halves.
        double[] sums = new double[buckets];
        for (int b = 0; b < buckets; b++) {
            sums[b] = nonNegative(in.getInt());
        }
        int width = n / buckets;
        // Each round halves the buckets: those the prefix reaches exactly, the rest evenly.
        for (; width > 1 && in.hasRemaining(); width /= 2) {
            double[] finer = new double[2 * sums.length];
            for (int b = 0; b < sums.length; b++) {
                double left = in.hasRemaining() ? nonNegative(in.getInt()) : sums[b] / 2;
                if (left > sums[b]) {
                    throw new IllegalArgumentException("a left half's sum " + left + " exceeds its bucket's " + sums[b]);
                }
                finer[2 * b] = left;
                finer[2 * b + 1] = sums[b] - left;
            }
            sums = finer;
        }
        double[] chart = new double[n];
        for (int i = 0; i < n; i++) {
            chart[i] = sums[i / width] / width;
        }
        return chart;
    }

    /** The response bytes in {@code blocks} (a prefix of a response's blocks): contents, padding removed. */
    static byte[] content(List<Block> blocks) {
        ByteBuffer out = ByteBuffer.allocate(blocks.stream().mapToInt(b -> b.content().remaining()).sum());
        blocks.forEach(b -> out.put(b.content()));
        return out.array();
    }

    private static double nonNegative(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("sums must be >= 0, got " + value);
        }
        return value;
    }

    private static int checkLength(int n) {
        if (n < 1 || n > MAX_POINTS || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("series length must be a power of two in [1, " + MAX_POINTS
                    + "], was " + n);
        }
        return n;
    }
}
