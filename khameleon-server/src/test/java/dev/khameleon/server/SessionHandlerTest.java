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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The session handler in memory: protocol errors become an error message and a close frame with the
 * right status; a valid hello gets its welcome; the hello deadline, the session cap and the
 * cache-block budget count only accepted hellos. The application waits for a state, so no scheduler
 * job (and no other thread) is involved.
 */
class SessionHandlerTest {
    private KhameleonServer server;
    private EmbeddedChannel ch;

    private final List<EmbeddedChannel> others = new ArrayList<>();

    @BeforeEach
    void setUp() {
        start(KhameleonServer.builder());
    }

    /** (Re)starts the server with {@code b}'s settings and opens {@link #ch} on it. */
    private void start(KhameleonServer.Builder b) {
        if (server != null) {
            tearDown();
        }
        server = b.seed(1)
                .application(Application.builder("app").blockSource(TestApps.inMemory(10, 2, 64))
                        .predictor(ServerPredictor.point(10, 50, 150)).horizons(50, 150).waitForState(true).build())
                .build();
        ch = connect();
    }

    /** A connection whose WebSocket handshake is done, on a frozen clock. */
    private EmbeddedChannel connect() {
        ServerRuntime rt = server.runtime();
        EmbeddedChannel c = new EmbeddedChannel();
        // The message codecs and the session handler, as on an attached connection, without the idle handler.
        new WebSocketPipeline(0, 64 * 1024, 10_000, 2_000).addAttached(c.pipeline(), false,
                () -> new HelloHandler(rt, rt.appAt("/app"), null));
        c.freezeTime();
        c.pipeline().fireUserEventTriggered(
                new WebSocketServerProtocolHandler.HandshakeComplete("/app", new DefaultHttpHeaders(), null));
        others.add(c);
        return c;
    }

    @AfterEach
    void tearDown() {
        others.forEach(EmbeddedChannel::finishAndReleaseAll);
        others.clear();
        server.close();
    }

    private ControlMessage readControl() {
        return readControl(ch);
    }

    private static ControlMessage readControl(EmbeddedChannel ch) {
        TextWebSocketFrame f = ch.readOutbound();
        assertNotNull(f, "a text frame");
        try {
            return ControlCodec.decodeFromServer(f.text());
        } finally {
            f.release();
        }
    }

    private void assertErrorThenClose(String code, int status) {
        assertErrorThenClose(ch, code, status);
    }

    private static void assertErrorThenClose(EmbeddedChannel ch, String code, int status) {
        ControlMessage.ErrorMessage e = assertInstanceOf(ControlMessage.ErrorMessage.class, readControl(ch));
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
    void theHelloHandler_replacesItselfWithThePushHandler_atTheWelcome() {
        assertInstanceOf(HelloHandler.class, ch.pipeline().last(), "before the hello");
        hello(ch, 7);
        assertInstanceOf(ControlMessage.Welcome.class, readControl());
        assertInstanceOf(PushHandler.class, ch.pipeline().last(), "after the welcome");
        assertEquals(1, ch.pipeline().names().stream().filter(n -> ch.pipeline().get(n) instanceof SessionHandler)
                .count(), "one session handler: " + ch.pipeline().names());
        ch.writeInbound(new TextWebSocketFrame(ControlCodec.encode(ControlMessage.Hello.of("app", 7))));
        assertErrorThenClose("duplicate_hello", 1002);
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

    private static void hello(EmbeddedChannel c, int cacheBlocks) {
        c.writeInbound(new TextWebSocketFrame(ControlCodec.encode(ControlMessage.Hello.of("app", cacheBlocks))));
    }

    /** Regression: without a hello deadline, connections kept alive by pings held their place forever. */
    @Test
    void noHelloWithinTheHelloTimeout_isMissingHello1002() {
        start(KhameleonServer.builder().helloTimeout(Duration.ofSeconds(2)));
        ch.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertNull(ch.readOutbound(), "nothing before the deadline");
        ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertErrorThenClose("missing_hello", 1002);
    }

    @Test
    void helloInTime_cancelsTheHelloDeadline() {
        start(KhameleonServer.builder().helloTimeout(Duration.ofSeconds(2)));
        hello(ch, 7);
        assertInstanceOf(ControlMessage.Welcome.class, readControl());
        ch.advanceTimeBy(10, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertNull(ch.readOutbound(), "no error after the welcome");
        assertTrue(ch.isOpen());
    }

    /** Regression: the session cap was taken at the handshake, so silent connections locked everyone out. */
    @Test
    void connectionsWithoutHello_doNotTakeSessionPlaces() {
        start(KhameleonServer.builder().maxSessions(1));
        EmbeddedChannel legit = connect();
        EmbeddedChannel late = connect();
        assertEquals(0, server.metrics().activeSessions(), "no hello, no session");
        hello(legit, 7);
        assertInstanceOf(ControlMessage.Welcome.class, readControl(legit));
        hello(late, 7);
        assertErrorThenClose(late, "too_many_sessions", 1013);
        assertEquals(1, server.metrics().sessionsRejected());
        assertTrue(ch.isOpen(), "the silent connection waits for its hello deadline");
    }

    @Test
    void cacheBudget_refusesAHelloThatWouldExceedItUntilPlacesAreFreed() {
        start(KhameleonServer.builder().maxCacheBlocks(100).maxTotalCacheBlocks(100));
        EmbeddedChannel b = connect();
        EmbeddedChannel c = connect();
        hello(ch, 60);
        assertInstanceOf(ControlMessage.Welcome.class, readControl());
        hello(b, 50);
        ControlMessage.ErrorMessage e = assertInstanceOf(ControlMessage.ErrorMessage.class, readControl(b));
        assertEquals("too_many_sessions", e.code());
        assertTrue(e.message().contains("budget"), e.message());
        hello(c, 40);
        assertInstanceOf(ControlMessage.Welcome.class, readControl(c));
        assertEquals(100, server.runtime().cacheBlocksInUse());
        ch.close();
        assertEquals(40, server.runtime().cacheBlocksInUse(), "a closed session frees its blocks");
        EmbeddedChannel d = connect();
        hello(d, 60);
        assertInstanceOf(ControlMessage.Welcome.class, readControl(d));
    }

    @Test
    void cacheAboveMaxCacheBlocks_isLimitExceeded() {
        start(KhameleonServer.builder());
        hello(ch, 16_385);
        assertErrorThenClose("limit_exceeded", 1008);
        assertEquals(0, server.runtime().cacheBlocksInUse());
    }

    @Test
    void authenticatorThatThrowsAnError_closesWithInternalError() {
        if (server != null) {
            tearDown();
        }
        server = KhameleonServer.builder().seed(1)
                .application(Application.builder("app").blockSource(TestApps.inMemory(10, 2, 64)).waitForState(true)
                        .authenticator(token -> {
                            throw new StackOverflowError("broken authenticator");
                        }).build())
                .build();
        ch = connect();
        hello(ch, 7);
        assertErrorThenClose("internal_error", 1011);
        assertEquals(0, server.metrics().activeSessions());
    }

    /** A client that stops reading before its hello (e.g. while flooding pings) is closed at the stall timeout. */
    @Test
    void unwritableBeforeHello_isClosedAsSlowConsumer() {
        start(KhameleonServer.builder().writeStallTimeout(Duration.ofSeconds(1)).helloTimeout(Duration.ofMinutes(1)));
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        ch.pipeline().fireChannelWritabilityChanged();
        ch.advanceTimeBy(1100, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertErrorThenClose("slow_consumer", 1008);
    }

    /** The per-session rate cap bounds the pace itself, not only the estimate the gain multiplies. */
    @Test
    void rateCap_boundsThePace() {
        start(KhameleonServer.builder().maxBytesPerSecond(20_000).pacingGain(1.25));
        hello(ch, 7);
        assertInstanceOf(ControlMessage.Welcome.class, readControl());
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":1e9}"));
        Session s = server.runtime().sessions().get(0);
        assertEquals(20_000, s.metrics().bandwidthBytesPerSecond());
        assertEquals(20_000, s.pacingBytesPerSecond(), "not 25,000: the gain stops at the cap");
    }
}
