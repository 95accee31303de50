package dev.khameleon.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;

/**
 * Finishes a close handshake the server started: once the server's close frame has been written,
 * the client's answering close frame closes the connection at once.
 *
 * <p>Why not close the socket as soon as the close frame is written: a client that is still sending
 * (states, rate reports) then has bytes in the server's receive buffer, and closing a socket with
 * unread bytes makes the kernel send a reset, which can reach the client before it has read the close
 * frame; the client then sees an abnormal closure (1006) instead of the server's code. Why not let
 * the protocol handler answer: it would write a second close frame, which a browser takes as a
 * protocol error, again 1006. A client that never answers is closed by the close timeout.
 *
 * <p>Sits between the frame decoder and the WebSocket protocol handler; a close frame the client
 * starts goes on to the protocol handler, which answers it. Confined to the channel's event loop.
 */
final class CloseHandshakeHandler extends ChannelDuplexHandler {
    private boolean closeSent;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof CloseWebSocketFrame) {
            closeSent = true;
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (closeSent && msg instanceof CloseWebSocketFrame answer) {
            answer.release();
            ctx.close();
            return;
        }
        super.channelRead(ctx, msg);
    }
}
