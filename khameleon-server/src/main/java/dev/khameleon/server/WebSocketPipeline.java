package dev.khameleon.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one place that adds a Khameleon connection's WebSocket handlers ({@code ws-*}), in protocol
 * order, nearest the socket first:
 *
 * <ol>
 *   <li>{@value #IDLE}: fires the idle event when the client sends nothing for the read-idle
 *       timeout (absent when that is 0);
 *   <li>{@value #CONTROL}: pongs without queueing them, the ping limit, inbound pacing
 *       ({@link ControlFrameHandler});
 *   <li>{@value #CLOSE}: ends a close handshake the server started ({@link CloseHandshakeHandler});
 *   <li>{@value #PROTOCOL}: Netty's upgrade, frame codec and close frames, RFC 6455 only;
 *   <li>{@value #AGGREGATOR}: joins a fragmented message, up to the largest frame;
 *   <li>{@value #BLOCK_ENCODER} and {@value #CONTROL_CODEC}: turn the session's messages into
 *       frames and back, right before the session handler;
 *   <li>{@value #SESSION}: the session handler.
 * </ol>
 *
 * <p>A connection upgraded on a socket gets them all ({@link #addAfterUpgrade}); one that another
 * WebSocket stack accepted gets only the idle handler and the last three ({@link #addAttached}),
 * since that stack does the handshake, the framing, pings and close frames. It takes only the
 * settings it reads and the handlers to place, so a test can assemble either pipeline on an
 * {@code EmbeddedChannel}. Immutable; call on the channel's event loop, or before registration.
 */
final class WebSocketPipeline {
    static final String IDLE = "ws-idle";
    static final String CONTROL = "ws-control";
    static final String CLOSE = "ws-close";
    static final String PROTOCOL = "ws-protocol";
    static final String AGGREGATOR = "ws-aggregator";
    static final String BLOCK_ENCODER = "ws-block-encoder";
    static final String CONTROL_CODEC = "ws-control-codec";
    static final String SESSION = "ws-session";

    private final long readIdleTimeoutMillis;
    private final int maxFramePayloadBytes;
    private final long handshakeTimeoutMillis;
    private final long closeTimeoutMillis;

    /**
     * @param readIdleTimeoutMillis 0 for no idle handler
     * @param maxFramePayloadBytes  the largest frame, and message, a client may send
     * @param handshakeTimeoutMillis how long the protocol handler waits for its handshake to complete
     * @param closeTimeoutMillis    how long a close frame the server sent may wait for its answer
     */
    WebSocketPipeline(long readIdleTimeoutMillis, int maxFramePayloadBytes, long handshakeTimeoutMillis,
                      long closeTimeoutMillis) {
        this.readIdleTimeoutMillis = readIdleTimeoutMillis;
        this.maxFramePayloadBytes = maxFramePayloadBytes;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.closeTimeoutMillis = closeTimeoutMillis;
    }

    /** With a server's configured timeouts and frame limit. */
    static WebSocketPipeline of(ServerConfig c) {
        return new WebSocketPipeline(c.readIdleTimeoutMillis(), c.maxFramePayloadBytes(), c.handshakeTimeoutMillis(),
                c.closeTimeoutMillis());
    }

    /**
     * Adds every {@code ws-*} handler right after the handler named {@code after}, for an upgrade
     * request to {@code path} that is about to pass on.
     *
     * @param controlFrames the connection's {@link ControlFrameHandler}
     * @param scoped        whether the application binds request ids per session (its block
     *                      frames then carry the generation)
     * @param session       makes the session handler, last in the pipeline
     */
    void addAfterUpgrade(ChannelPipeline p, String after, String path, ChannelHandler controlFrames, boolean scoped,
                         Supplier<? extends ChannelHandler> session) {
        String last = addIdle(p, after);
        last = add(p, last, CONTROL, controlFrames);
        last = add(p, last, CLOSE, new CloseHandshakeHandler());
        last = add(p, last, PROTOCOL, new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(path)
                .checkStartsWith(true) // the gate has matched the path; this only lets a query string through
                .handshakeTimeoutMillis(handshakeTimeoutMillis)
                .forceCloseTimeoutMillis(closeTimeoutMillis)
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .decoderConfig(WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(maxFramePayloadBytes)
                        .expectMaskedFrames(true)
                        .allowExtensions(false)
                        .closeOnProtocolViolation(true)
                        .withUTF8Validator(true)
                        .build())
                .build()));
        last = add(p, last, AGGREGATOR, new WebSocketFrameAggregator(maxFramePayloadBytes));
        addSession(p, last, scoped, session);
    }

    /**
     * Adds the handlers of a connection another WebSocket stack accepted at the end of {@code p}:
     * the idle handler, the message codecs and the session handler.
     *
     * @param scoped  as for {@link #addAfterUpgrade}
     * @param session makes the session handler, last in the pipeline
     */
    void addAttached(ChannelPipeline p, boolean scoped, Supplier<? extends ChannelHandler> session) {
        addSession(p, addIdle(p, null), scoped, session);
    }

    private String addIdle(ChannelPipeline p, String after) {
        if (readIdleTimeoutMillis <= 0) {
            return after;
        }
        return add(p, after, IDLE, new IdleStateHandler(readIdleTimeoutMillis, 0, 0, TimeUnit.MILLISECONDS));
    }

    private static void addSession(ChannelPipeline p, String after, boolean scoped,
                                   Supplier<? extends ChannelHandler> session) {
        String last = add(p, after, BLOCK_ENCODER, BlockFrameEncoder.of(scoped));
        last = add(p, last, CONTROL_CODEC, ControlMessageCodec.INSTANCE);
        add(p, last, SESSION, session.get());
    }

    /** Adds {@code handler} after the handler named {@code after}, or last when that is null; returns its name. */
    private static String add(ChannelPipeline p, String after, String name, ChannelHandler handler) {
        if (after == null) {
            p.addLast(name, handler);
        } else {
            p.addAfter(after, name, handler);
        }
        return name;
    }
}
