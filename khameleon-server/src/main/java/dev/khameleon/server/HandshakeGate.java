package dev.khameleon.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.CharsetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Routes a WebSocket upgrade request to the application mounted at its path, or refuses it with an
 * HTTP status: 404 for an unknown path, 403 for an origin outside the allow-list, 400 for a request
 * that is not a WebSocket upgrade, 408 when no request arrives within the handshake timeout.
 *
 * <p>On acceptance it installs the WebSocket handlers for that application after itself, removes
 * itself and passes the request on to the protocol handler, which completes the handshake.
 */
final class HandshakeGate extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(HandshakeGate.class);

    private final ServerRuntime server;
    private ScheduledFuture<?> timeout;

    HandshakeGate(ServerRuntime server) {
        this.server = server;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> {
            if (ctx.channel().isActive()) {
                refuse(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "no WebSocket upgrade request within "
                        + server.config.handshakeTimeoutMillis() + " ms");
            }
        }, server.config.handshakeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timeout.cancel(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ServerRuntime.App app = server.appAt(new QueryStringDecoder(req.uri()).path());
        boolean accepted = false;
        try {
            accepted = admit(ctx, req, app);
        } finally {
            if (!accepted) {
                ReferenceCountUtil.release(req);
            }
        }
        if (!accepted) {
            return;
        }
        ServerConfig c = server.config;
        String path = app.application().path();
        ChannelPipeline p = ctx.pipeline();
        String name = ctx.name();
        if (c.readIdleTimeoutMillis() > 0) {
            p.addAfter(name, "ws-idle", new IdleStateHandler(c.readIdleTimeoutMillis(), 0, 0, TimeUnit.MILLISECONDS));
            name = "ws-idle";
        }
        p.addAfter(name, "ws-protocol", new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(path)
                .checkStartsWith(true)
                .handshakeTimeoutMillis(c.handshakeTimeoutMillis())
                .forceCloseTimeoutMillis(c.closeTimeoutMillis())
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .decoderConfig(WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(c.maxFramePayloadBytes())
                        .expectMaskedFrames(true)
                        .allowExtensions(false)
                        .closeOnProtocolViolation(true)
                        .withUTF8Validator(true)
                        .build())
                .build()));
        p.addAfter("ws-protocol", "ws-aggregator", new WebSocketFrameAggregator(c.maxFramePayloadBytes()));
        p.addAfter("ws-aggregator", "ws-session", new SessionHandler(server, app));
        p.remove(this);
        ctx.fireChannelRead(req);
    }

    /** Checks the request; refuses it (and returns false) or returns true to go on. */
    private boolean admit(ChannelHandlerContext ctx, FullHttpRequest req, ServerRuntime.App app) {
        if (!req.decoderResult().isSuccess()) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request");
            return false;
        }
        if (app == null) {
            refuse(ctx, HttpResponseStatus.NOT_FOUND, "no application at " + new QueryStringDecoder(req.uri()).path());
            return false;
        }
        String origin = req.headers().get(HttpHeaderNames.ORIGIN);
        if (!server.config.allowedOrigins().isEmpty() && origin != null
                && !server.config.allowedOrigins().contains(origin)) {
            refuse(ctx, HttpResponseStatus.FORBIDDEN, "origin " + origin + " is not allowed");
            return false;
        }
        if (!HttpMethod.GET.equals(req.method())
                || !req.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "expected a WebSocket upgrade (GET with Upgrade: websocket)");
            return false;
        }
        return true;
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
        server.handshakesRefused.increment();
        log.info("refused connection from {}: {} {}", ctx.channel().remoteAddress(), status.code(), reason);
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(reason + "\n", CharsetUtil.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }
}
