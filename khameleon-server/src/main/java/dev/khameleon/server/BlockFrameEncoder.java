package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockFrame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;

import java.util.List;

/**
 * Encodes a {@link BlockFrame} as one binary WebSocket frame ({@code docs/protocol.md}, section
 * 4): the header is written straight into the frame's buffer, followed by the payload, in one
 * allocation of exactly the frame's size. An application that binds request ids per session
 * has every header carry the generation ({@value BlockFrame#GENERATION_HEADER_LENGTH} bytes,
 * generation 0 included), so that all its frames have one length; others have
 * {@value BlockFrame#HEADER_LENGTH}-byte headers. Stateless and {@linkplain Sharable sharable}.
 */
@ChannelHandler.Sharable
final class BlockFrameEncoder extends MessageToMessageEncoder<BlockFrame> {
    private static final BlockFrameEncoder PLAIN = new BlockFrameEncoder(false);
    private static final BlockFrameEncoder WITH_GENERATION = new BlockFrameEncoder(true);

    private final boolean withGeneration;

    private BlockFrameEncoder(boolean withGeneration) {
        this.withGeneration = withGeneration;
    }

    /** The encoder for an application with ({@code true}) or without a request scope. */
    static BlockFrameEncoder of(boolean withGeneration) {
        return withGeneration ? WITH_GENERATION : PLAIN;
    }

    /** The bytes of a frame for a block of {@code blockSize} bytes. */
    static int frameBytes(boolean withGeneration, int blockSize) {
        return (withGeneration ? BlockFrame.GENERATION_HEADER_LENGTH : BlockFrame.HEADER_LENGTH) + blockSize;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, BlockFrame frame, List<Object> out) {
        Block b = frame.block();
        int headerLength = withGeneration ? BlockFrame.GENERATION_HEADER_LENGTH : BlockFrame.HEADER_LENGTH;
        int length = headerLength + b.size();
        ByteBuf buf = ctx.alloc().buffer(length, length);
        // The layout of BlockFrame#writeHeader, written with ByteBuf's big-endian writes: no
        // intermediate header array. BlockFrameEncoderTest pins the bytes to BlockFrame.encode's.
        buf.writeByte(BlockFrame.MAGIC)
                .writeByte(BlockFrame.VERSION)
                .writeByte((b.isLast() ? BlockFrame.FLAG_LAST : 0) | (withGeneration ? BlockFrame.FLAG_GENERATION : 0))
                .writeByte(headerLength)
                .writeLong(frame.seq())
                .writeInt(b.requestId())
                .writeInt(b.index())
                .writeInt(b.count())
                .writeInt(b.size())
                .writeInt(b.padding());
        if (withGeneration) {
            buf.writeInt(frame.generation());
        }
        buf.writeBytes(b.payload());
        out.add(new BinaryWebSocketFrame(buf));
    }
}
