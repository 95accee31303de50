package dev.khameleon.testing;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.ArrayList;
import java.util.List;

/**
 * An in-memory block source whose every block's payload is a pattern of its request and index, so a
 * test can check that a block a client holds is the one the server meant, byte for byte.
 */
public final class PatternBlocks {
    private PatternBlocks() {
    }

    /** The payload of block {@code index} of {@code request}: {@code blockSize} bytes, {@code 31·request + 7·index + i}. */
    public static byte[] payload(int request, int index, int blockSize) {
        byte[] p = new byte[blockSize];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) (request * 31 + index * 7 + i);
        }
        return p;
    }

    /** {@code requests} responses of {@code blocks} blocks of {@code blockSize} bytes, each the {@link #payload}. */
    public static BlockSource source(int requests, int blocks, int blockSize) {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < requests; r++) {
            List<Block> bs = new ArrayList<>();
            for (int b = 0; b < blocks; b++) {
                bs.add(Block.wrap(r, b, blocks, payload(r, b, blockSize), 0));
            }
            responses.add(bs);
        }
        return BlockSource.inMemory(blockSize, responses);
    }
}
