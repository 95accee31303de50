package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Text frames to client messages and server messages to text frames, in memory. */
class ControlMessageCodecTest {
    private final EmbeddedChannel ch = new EmbeddedChannel(ControlMessageCodec.INSTANCE);

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
    }

    @Test
    void decode_turnsAClientTextFrameIntoItsMessage() {
        ch.writeInbound(new TextWebSocketFrame(ControlCodec.encode(ControlMessage.Hello.of("app", 64))));
        ControlMessage.Hello h = assertInstanceOf(ControlMessage.Hello.class, ch.readInbound());
        assertEquals("app", h.application());
        assertEquals(64, h.cacheBlocks());
    }

    @Test
    void decode_malformedJson_failsWithTheProtocolCode() {
        DecoderException e = assertThrows(DecoderException.class,
                () -> ch.writeInbound(new TextWebSocketFrame("{not json")));
        assertEquals(ErrorCode.MALFORMED_JSON, assertInstanceOf(ProtocolException.class, e.getCause()).code());
        assertNull(ch.readInbound(), "nothing decoded");
    }

    @Test
    void decode_serverMessageFromAClient_isUnknownType() {
        String welcomeLike = ControlCodec.encode(ControlMessage.ErrorMessage.of(ErrorCode.SHUTDOWN, "x"));
        DecoderException e = assertThrows(DecoderException.class,
                () -> ch.writeInbound(new TextWebSocketFrame(welcomeLike)));
        assertEquals(ErrorCode.UNKNOWN_TYPE, assertInstanceOf(ProtocolException.class, e.getCause()).code());
    }

    @Test
    void decode_passesBinaryFramesThrough() {
        BinaryWebSocketFrame frame = new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1}));
        ch.writeInbound(frame);
        BinaryWebSocketFrame read = ch.readInbound();
        assertSame(frame, read);
        read.release();
    }

    @Test
    void encode_writesTheMessageAsOneTextFrame() {
        ControlMessage.ErrorMessage m = ControlMessage.ErrorMessage.of(ErrorCode.LIMIT_EXCEEDED, "too many");
        ch.writeOutbound(m);
        TextWebSocketFrame frame = ch.readOutbound();
        try {
            assertEquals(m, ControlCodec.decodeFromServer(frame.text()));
        } finally {
            frame.release();
        }
        assertFalse(ch.outboundMessages().iterator().hasNext());
    }

    @Test
    void encode_passesOtherObjectsThrough() {
        TextWebSocketFrame already = new TextWebSocketFrame("{}");
        ch.writeOutbound(already);
        TextWebSocketFrame read = ch.readOutbound();
        assertSame(already, read);
        read.release();
    }
}
