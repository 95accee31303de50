package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code ws-*} handlers in memory: their names and protocol order on a socket's upgrade and on
 * an attached connection, the message codecs right before the session handler, and the idle
 * handler only when a read-idle timeout is set. No port, no server for the pipeline itself.
 */
class WebSocketPipelineTest {
    private static final List<String> UPGRADE_ORDER = List.of(WebSocketPipeline.IDLE, WebSocketPipeline.CONTROL,
            WebSocketPipeline.CLOSE, WebSocketPipeline.PROTOCOL, WebSocketPipeline.AGGREGATOR,
            WebSocketPipeline.BLOCK_ENCODER, WebSocketPipeline.CONTROL_CODEC, WebSocketPipeline.SESSION);
    private static final List<String> ATTACHED_ORDER = List.of(WebSocketPipeline.IDLE,
            WebSocketPipeline.BLOCK_ENCODER, WebSocketPipeline.CONTROL_CODEC, WebSocketPipeline.SESSION);

    private final WebSocketPipeline pipeline = new WebSocketPipeline(60_000, 64 * 1024, 10_000, 2_000);
    private final ChannelHandler session = new ChannelInboundHandlerAdapter();
    private final ChannelHandler controlFrames = new ChannelInboundHandlerAdapter();
    private EmbeddedChannel ch = new EmbeddedChannel();

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
    }

    /** The names of the pipeline's handlers from the socket on, Netty's head and tail left out. */
    private List<String> names() {
        return List.copyOf(ch.pipeline().toMap().keySet());
    }

    private List<String> wsNames() {
        return names().stream().filter(n -> n.startsWith("ws-")).toList();
    }

    @Test
    void upgrade_addsEveryHandlerAfterTheGateInProtocolOrder() {
        ch.pipeline().addLast("gate", new ChannelInboundHandlerAdapter());
        ch.pipeline().addLast("after", new ChannelInboundHandlerAdapter());
        pipeline.addAfterUpgrade(ch.pipeline(), "gate", "/app", controlFrames, false, () -> session);

        assertEquals(UPGRADE_ORDER, wsNames());
        List<String> names = names();
        assertEquals("gate", names.get(0));
        assertEquals(WebSocketPipeline.IDLE, names.get(1), "right after the gate");
        assertEquals("after", names.get(names.size() - 1), "before what followed the gate");
        assertInstanceOf(IdleStateHandler.class, ch.pipeline().get(WebSocketPipeline.IDLE));
        assertSame(controlFrames, ch.pipeline().get(WebSocketPipeline.CONTROL));
        assertInstanceOf(CloseHandshakeHandler.class, ch.pipeline().get(WebSocketPipeline.CLOSE));
        assertInstanceOf(WebSocketServerProtocolHandler.class, ch.pipeline().get(WebSocketPipeline.PROTOCOL));
        assertInstanceOf(WebSocketFrameAggregator.class, ch.pipeline().get(WebSocketPipeline.AGGREGATOR));
        assertCodecsRightBeforeTheSession(false);
    }

    @Test
    void attached_addsIdleCodecsAndSessionOnly() {
        pipeline.addAttached(ch.pipeline(), true, () -> session);

        assertEquals(ATTACHED_ORDER, names());
        assertCodecsRightBeforeTheSession(true);
    }

    @Test
    void noReadIdleTimeout_attachedGetsNoIdleHandler() {
        new WebSocketPipeline(0, 64 * 1024, 10_000, 2_000).addAttached(ch.pipeline(), false, () -> session);
        assertEquals(ATTACHED_ORDER.subList(1, ATTACHED_ORDER.size()), names());
    }

    @Test
    void noReadIdleTimeout_upgradeGetsNoIdleHandler() {
        ch.pipeline().addLast("gate", new ChannelInboundHandlerAdapter());
        new WebSocketPipeline(0, 64 * 1024, 10_000, 2_000)
                .addAfterUpgrade(ch.pipeline(), "gate", "/app", controlFrames, false, () -> session);
        assertEquals(UPGRADE_ORDER.subList(1, UPGRADE_ORDER.size()), wsNames());
        assertEquals(WebSocketPipeline.CONTROL, names().get(1), "right after the gate");
    }

    /** The gate's real assembly, after a completed handshake: the same names in the same order. */
    @Test
    void acceptedUpgrade_throughTheGate_hasTheProtocolOrder() {
        KhameleonServer server = KhameleonServer.builder().seed(1)
                .application(Application.builder("app").blockSource(TestApps.inMemory(4, 1, 16)).build())
                .build();
        ch.finishAndReleaseAll();
        try {
            ch = new EmbeddedChannel(new HttpServerCodec(), new HandshakeGate(server.runtime()));
            ch.writeInbound(upgrade("/app"));
            ByteBuf res = ch.readOutbound();
            try {
                assertTrue(res.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 101"));
            } finally {
                res.release();
            }
            assertEquals(UPGRADE_ORDER, wsNames());
            assertInstanceOf(SessionHandler.class, ch.pipeline().get(WebSocketPipeline.SESSION));
            List<String> names = names();
            assertEquals(WebSocketPipeline.SESSION, names.get(names.size() - 1));
            assertEquals(WebSocketPipeline.CONTROL_CODEC, names.get(names.size() - 2));
            assertEquals(WebSocketPipeline.BLOCK_ENCODER, names.get(names.size() - 3));
        } finally {
            server.close();
        }
    }

    private void assertCodecsRightBeforeTheSession(boolean scoped) {
        List<String> names = names();
        int s = names.indexOf(WebSocketPipeline.SESSION);
        assertEquals(List.of(WebSocketPipeline.BLOCK_ENCODER, WebSocketPipeline.CONTROL_CODEC), names.subList(s - 2, s));
        assertSame(BlockFrameEncoder.of(scoped), ch.pipeline().get(WebSocketPipeline.BLOCK_ENCODER));
        assertSame(ControlMessageCodec.INSTANCE, ch.pipeline().get(WebSocketPipeline.CONTROL_CODEC));
        assertSame(session, ch.pipeline().get(WebSocketPipeline.SESSION));
    }

    private static FullHttpRequest upgrade(String uri) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        req.headers().set(HttpHeaderNames.HOST, "localhost")
                .set(HttpHeaderNames.UPGRADE, "websocket")
                .set(HttpHeaderNames.CONNECTION, "Upgrade")
                .set(HttpHeaderNames.SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ==")
                .set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
        return req;
    }
}
