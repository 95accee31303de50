package dev.khameleon.core.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.khameleon.core.Block;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@link BlockFrame#decode}: any bytes either decode to the frame the header describes
 * (fields read back here independently, payload copied exactly) or fail with a
 * {@link ProtocolException} ({@code invalid_message}). Any other exception or error is a finding.
 *
 * <p>{@code mvn verify} replays the seeds in {@code BlockFrameFuzzTestInputs/}; see
 * {@code docs/protocol.md} ("Fuzzing") for the long-run command.
 */
class BlockFrameFuzzTest {
    /** Bytes before the frame in the shifted buffer: the decoder must honour the position. */
    private static final int SHIFT = 3;

    @FuzzTest(maxDuration = "3m")
    void decode_returnsTheDescribedFrameOrProtocolException(byte[] frame) {
        BlockFrame decoded = decodeOrNull(ByteBuffer.wrap(frame));
        ByteBuffer shifted = ByteBuffer.allocate(frame.length + 2 * SHIFT);
        shifted.position(SHIFT).put(frame).position(SHIFT).limit(SHIFT + frame.length);
        BlockFrame fromShifted = decodeOrNull(shifted);
        assertEquals(SHIFT, shifted.position(), "decode must not move the buffer's position");
        assertEquals(decoded, fromShifted, "a frame decodes the same wherever it sits in a buffer");
        if (decoded == null) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        assertEquals(BlockFrame.MAGIC, b.get(0));
        assertEquals(BlockFrame.VERSION, b.get(1));
        int headerLength = b.get(3) & 0xFF;
        Block block = decoded.block();
        assertEquals(b.getLong(4), decoded.seq());
        assertEquals(b.getInt(12), block.requestId());
        assertEquals(b.getInt(16), block.index());
        assertEquals(b.getInt(20), block.count());
        assertEquals(frame.length - headerLength, block.size());
        assertEquals(b.getInt(28), block.padding());
        assertTrue(decoded.seq() >= 0 && block.requestId() >= 0 && block.index() < block.count());
        assertEquals((b.get(2) & BlockFrame.FLAG_LAST) != 0, block.isLast());
        assertEquals((b.get(2) & BlockFrame.FLAG_GENERATION) != 0 ? b.getInt(32) : 0, decoded.generation());
        assertArrayEquals(Arrays.copyOfRange(frame, headerLength, frame.length), block.payloadBytes());
    }

    private static BlockFrame decodeOrNull(ByteBuffer frame) {
        try {
            return BlockFrame.decode(frame);
        } catch (ProtocolException e) {
            assertEquals(ErrorCode.INVALID_MESSAGE, e.code(), e.getMessage());
            return null;
        }
    }
}
