package dev.khameleon.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The {@code ws-*} handlers in memory: their names and protocol order on a socket's upgrade and on
 * an attached connection, the message codecs right before the session handler, and the idle
 * handler only when a read-idle timeout is set. No port and no server: the session handler is a
 * stand-in. {@link HandshakeGateTest} checks the gate's own assembly against {@link #UPGRADE_ORDER}.
 */
class WebSocketPipelineTest {
    /** The handlers of a socket's upgraded connection, nearest the socket first. */
    static final List<String> UPGRADE_ORDER = List.of("ws-idle", "ws-control", "ws-close", "ws-protocol",
            "ws-aggregator", "ws-block-encoder", "ws-control-codec", "ws-session");
    /** The handlers of an attached connection: the other stack does the handshake and the framing. */
    static final List<String> ATTACHED_ORDER = List.of("ws-idle", "ws-block-encoder", "ws-control-codec",
            "ws-session");

    private final WebSocketPipeline pipeline = new WebSocketPipeline(60_000, 64 * 1024, 10_000, 2_000);
    private final ChannelHandler session = new ChannelInboundHandlerAdapter();
    private final ChannelHandler controlFrames = new ChannelInboundHandlerAdapter();
    private final EmbeddedChannel ch = new EmbeddedChannel();

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

    private void assertCodecsRightBeforeTheSession(boolean scoped) {
        List<String> names = names();
        int s = names.indexOf(WebSocketPipeline.SESSION);
        assertEquals(List.of(WebSocketPipeline.BLOCK_ENCODER, WebSocketPipeline.CONTROL_CODEC), names.subList(s - 2, s));
        assertSame(BlockFrameEncoder.of(scoped), ch.pipeline().get(WebSocketPipeline.BLOCK_ENCODER));
        assertSame(ControlMessageCodec.INSTANCE, ch.pipeline().get(WebSocketPipeline.CONTROL_CODEC));
        assertSame(session, ch.pipeline().get(WebSocketPipeline.SESSION));
    }
}
