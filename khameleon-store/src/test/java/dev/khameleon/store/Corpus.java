package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** A seeded set of random responses, imported into a store, with the blocks a reader must return. */
final class Corpus {
    final int blockSize;
    final List<byte[]> responses;
    final List<List<Block>> blocks;

    private Corpus(int blockSize, List<byte[]> responses) {
        this.blockSize = blockSize;
        this.responses = responses;
        this.blocks = new ArrayList<>();
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(blockSize);
        for (int i = 0; i < responses.size(); i++) {
            blocks.add(encoder.encode(i, responses.get(i)));
        }
    }

    /** {@code n} responses of 1 to {@code maxBytes} random bytes. */
    static Corpus random(long seed, int n, int blockSize, int maxBytes) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<byte[]> responses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[1 + rnd.nextInt(maxBytes)];
            for (int j = 0; j < bytes.length; j++) {
                bytes[j] = (byte) rnd.nextInt(256);
            }
            responses.add(bytes);
        }
        return new Corpus(blockSize, responses);
    }

    ImportSummary importInto(Path dir) throws IOException {
        return FileBlockStore.importResponses(dir, ProgressiveEncoder.fixedBlocks(blockSize), 0, responses);
    }

    Block block(int request, int index) {
        return blocks.get(request).get(index);
    }

    int count(int request) {
        return blocks.get(request).size();
    }

    int size() {
        return responses.size();
    }
}
