package dev.khameleon.core.protocol;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockFrameTest {

    private static Block block(int request, int index, int count, int size, int padding) {
        byte[] payload = new byte[size];
        for (int i = 0; i < size; i++) {
            payload[i] = (byte) (i * 7 + request);
        }
        return Block.of(request, index, count, payload, padding);
    }

    @Test
    void encode_writesExactBigEndianLayout() {
        byte[] frame = BlockFrame.encode(0x0102030405060708L, block(0x11223344, 2, 3, 4, 1));
        assertEquals(36, frame.length);
        byte[] expectedHeader = {
            0x4B, 1, 1, 32,
            1, 2, 3, 4, 5, 6, 7, 8,
            0x11, 0x22, 0x33, 0x44,
            0, 0, 0, 2,
            0, 0, 0, 3,
            0, 0, 0, 4,
            0, 0, 0, 1,
        };
        byte[] header = new byte[32];
        System.arraycopy(frame, 0, header, 0, 32);
        assertArrayEquals(expectedHeader, header);
        assertArrayEquals(BlockFrame.header(0x0102030405060708L, block(0x11223344, 2, 3, 4, 1)), header);
    }

    @Test
    void writeHeader_isBigEndianEvenIntoLittleEndianBuffer() {
        ByteBuffer dst = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        dst.position(3);
        BlockFrame.writeHeader(1, block(0, 0, 2, 8, 0), dst);
        assertEquals(35, dst.position());
        assertEquals(0, dst.get(3 + 4));
        assertEquals(1, dst.get(3 + 11));
        assertEquals(0, dst.get(3 + 2), "not the last block: flag clear");
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void decode_roundTripsRandomFrames(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 100; i++) {
            int count = r.nextInt(1, 50);
            int size = r.nextInt(0, 300);
            Block b = block(r.nextInt(0, Integer.MAX_VALUE), r.nextInt(count), count, size, r.nextInt(size + 1));
            long seq = r.nextLong(0, Long.MAX_VALUE);
            BlockFrame f = BlockFrame.decode(BlockFrame.encode(seq, b));
            assertEquals(seq, f.seq());
            assertEquals(b, f.block());
        }
    }

    @Test
    void decode_skipsLongerHeaderOfFutureVersion() {
        Block b = block(5, 0, 1, 6, 2);
        byte[] v1 = BlockFrame.encode(9, b);
        byte[] longer = new byte[v1.length + 8];
        System.arraycopy(v1, 0, longer, 0, 32);
        System.arraycopy(v1, 32, longer, 40, v1.length - 32);
        longer[3] = 40;
        BlockFrame f = BlockFrame.decode(longer);
        assertEquals(b, f.block());
    }

    @Test
    void decode_doesNotMovePositionAndRespectsOffset() {
        byte[] frame = BlockFrame.encode(4, block(1, 0, 1, 5, 0));
        byte[] shifted = new byte[frame.length + 3];
        System.arraycopy(frame, 0, shifted, 3, frame.length);
        ByteBuffer buf = ByteBuffer.wrap(shifted);
        buf.position(3);
        assertEquals(4, BlockFrame.decode(buf).seq());
        assertEquals(3, buf.position());
    }

    private static void assertRejected(byte[] frame, String fieldMention) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> BlockFrame.decode(frame));
        assertEquals(ErrorCode.INVALID_MESSAGE, e.code());
        assertTrue(e.getMessage().contains(fieldMention), e.getMessage());
    }

    private static byte[] withInt(byte[] frame, int offset, int value) {
        byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).putInt(offset, value);
        return copy;
    }

    @Test
    void decode_rejectsEachBadField() {
        byte[] good = BlockFrame.encode(3, block(2, 1, 4, 8, 0));
        assertRejected(new byte[10], "shorter");
        byte[] badMagic = good.clone();
        badMagic[0] = 0x4C;
        assertRejected(badMagic, "magic");
        byte[] badVersion = good.clone();
        badVersion[1] = 2;
        assertRejected(badVersion, "version");
        byte[] shortHeader = good.clone();
        shortHeader[3] = 16;
        assertRejected(shortHeader, "headerLength");
        byte[] negSeq = good.clone();
        ByteBuffer.wrap(negSeq).putLong(4, -1);
        assertRejected(negSeq, "seq");
        assertRejected(withInt(good, 12, -1), "requestId");
        assertRejected(withInt(good, 16, 4), "blockIndex");
        assertRejected(withInt(good, 16, -1), "blockIndex");
        assertRejected(withInt(good, 20, 0), "blockCount");
        assertRejected(withInt(good, 24, 9), "payloadLength");
        assertRejected(withInt(good, 28, 9), "padding");
        assertRejected(withInt(good, 28, -1), "padding");
        byte[] lying = good.clone();
        lying[2] = 1;
        assertRejected(lying, "last-block flag");
    }

    @Test
    void encode_rejectsNegativeSeq() {
        assertThrows(IllegalArgumentException.class, () -> BlockFrame.encode(-1, block(0, 0, 1, 1, 0)));
    }

    @Test
    void generation_roundTripsIn36ByteHeaderWithFlagBit1() {
        Block b = block(5, 1, 3, 16, 0);
        byte[] frame = BlockFrame.encode(9, b, 7);
        assertEquals(36 + 16, frame.length);
        assertEquals(BlockFrame.FLAG_GENERATION, frame[2] & BlockFrame.FLAG_GENERATION);
        assertEquals(36, frame[3]);
        BlockFrame decoded = BlockFrame.decode(frame);
        assertEquals(new BlockFrame(9, b, 7), decoded);
        assertArrayEquals(BlockFrame.header(9, b, 7), java.util.Arrays.copyOf(frame, 36));
        assertArrayEquals(frame, decoded.encode());
    }

    @Test
    void generation_isZeroInFramesWithoutTheFlag_soAFrameOfThe32ByteFormatIsUnchanged() {
        Block b = block(5, 2, 3, 16, 4);
        BlockFrame decoded = BlockFrame.decode(BlockFrame.encode(9, b));
        assertEquals(0, decoded.generation());
        assertEquals(32 + 16, new BlockFrame(9, b).encode().length);
    }

    @Test
    void decode_rejectsTheGenerationFlagOnAShortHeaderOrANegativeGeneration() {
        byte[] frame = BlockFrame.encode(9, block(5, 1, 3, 16, 0));
        frame[2] |= BlockFrame.FLAG_GENERATION;
        ProtocolException e = assertThrows(ProtocolException.class, () -> BlockFrame.decode(frame));
        assertTrue(e.getMessage().contains("generation flag"), e.getMessage());
        byte[] negative = BlockFrame.encode(9, block(5, 1, 3, 16, 0), 1);
        negative[32] = (byte) 0x80;
        e = assertThrows(ProtocolException.class, () -> BlockFrame.decode(negative));
        assertTrue(e.getMessage().contains("generation"), e.getMessage());
    }
}
