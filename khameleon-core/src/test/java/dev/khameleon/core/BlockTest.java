package dev.khameleon.core;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockTest {

    @Test
    void of_copiesPayloadAndContentExcludesPadding() {
        byte[] bytes = {1, 2, 3, 0, 0};
        Block b = Block.of(4, 1, 2, bytes, 2);
        bytes[0] = 9;
        assertEquals(1, b.payload().get(0));
        ByteBuffer content = b.content();
        assertEquals(3, content.remaining());
        assertTrue(content.isReadOnly());
        assertEquals(5, b.size());
        assertTrue(b.isLast());
    }

    @Test
    void payloadBytes_isACopy() {
        Block b = Block.of(0, 0, 1, new byte[] {7}, 0);
        b.payloadBytes()[0] = 1;
        assertArrayEquals(new byte[] {7}, b.payloadBytes());
    }

    @Test
    void of_rejectsBadIndexCountAndPadding() {
        assertThrows(IllegalArgumentException.class, () -> Block.of(-1, 0, 1, new byte[1], 0));
        assertThrows(IllegalArgumentException.class, () -> Block.of(0, 1, 1, new byte[1], 0));
        assertThrows(IllegalArgumentException.class, () -> Block.of(0, -1, 1, new byte[1], 0));
        assertThrows(IllegalArgumentException.class, () -> Block.of(0, 0, 0, new byte[1], 0));
        assertThrows(IllegalArgumentException.class, () -> Block.of(0, 0, 1, new byte[1], 2));
        assertThrows(IllegalArgumentException.class, () -> Block.of(0, 0, 1, new byte[1], -1));
    }

    @Test
    void equals_comparesContent() {
        assertEquals(Block.of(1, 0, 2, new byte[] {1, 2}, 0), Block.of(1, 0, 2, new byte[] {1, 2}, 0));
        assertEquals(Block.of(1, 0, 2, new byte[] {1, 2}, 0).hashCode(), Block.of(1, 0, 2, new byte[] {1, 2}, 0).hashCode());
        assertTrue(!Block.of(1, 0, 2, new byte[] {1, 2}, 0).equals(Block.of(1, 0, 2, new byte[] {1, 3}, 0)));
    }
}
