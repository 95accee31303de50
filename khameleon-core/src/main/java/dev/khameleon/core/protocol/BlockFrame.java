package dev.khameleon.core.protocol;

import dev.khameleon.core.Block;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * One binary block frame ({@code docs/protocol.md}, section 4): the block with sequence number
 * {@code seq}, which the client stores in ring slot {@code seq mod C}.
 *
 * <p>The frame is a {@value #HEADER_LENGTH}-byte big-endian header followed by the block's
 * payload; a frame of an application that binds request ids per session has a
 * {@value #GENERATION_HEADER_LENGTH}-byte header whose last 4 bytes are the binding
 * {@link #generation() generation} (flag {@link #FLAG_GENERATION}). The static methods encode and
 * decode frames; decoding validates every header field and throws {@link ProtocolException}
 * ({@link ErrorCode#INVALID_MESSAGE}) naming the bad field. All methods are stateless and
 * thread-safe.
 *
 * @param seq        the sequence number, {@code >= 0}
 * @param block      the block
 * @param generation the generation of the binding of the block's request id the block answers,
 *                   {@code >= 0}; 0 for a request id with its default meaning (and for every
 *                   frame without the generation flag)
 */
public record BlockFrame(long seq, Block block, int generation) {
    /** The first byte of every frame: ASCII {@code 'K'}. */
    public static final byte MAGIC = 0x4B;
    /** The frame format version written in byte 1. */
    public static final byte VERSION = 1;
    /** The header length this version writes; readers accept longer headers. */
    public static final int HEADER_LENGTH = 32;
    /** Flag bit 0: the block is the last of its response. */
    public static final int FLAG_LAST = 1;
    /** Flag bit 1: header bytes 32..35 hold the binding generation. */
    public static final int FLAG_GENERATION = 2;
    /** The header length written when the frame carries a binding generation. */
    public static final int GENERATION_HEADER_LENGTH = 36;

    /** Validates the fields. */
    public BlockFrame {
        Fields.checkMin("seq", seq, 0);
        Objects.requireNonNull(block, "block");
        Fields.checkMin("generation", generation, 0);
    }

    /** A frame of generation 0 (a request id with its default meaning). */
    public BlockFrame(long seq, Block block) {
        this(seq, block, 0);
    }

    /**
     * The decoded header of a frame.
     *
     * @param flags         the flags byte, {@code 0..255}
     * @param headerLength  bytes before the payload, {@code >= }{@value BlockFrame#HEADER_LENGTH}
     * @param seq           the sequence number
     * @param requestId     the request id
     * @param blockIndex    the block's index in its response
     * @param blockCount    the response's block count
     * @param payloadLength the payload's length in bytes, padding included
     * @param padding       padding bytes at the end of the payload
     * @param generation    the binding generation if flag {@link BlockFrame#FLAG_GENERATION} is set, else 0
     */
    public record Header(int flags, int headerLength, long seq, int requestId, int blockIndex, int blockCount,
                         int payloadLength, int padding, int generation) {
        /** Whether flag bit 0 says this is the last block of its response. */
        public boolean last() {
            return (flags & FLAG_LAST) != 0;
        }
    }

    /** Encodes this frame: header then payload; the generation is written only if it is not 0. */
    public byte[] encode() {
        return generation == 0 ? encode(seq, block) : encode(seq, block, generation);
    }

    /** Encodes the frame for {@code block} with sequence number {@code seq}: header then payload. */
    public static byte[] encode(long seq, Block block) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + block.size());
        writeHeader(seq, block, out);
        out.put(block.payload());
        return out.array();
    }

    /**
     * Encodes the frame for {@code block} with sequence number {@code seq} and a
     * {@value #GENERATION_HEADER_LENGTH}-byte header carrying {@code generation}.
     */
    public static byte[] encode(long seq, Block block, int generation) {
        ByteBuffer out = ByteBuffer.allocate(GENERATION_HEADER_LENGTH + block.size());
        writeHeader(seq, block, generation, out);
        out.put(block.payload());
        return out.array();
    }

    /** The {@value #HEADER_LENGTH}-byte header for {@code block} with sequence number {@code seq}. */
    public static byte[] header(long seq, Block block) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH);
        writeHeader(seq, block, out);
        return out.array();
    }

    /**
     * The {@value #GENERATION_HEADER_LENGTH}-byte header for {@code block} with sequence number
     * {@code seq}, answering the binding of generation {@code generation}.
     *
     * @throws IllegalArgumentException if {@code seq} or {@code generation} is negative
     */
    public static byte[] header(long seq, Block block, int generation) {
        ByteBuffer out = ByteBuffer.allocate(GENERATION_HEADER_LENGTH);
        writeHeader(seq, block, generation, out);
        return out.array();
    }

    /**
     * Writes the {@value #GENERATION_HEADER_LENGTH}-byte header with {@code generation} at
     * {@code dst}'s position, big-endian, advancing the position.
     *
     * @throws IllegalArgumentException if {@code seq} or {@code generation} is negative
     * @throws java.nio.BufferOverflowException if fewer than {@value #GENERATION_HEADER_LENGTH} bytes remain
     */
    public static void writeHeader(long seq, Block block, int generation, ByteBuffer dst) {
        Fields.checkMin("generation", generation, 0);
        Fields.checkMin("seq", seq, 0);
        ByteBuffer b = dst.duplicate().order(ByteOrder.BIG_ENDIAN);
        putHeader(seq, block, FLAG_GENERATION, GENERATION_HEADER_LENGTH, b);
        b.putInt(generation);
        dst.position(b.position());
    }

    /**
     * Writes the {@value #HEADER_LENGTH}-byte header at {@code dst}'s position, big-endian whatever
     * {@code dst}'s byte order, advancing the position.
     *
     * @throws IllegalArgumentException if {@code seq < 0}
     * @throws java.nio.BufferOverflowException if fewer than {@value #HEADER_LENGTH} bytes remain
     */
    public static void writeHeader(long seq, Block block, ByteBuffer dst) {
        Fields.checkMin("seq", seq, 0);
        ByteBuffer b = dst.duplicate().order(ByteOrder.BIG_ENDIAN);
        putHeader(seq, block, 0, HEADER_LENGTH, b);
        dst.position(b.position());
    }

    private static void putHeader(long seq, Block block, int flags, int headerLength, ByteBuffer b) {
        b.put(MAGIC)
                .put(VERSION)
                .put((byte) ((block.isLast() ? FLAG_LAST : 0) | flags))
                .put((byte) headerLength)
                .putLong(seq)
                .putInt(block.requestId())
                .putInt(block.index())
                .putInt(block.count())
                .putInt(block.size())
                .putInt(block.padding());
    }

    /**
     * Reads and validates the header of the frame in {@code frame}'s remaining bytes, without
     * changing its position. The payload is at {@code position + headerLength}.
     *
     * @throws ProtocolException if the frame is shorter than its header, the magic or version is
     *     wrong, or a field is out of range or inconsistent with the frame's length
     */
    public static Header readHeader(ByteBuffer frame) {
        ByteBuffer b = frame.duplicate().order(ByteOrder.BIG_ENDIAN);
        int start = b.position();
        int length = b.remaining();
        if (length < HEADER_LENGTH) {
            throw Fields.invalid("block frame of " + length + " bytes is shorter than the " + HEADER_LENGTH
                    + "-byte header");
        }
        int magic = b.get(start) & 0xFF;
        if (magic != MAGIC) {
            throw Fields.invalid(String.format("block frame magic must be 0x%02X, was 0x%02X", MAGIC, magic));
        }
        int version = b.get(start + 1) & 0xFF;
        if (version != VERSION) {
            throw Fields.invalid("block frame version must be " + VERSION + ", was " + version);
        }
        int flags = b.get(start + 2) & 0xFF;
        int headerLength = b.get(start + 3) & 0xFF;
        if (headerLength < HEADER_LENGTH || headerLength > length) {
            throw Fields.invalid("block frame headerLength must be in [" + HEADER_LENGTH + ", " + length
                    + "], was " + headerLength);
        }
        long seq = b.getLong(start + 4);
        int requestId = b.getInt(start + 12);
        int blockIndex = b.getInt(start + 16);
        int blockCount = b.getInt(start + 20);
        int payloadLength = b.getInt(start + 24);
        int padding = b.getInt(start + 28);
        Fields.checkMin("seq", seq, 0);
        Fields.checkMin("requestId", requestId, 0);
        Fields.checkMin("blockCount", blockCount, 1);
        if (blockIndex < 0 || blockIndex >= blockCount) {
            throw Fields.invalid("blockIndex must be in [0, " + blockCount + "), was " + blockIndex);
        }
        if (payloadLength != length - headerLength) {
            throw Fields.invalid("payloadLength " + payloadLength + " does not match the frame's "
                    + (length - headerLength) + " payload bytes");
        }
        if (padding < 0 || padding > payloadLength) {
            throw Fields.invalid("padding must be in [0, " + payloadLength + "], was " + padding);
        }
        boolean lastFlag = (flags & FLAG_LAST) != 0;
        if (lastFlag != (blockIndex == blockCount - 1)) {
            throw Fields.invalid("last-block flag " + lastFlag + " contradicts block " + blockIndex + " of "
                    + blockCount);
        }
        int generation = 0;
        if ((flags & FLAG_GENERATION) != 0) {
            if (headerLength < GENERATION_HEADER_LENGTH) {
                throw Fields.invalid("a block frame with the generation flag needs a header of at least "
                        + GENERATION_HEADER_LENGTH + " bytes, had " + headerLength);
            }
            generation = b.getInt(start + HEADER_LENGTH);
            Fields.checkMin("generation", generation, 0);
        }
        return new Header(flags, headerLength, seq, requestId, blockIndex, blockCount, payloadLength, padding,
                generation);
    }

    /**
     * Decodes the frame in {@code frame}'s remaining bytes, copying the payload; does not change
     * {@code frame}'s position.
     *
     * @throws ProtocolException as {@link #readHeader}
     */
    public static BlockFrame decode(ByteBuffer frame) {
        Header h = readHeader(frame);
        byte[] payload = new byte[h.payloadLength()];
        frame.duplicate().position(frame.position() + h.headerLength()).get(payload);
        return new BlockFrame(h.seq(), Block.wrap(h.requestId(), h.blockIndex(), h.blockCount(), payload, h.padding()),
                h.generation());
    }

    /** Decodes a whole frame; see {@link #decode(ByteBuffer)}. */
    public static BlockFrame decode(byte[] frame) {
        return decode(ByteBuffer.wrap(frame));
    }
}
