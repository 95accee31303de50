package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ProtocolException;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageToMessageCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;

import java.util.List;

/**
 * Turns a client's text frames into {@link ControlMessage}s and the server's control messages
 * into text frames ({@code docs/protocol.md}, section 3). Other frames and objects pass through.
 * A text frame that is not a valid client message fails with a {@link DecoderException} whose
 * cause is the {@link ProtocolException} naming the error code; the handler after this one
 * closes the session with it. Stateless and {@linkplain Sharable sharable}; runs on the
 * channel's event loop, where decoding is bounded by the frame size limit.
 */
@ChannelHandler.Sharable
final class ControlMessageCodec extends MessageToMessageCodec<TextWebSocketFrame, ControlMessage> {
    /** The one instance every pipeline shares. */
    static final ControlMessageCodec INSTANCE = new ControlMessageCodec();

    private ControlMessageCodec() {
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ControlMessage msg, List<Object> out) {
        out.add(new TextWebSocketFrame(ControlCodec.encode(msg)));
    }

    /** @throws ProtocolException as {@link ControlCodec#decodeFromClient}, wrapped by Netty */
    @Override
    protected void decode(ChannelHandlerContext ctx, TextWebSocketFrame frame, List<Object> out) {
        out.add(ControlCodec.decodeFromClient(frame.text()));
    }
}
