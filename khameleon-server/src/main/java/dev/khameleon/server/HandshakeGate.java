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
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.CharsetUtil;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Routes a WebSocket upgrade request to the application mounted at its path, or refuses it with an
 * HTTP status and closes the connection: 404 for an unknown path, 403 for a {@code Host} or an
 * origin that is not allowed, 400 for a request that is not a well-formed WebSocket upgrade (not HTTP/1.1, no or two
 * {@code Host} headers, two {@code Origin} headers, a {@code Sec-WebSocket-Key} that is not 16
 * bytes in base64), 426 for a WebSocket version other than 13 (RFC 6455), 408 when no request
 * arrives within the handshake timeout.
 *
 * <p>The path is matched on the raw request URI (up to a {@code ?}), exactly as the WebSocket
 * protocol handler matches it, so an escaped path such as {@code /%67allery} is a 404 and never
 * reaches a handler that would ignore it. On acceptance the gate installs the WebSocket handlers
 * after itself ({@link WebSocketPipeline}), hands its handshake timer to the session handler (which cancels it only when the
 * handshake completes, so a handshake that stalls or fails after the gate still ends the
 * connection at the timeout), removes itself and passes the request on.
 */
final class HandshakeGate extends ChannelInboundHandlerAdapter {
    /** The only WebSocket version served: RFC 6455. Older drafts lack masking and UTF-8 checks. */
    static final String WEBSOCKET_VERSION = "13";
    /** The health-check path, answered here unless an application is mounted at it. */
    static final String HEALTH_PATH = "/healthz";
    private static final Logger log = LoggerFactory.getLogger(HandshakeGate.class);

    private final ServerRuntime server;
    private ScheduledFuture<?> timeout;
    private boolean handedOver;
    private boolean refused;

    HandshakeGate(ServerRuntime server) {
        this.server = server;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> {
            if (!ctx.channel().isActive()) {
                return;
            }
            if (refused) {
                ctx.channel().close(); // the refusal has not been written: the client is not reading
            } else if (handedOver) {
                server.handshakesRefused.increment();
                server.refusals.log(Level.INFO, "refused connection from " + ctx.channel().remoteAddress(),
                        "handshake_timeout", "the WebSocket handshake did not complete within "
                                + server.config.handshakeTimeoutMillis() + " ms");
                ctx.channel().close();
            } else {
                refuse(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "handshake_timeout",
                        "no WebSocket upgrade request within " + server.config.handshakeTimeoutMillis() + " ms");
            }
        }, server.config.handshakeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (!handedOver) {
            timeout.cancel(false);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req) || refused) {
            // After an answer that closes the connection, pipelined requests are not read.
            ReferenceCountUtil.release(msg);
            return;
        }
        if (HEALTH_PATH.equals(rawPath(req.uri())) && server.appAt(HEALTH_PATH) == null) {
            ReferenceCountUtil.release(req);
            answerHealth(ctx, req.method());
            return;
        }
        ServerRuntime.App app = server.appAt(rawPath(req.uri()));
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
        WebSocketPipeline.of(server.config).addAfterUpgrade(ctx.pipeline(), ctx.name(), app.application().path(),
                new ControlFrameHandler(server), app.application().requestScope().isPresent(),
                () -> new HelloHandler(server, app, timeout));
        handedOver = true;
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove(this);
        ctx.fireChannelRead(req);
        UpgradeHead.release(pipeline); // the handshake ran: a hello sent with the request follows it
    }

    /**
     * An error before the upgrade completed, e.g. the connection closed in the middle of a request
     * body: the client's doing, so one DEBUG line and no stack trace, and the connection is closed.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("connection from {}: error before the WebSocket handshake: {}", ctx.channel().remoteAddress(),
                cause.toString());
        ctx.close();
    }

    /** The request URI's path as sent (not percent-decoded), without its query string. */
    static String rawPath(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    /** Checks the request; refuses it (and returns false) or returns true to go on. */
    private boolean admit(ChannelHandlerContext ctx, FullHttpRequest req, ServerRuntime.App app) {
        if (!req.decoderResult().isSuccess()) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "bad_request", "malformed HTTP request");
            return false;
        }
        if (app == null) {
            refuse(ctx, HttpResponseStatus.NOT_FOUND, "not_found", "no application at " + rawPath(req.uri()));
            return false;
        }
        if (server.draining) {
            refuse(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "draining", "the server is draining");
            return false;
        }
        HttpHeaders h = req.headers();
        String malformed = malformedUpgrade(req);
        if (malformed != null) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "bad_request", malformed);
            return false;
        }
        String host = h.get(HttpHeaderNames.HOST);
        if (!hostAllowed(server.config, host, isLoopback(ctx.channel().localAddress()))) {
            refuse(ctx, HttpResponseStatus.FORBIDDEN, "forbidden_host", "host " + host + " is not allowed");
            return false;
        }
        String origin = h.get(HttpHeaderNames.ORIGIN);
        if (origin != null && !originAllowed(origin, host)) {
            refuse(ctx, HttpResponseStatus.FORBIDDEN, "forbidden_origin", "origin " + origin + " is not allowed");
            return false;
        }
        if (!HttpMethod.GET.equals(req.method())
                || !h.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                || !h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                || h.get(HttpHeaderNames.SEC_WEBSOCKET_KEY) == null) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "bad_request",
                    "expected a WebSocket upgrade (GET with Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Key)");
            return false;
        }
        String version = h.get(HttpHeaderNames.SEC_WEBSOCKET_VERSION);
        if (!WEBSOCKET_VERSION.equals(version)) {
            refuse(ctx, HttpResponseStatus.UPGRADE_REQUIRED, "unsupported_websocket_version",
                    "WebSocket version " + version + " is not supported; this server speaks version 13 (RFC 6455)");
            return false;
        }
        return true;
    }

    /**
     * Why {@code req} is not an upgrade RFC 6455 allows (section 4.1), or null. Only one answer per
     * header is unambiguous: with two {@code Host} or {@code Origin} headers, a proxy and this server
     * could each check a different one.
     */
    static String malformedUpgrade(FullHttpRequest req) {
        if (!HttpVersion.HTTP_1_1.equals(req.protocolVersion())) {
            return "a WebSocket upgrade must be HTTP/1.1, was " + req.protocolVersion();
        }
        HttpHeaders h = req.headers();
        int hosts = h.getAll(HttpHeaderNames.HOST).size();
        if (hosts != 1) {
            return hosts == 0 ? "missing Host header" : hosts + " Host headers";
        }
        int origins = h.getAll(HttpHeaderNames.ORIGIN).size();
        if (origins > 1) {
            return origins + " Origin headers";
        }
        List<String> keys = h.getAll(HttpHeaderNames.SEC_WEBSOCKET_KEY);
        if (keys.size() > 1) {
            return keys.size() + " Sec-WebSocket-Key headers";
        }
        if (keys.size() == 1 && !isNonce(keys.get(0))) {
            return "Sec-WebSocket-Key must be 16 bytes in base64";
        }
        return null;
    }

    /** Whether {@code key} is 16 bytes in base64 (24 characters with their padding), as RFC 6455 asks. */
    private static boolean isNonce(String key) {
        String k = key.trim();
        if (k.length() != 24) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(k).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Whether a {@code Host} header value may reach an application: its name (the port aside) is one
     * of {@link ServerConfig#allowedHosts}, or, with none configured, {@code localhost} or an IP
     * address when the connection arrived on a loopback address ({@code onLoopback}), any otherwise.
     * An IP address cannot be rebound, which is all a DNS-rebinding page has.
     */
    static boolean hostAllowed(ServerConfig c, String host, boolean onLoopback) {
        Set<String> allowed = c.allowedHosts();
        if (allowed.contains("*") || allowed.isEmpty() && !onLoopback) {
            return true;
        }
        if (host == null) {
            return false;
        }
        String h = host.trim().toLowerCase(Locale.ROOT);
        int close = h.indexOf(']');
        String name = h.startsWith("[") ? (close < 0 ? h : h.substring(0, close + 1))
                : h.indexOf(':') >= 0 ? h.substring(0, h.indexOf(':')) : h;
        if (!allowed.isEmpty()) {
            return allowed.contains(name);
        }
        return name.equals("localhost") || isIpLiteral(name);
    }

    private static boolean isIpLiteral(String name) {
        if (name.startsWith("[") && name.endsWith("]")) {
            return NetUtil.isValidIpV6Address(name.substring(1, name.length() - 1));
        }
        return NetUtil.isValidIpV4Address(name);
    }

    private static boolean isLoopback(SocketAddress local) {
        return local instanceof InetSocketAddress a && a.getAddress() != null && a.getAddress().isLoopbackAddress();
    }

    private boolean originAllowed(String origin, String host) {
        return originAllowed(server.config, origin, host);
    }

    /** Same-origin (the origin's host and port are the request's {@code Host}), listed, or any if so configured. */
    static boolean originAllowed(ServerConfig c, String origin, String host) {
        if (c.allowAnyOrigin() || c.allowedOrigins().contains(origin)) {
            return true;
        }
        if (host == null) {
            return false;
        }
        try {
            URI u = new URI(origin);
            String scheme = u.getScheme();
            return ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
                    && host.equalsIgnoreCase(u.getRawAuthority());
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /**
     * {@code GET /healthz}: 200 {@code ok} while the server takes sessions, 503 {@code draining}
     * after {@link KhameleonServer#drain}; for a load balancer's health check. Not a refusal, so
     * not logged or counted; the connection closes after the answer.
     */
    private void answerHealth(ChannelHandlerContext ctx, HttpMethod method) {
        refused = true;
        boolean get = HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method);
        HttpResponseStatus status = !get ? HttpResponseStatus.METHOD_NOT_ALLOWED
                : server.draining ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK;
        String body = !get ? "GET only\n" : server.draining ? "draining\n" : "ok\n";
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                HttpMethod.HEAD.equals(method) ? Unpooled.EMPTY_BUFFER : Unpooled.copiedBuffer(body, CharsetUtil.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
        res.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String code, String reason) {
        refused = true;
        server.handshakesRefused.increment();
        server.refusals.log(Level.INFO, "refused connection from " + ctx.channel().remoteAddress(), code,
                "HTTP " + status.code() + ", " + reason);
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(LogText.clean(reason) + "\n", CharsetUtil.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (status == HttpResponseStatus.UPGRADE_REQUIRED) {
            res.headers().set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, WEBSOCKET_VERSION);
        }
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }
}
