package com.example.jetty;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Encodes a time series progressively: the first blocks hold every 64th point, later
 * blocks fill in every 32nd, 16th, … so any prefix can be drawn as a coarser line.
 */
final class SeriesEncoder implements ProgressiveEncoder<double[]> {
    private final int blockSize;

    SeriesEncoder(int blockSize) {
        if (blockSize < 8 || blockSize % 8 != 0) {
            throw new IllegalArgumentException("blockSize must be a positive multiple of 8, was " + blockSize);
        }
        this.blockSize = blockSize;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public List<Block> encode(int requestId, double[] series) {
        // Each value travels with its position so a prefix can be plotted at once.
        ByteBuffer out = ByteBuffer.allocate(series.length * 12);
        boolean[] sent = new boolean[series.length];
        for (int stride = 64; stride >= 1; stride /= 2) {
            for (int i = 0; i < series.length; i += stride) {
                if (!sent[i]) {
                    sent[i] = true;
                    out.putInt(i).putDouble(series[i]);
                }
            }
        }
        return ProgressiveEncoder.split(requestId, out.array(), blockSize);
    }
}
