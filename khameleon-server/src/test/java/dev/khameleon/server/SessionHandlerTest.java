package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ServerPredictor;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The session handler in memory: protocol errors become an error message and a close frame with the
 * right status; a valid hello gets its welcome. The application waits for a state, so no scheduler
 * job (and no other thread) is involved.
 */
class SessionHandlerTest {
    private KhameleonServer server;
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        server = KhameleonServer.builder().seed(1)
                .application(Application.builder("app").blockSource(TestApps.inMemory(10, 2, 64))
                        .predictor(ServerPredictor.point(10, 50, 150)).horizons(50, 150).waitForState(true).build())
                .build();
        ServerRuntime rt = server.runtime();
        ch = new EmbeddedChannel(new SessionHandler(rt, rt.appAt("/app"), null));
        ch.pipeline().fireUserEventTriggered(
                new WebSocketServerProtocolHandler.HandshakeComplete("/app", new DefaultHttpHeaders(), null));
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
        server.close();
    }

    private ControlMessage readControl() {
        TextWebSocketFrame f = ch.readOutbound();
        assertNotNull(f, "a text frame");
        try {
            return ControlCodec.decodeFromServer(f.text());
        } finally {
            f.release();
        }
    }

    private void assertErrorThenClose(String code, int status) {
        ControlMessage.ErrorMessage e = assertInstanceOf(ControlMessage.ErrorMessage.class, readControl());
        assertEquals(code, e.code());
        CloseWebSocketFrame close = ch.readOutbound();
        assertNotNull(close, "a close frame");
        try {
            assertEquals(status, close.statusCode());
            assertEquals(code, close.reasonText());
        } finally {
            close.release();
        }
    }

    @Test
    void malformedJson_isErrorAndClose1007() {
        ch.writeInbound(new TextWebSocketFrame("{oops"));
        assertErrorThenClose("malformed_json", 1007);
    }

    @Test
    void stateBeforeHello_isMissingHello1002() {
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"state\",\"time\":1,\"state\":{}}"));
        assertErrorThenClose("missing_hello", 1002);
    }

    @Test
    void binaryFrame_isUnsupportedData1003() {
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1})));
        assertErrorThenClose("unsupported_data", 1003);
    }

    @Test
    void hello_isAnsweredWithWelcome() {
        ch.writeInbound(new TextWebSocketFrame(ControlCodec.encode(ControlMessage.Hello.of("app", 7))));
        ControlMessage.Welcome w = assertInstanceOf(ControlMessage.Welcome.class, readControl());
        assertEquals(7, w.cacheBlocks());
        assertEquals(10, w.requestCount());
        assertEquals(64, w.blockSize());
        assertNull(ch.readOutbound(), "nothing is pushed before the first state");
        assertEquals(1, server.metrics().activeSessions());
    }

    @Test
    void error_closesTheConnectionAfterTheCloseFrame() {
        ch.writeInbound(new TextWebSocketFrame("{oops"));
        assertErrorThenClose("malformed_json", 1007);
        ch.runPendingTasks();
        assertFalse(ch.isOpen(), "the connection is closed once the close frame is written");
        assertNull(ch.readOutbound(), "one error per session");
        assertEquals(0, server.metrics().activeSessions());
        assertEquals(1L, server.metrics().errorsByCode().get("malformed_json"));
    }
}
