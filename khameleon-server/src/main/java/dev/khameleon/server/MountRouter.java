package dev.khameleon.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;

/**
 * Serves a mounted server's applications on a connection of the application's own Netty HTTP
 * server: it sits after the user's HTTP codec and looks at each request. A request for an
 * application's path, or for {@code /healthz} when no application is mounted there, takes the
 * connection over; every other request, with its content, passes on unchanged to the handlers
 * after it, so the user's routes keep working (also on a keep-alive connection, request after
 * request).
 *
 * <p>Taking over applies what {@link ServerInitializer} applies at accept on the server's own port:
 * the per-address limits (a refused connection is closed at once), the write-buffer water marks,
 * {@code SO_SNDBUF} and {@code TCP_NODELAY}; then it installs the upgrade-request aggregator and the
 * {@link HandshakeGate} after itself (whose handshake timer starts now, with the request), removes
 * itself and passes the request on. From then on the connection belongs to Khameleon: the handlers
 * after it see no more messages.
 *
 * <p>One instance per channel (not sharable). Confined to the channel's event loop.
 */
final class MountRouter extends ChannelInboundHandlerAdapter {
    private final ServerRuntime server;
    /** The request that took the connection was refused under the per-address limits. */
    private boolean refused;

    MountRouter(ServerRuntime server) {
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            // The rest of a refused request, or anything pipelined after it: the connection is closing.
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest req && isKhameleonPath(HandshakeGate.rawPath(req.uri()))) {
            takeOver(ctx, msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private boolean isKhameleonPath(String path) {
        return server.appAt(path) != null || HandshakeGate.HEALTH_PATH.equals(path);
    }

    private void takeOver(ChannelHandlerContext ctx, Object request) {
        Channel ch = ctx.channel();
        if (!server.admit(ch)) {
            refused = true;
            ReferenceCountUtil.release(request);
            return;
        }
        ServerConfig c = server.config;
        // The session's back-pressure works on these marks; the user's server may have set others.
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(c.writeBufferLowBytes(), c.writeBufferHighBytes()));
        if (ch.config() instanceof SocketChannelConfig socket) {
            socket.setTcpNoDelay(true); // the sender paces frames itself; Nagle would hold them back
            if (c.sendBufferBytes() > 0) {
                socket.setSendBufferSize(c.sendBufferBytes());
            }
            if (c.notSentLowWaterBytes() > 0) {
                Transports.notSentLowWater(ch, c.notSentLowWaterBytes());
            }
        }
        ChannelPipeline p = ctx.pipeline();
        p.addAfter(ctx.name(), "khameleon-http-aggregator", new HttpObjectAggregator(ServerInitializer.MAX_HANDSHAKE_BYTES));
        p.addAfter("khameleon-http-aggregator", "khameleon-gate", new HandshakeGate(server));
        p.remove(this);
        ctx.fireChannelRead(request);
    }
}
