package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageAggregationException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The last handler of a WebSocket connection, in one of its two phases: {@link HelloHandler} until
 * the welcome, then {@link PushHandler}, which replaces it. Both hand channel events to the
 * connection's {@link Session}, and control messages to their own {@link #onMessage}. The handlers before it own ping, pong and close frames, and
 * {@link ControlMessageCodec} and {@link BlockFrameEncoder} right before it (see
 * {@link WebSocketPipeline}) let the session read and write messages, not frames.
 * Runs on the channel's event loop; releases every frame it receives.
 *
 * <p>Errors caused by the client (corrupt or oversized frames, a new message started inside a
 * fragmented one, a reset connection) close the session with one log line and
 * no stack trace; anything else is a server bug, logged with its stack trace and closed as
 * {@code internal_error}.
 */
abstract class SessionHandler extends SimpleChannelInboundHandler<Object> {
    private static final Logger log = LoggerFactory.getLogger(SessionHandler.class);

    /** The connection's session; set when the handler is added. */
    protected Session session;

    /** A control message from the client, decoded by {@link ControlMessageCodec}. */
    abstract void onMessage(ChannelHandlerContext ctx, ControlMessage m);

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            session.onIdle();
        } else if (evt instanceof ControlFrameHandler.PingLimitExceeded e) {
            session.closeWithError(ErrorCode.LIMIT_EXCEEDED, "more than " + e.limit() + " pings within a second");
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlMessage m) {
            if (!session.isClosing()) {
                onMessage(ctx, m);
            }
        } else if (msg instanceof BinaryWebSocketFrame) {
            session.onBinary();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        session.onWritabilityChanged();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        session.onInactive();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A decoder wraps what it did not throw itself (e.g. the aggregator's MessageAggregationException).
        Throwable c = cause.getClass() == DecoderException.class && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof ProtocolException bad) {
            // ControlMessageCodec could not decode a text frame: the client's error, closed with its code.
            session.closeWithError(bad.code(), bad.getMessage());
        } else if (c instanceof CorruptedWebSocketFrameException corrupt) {
            // The decoder has already sent the close frame and is closing the connection.
            ErrorCode code = corrupt.closeStatus() != null
                    && corrupt.closeStatus().code() == WebSocketCloseStatus.MESSAGE_TOO_BIG.code()
                    ? ErrorCode.FRAME_TOO_LARGE : ErrorCode.INVALID_MESSAGE;
            session.onProtocolViolation(code, c.getMessage());
        } else if (c instanceof TooLongFrameException) {
            session.closeWithError(ErrorCode.FRAME_TOO_LARGE, "message too large: " + c.getMessage());
        } else if (c instanceof MessageAggregationException) {
            session.closeWithError(ErrorCode.INVALID_MESSAGE, "a new message started before the fragmented one ended");
        } else if (c instanceof IOException || c instanceof PrematureChannelClosureException) {
            // The client went away (reset, or closed in the middle of a fragmented message).
            log.debug("session {}: connection error: {}", session.id(), c.toString());
            ctx.close();
        } else {
            log.warn("session {}: unexpected error", session.id(), cause);
            session.closeWithError(ErrorCode.INTERNAL_ERROR, "unexpected server error");
        }
    }
}
