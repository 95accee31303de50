package dev.khameleon.client;

import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Joins the fragments of one connection's WebSocket messages into whole control messages and
 * whole block frames, refusing any that would outgrow its limit, so that a server cannot make the
 * client buffer without bound.
 *
 * <p><b>Threading.</b> One connection's listener thread only: the JDK's WebSocket calls a
 * listener's methods one at a time.
 */
final class FrameAssembler {
    /** Largest control message accepted from the server, in characters. */
    static final int MAX_TEXT_CHARS = 1 << 20;
    /** What a block frame may hold beyond its block's payload: room for any frame header. */
    static final int FRAME_OVERHEAD_BYTES = 255;

    private final StringBuilder text = new StringBuilder();
    private byte[] binary = new byte[0];
    private int binaryLength;
    private int maxFrameBytes;
    private String message;
    private ByteBuffer frame;

    /**
     * Accepts block frames of up to {@code blockSize} payload bytes from now on (until then no
     * fragmented frame fits): the welcome announces the block size.
     */
    void expectBlocksOf(int blockSize) {
        maxFrameBytes = blockSize + FRAME_OVERHEAD_BYTES;
    }

    /**
     * Adds one fragment of a control message; once it returns true, {@link #message()} holds the
     * whole message.
     *
     * @return whether this fragment completed a message
     * @throws ProtocolException if the message would exceed {@link #MAX_TEXT_CHARS} characters
     */
    boolean text(CharSequence data, boolean last) {
        if (text.length() + data.length() > MAX_TEXT_CHARS) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE,
                    "control message longer than " + MAX_TEXT_CHARS + " characters");
        }
        text.append(data);
        if (!last) {
            return false;
        }
        message = text.toString();
        text.setLength(0);
        return true;
    }

    /** The message the last {@link #text} call completed. */
    String message() {
        return message;
    }

    /**
     * Adds one fragment of a block frame; once it returns true, {@link #frame()} holds the whole
     * frame. A frame that comes in one fragment is not copied.
     *
     * @return whether this fragment completed a frame
     * @throws ProtocolException if a fragmented frame would exceed the block size announced to
     *     {@link #expectBlocksOf} plus {@link #FRAME_OVERHEAD_BYTES}
     */
    boolean binary(ByteBuffer data, boolean last) {
        if (last && binaryLength == 0) {
            frame = data;
            return true;
        }
        int n = data.remaining();
        if (binaryLength + n > maxFrameBytes) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "block frame longer than "
                    + maxFrameBytes + " bytes");
        }
        if (binary.length < binaryLength + n) {
            // Doubling keeps the copies of a frame in many small fragments linear in its size.
            binary = Arrays.copyOf(binary, Math.min(maxFrameBytes, Math.max(binaryLength + n, binary.length * 2)));
        }
        data.get(binary, binaryLength, n);
        binaryLength += n;
        if (!last) {
            return false;
        }
        frame = ByteBuffer.wrap(binary, 0, binaryLength);
        binaryLength = 0;
        return true;
    }

    /**
     * The frame the last {@link #binary} call completed. It may share the assembler's buffer, so it
     * is valid only until the next call to {@code binary}.
     */
    ByteBuffer frame() {
        return frame;
    }
}
