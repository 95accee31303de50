package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Block frames written straight into one buffer, byte for byte what the protocol's codec writes. */
class BlockFrameEncoderTest {

    private static byte[] encode(boolean withGeneration, BlockFrame frame) {
        EmbeddedChannel ch = new EmbeddedChannel(BlockFrameEncoder.of(withGeneration));
        try {
            ch.writeOutbound(frame);
            BinaryWebSocketFrame out = ch.readOutbound();
            try {
                ByteBuf buf = out.content();
                assertEquals(buf.readableBytes(), buf.capacity(), "one allocation of exactly the frame's size");
                return ByteBufUtil.getBytes(buf);
            } finally {
                out.release();
            }
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static Block block(int index, int count, int padding) {
        byte[] payload = new byte[24];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7 + index);
        }
        return Block.of(3, index, count, payload, padding);
    }

    @Test
    void plain_matchesBlockFrameEncode() {
        Block b = block(1, 4, 0);
        byte[] bytes = encode(false, new BlockFrame(1L << 40, b));
        assertArrayEquals(BlockFrame.encode(1L << 40, b), bytes);
        assertEquals(BlockFrame.HEADER_LENGTH + 24, BlockFrameEncoder.frameBytes(false, 24));
    }

    @Test
    void lastBlockWithPadding_setsTheFlagAndDecodes() {
        Block b = block(3, 4, 5);
        byte[] bytes = encode(false, new BlockFrame(9, b));
        assertArrayEquals(BlockFrame.encode(9, b), bytes);
        BlockFrame back = BlockFrame.decode(bytes);
        assertEquals(9, back.seq());
        assertEquals(b, back.block());
    }

    @Test
    void withGeneration_alwaysWritesTheLongHeader_generationZeroIncluded() {
        Block b = block(0, 2, 0);
        assertArrayEquals(BlockFrame.encode(5, b, 0), encode(true, new BlockFrame(5, b, 0)));
        byte[] bytes = encode(true, new BlockFrame(6, b, 17));
        assertArrayEquals(BlockFrame.encode(6, b, 17), bytes);
        assertEquals(17, BlockFrame.decode(bytes).generation());
        assertEquals(BlockFrame.GENERATION_HEADER_LENGTH + 24, BlockFrameEncoder.frameBytes(true, 24));
    }
}
