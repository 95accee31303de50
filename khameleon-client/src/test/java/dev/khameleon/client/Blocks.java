package dev.khameleon.client;

import dev.khameleon.core.Block;

/** Test blocks whose payload names request and index. */
final class Blocks {
    private Blocks() {
    }

    static Block block(int request, int index, int count) {
        return Block.of(request, index, count, new byte[] {(byte) request, (byte) index}, 0);
    }
}
