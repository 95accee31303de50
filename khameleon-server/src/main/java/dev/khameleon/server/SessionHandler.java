package dev.khameleon.server;

import dev.khameleon.core.protocol.ErrorCode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The last handler of a WebSocket connection: hands data frames and channel events to the
 * connection's {@link Session}. The protocol handler before it owns ping, pong and close frames.
 * Runs on the channel's event loop; releases every frame it receives.
 */
final class SessionHandler extends SimpleChannelInboundHandler<WebSocketFrame> {
    private static final Logger log = LoggerFactory.getLogger(SessionHandler.class);

    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private Session session;

    SessionHandler(ServerRuntime server, ServerRuntime.App app) {
        this.server = server;
        this.app = app;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        session = new Session(server, app, ctx.channel());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            session.onHandshakeComplete();
        } else if (evt instanceof IdleStateEvent) {
            session.onIdle();
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
        if (frame instanceof TextWebSocketFrame text) {
            session.onText(text.text());
        } else if (frame instanceof BinaryWebSocketFrame) {
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
        if (cause instanceof CorruptedWebSocketFrameException c) {
            // The decoder has already sent the close frame and is closing the connection.
            ErrorCode code = c.closeStatus() != null
                    && c.closeStatus().code() == WebSocketCloseStatus.MESSAGE_TOO_BIG.code()
                    ? ErrorCode.FRAME_TOO_LARGE : ErrorCode.INVALID_MESSAGE;
            session.onProtocolViolation(code, cause.getMessage());
        } else if (cause instanceof TooLongFrameException) {
            session.closeWithError(ErrorCode.FRAME_TOO_LARGE, "message too large: " + cause.getMessage());
        } else if (cause instanceof IOException) {
            log.debug("session {}: connection error: {}", session.id(), cause.toString());
            ctx.close();
        } else {
            log.warn("session {}: unexpected error", session.id(), cause);
            session.closeWithError(ErrorCode.INTERNAL_ERROR, "unexpected server error");
        }
    }
}
