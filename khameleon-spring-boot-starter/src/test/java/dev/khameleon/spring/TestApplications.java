package dev.khameleon.spring;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;

import java.util.ArrayList;
import java.util.List;

/** Small in-memory applications whose blocks a test can recompute. */
final class TestApplications {
    static final int BLOCK_SIZE = 256;
    static final int BLOCKS = 3;
    static final int REQUESTS = 8;

    private TestApplications() {
    }

    /** The payload of block {@code index} of request {@code request}: distinct for every block. */
    static byte[] payload(int request, int index) {
        byte[] p = new byte[BLOCK_SIZE];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) (request * 31 + index * 7 + i);
        }
        return p;
    }

    /** An application called {@code name} at {@code /name} serving {@link #blocks()}. */
    static Application named(String name) {
        return Application.builder(name).blockSource(blocks()).build();
    }

    /** {@link #REQUESTS} responses of {@link #BLOCKS} blocks of {@link #payload}s each. */
    static BlockSource blocks() {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < REQUESTS; r++) {
            List<Block> blocks = new ArrayList<>();
            for (int b = 0; b < BLOCKS; b++) {
                blocks.add(Block.wrap(r, b, BLOCKS, payload(r, b), 0));
            }
            responses.add(blocks);
        }
        return BlockSource.inMemory(BLOCK_SIZE, responses);
    }
}
