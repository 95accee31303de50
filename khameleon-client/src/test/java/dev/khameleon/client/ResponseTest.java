package dev.khameleon.client;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ResponseTest {

    @Test
    void content_concatenatesTheBlocksInOrder_withoutTheirPadding() {
        Block first = Block.of(7, 0, 3, new byte[] {1, 2, 3, 4}, 0);
        Block second = Block.of(7, 1, 3, new byte[] {5, 6, 0, 0}, 2);   // the last two bytes are padding
        Response r = new Response(7, List.of(first, second), 3, 0.5);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, r.content());
        assertNotSame(r.content(), r.content(), "a fresh array each time");
        assertArrayEquals(new byte[] {1, 2, 3, 4}, new Response(7, List.of(first), 3, 0.2).content());
    }

    @Test
    void emptyOrOverfullResponse_isRefused() {
        Block b = Block.of(1, 0, 1, new byte[] {9}, 0);
        assertThrows(IllegalArgumentException.class, () -> new Response(1, List.of(), 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Response(1, List.of(b, b), 1, 1));
    }
}
