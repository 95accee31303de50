package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The upgrade gate in memory: routing by path, the origin allow-list, non-upgrade requests. */
class HandshakeGateTest {
    private KhameleonServer server;
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        server = KhameleonServer.builder().seed(1).allowedOrigins("https://good.example")
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 1, 16)).build())
                .build();
        ch = new EmbeddedChannel(new HandshakeGate(server.runtime()));
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
        server.close();
    }

    private static FullHttpRequest upgrade(String uri, String origin) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        req.headers().set(HttpHeaderNames.HOST, "localhost")
                .set(HttpHeaderNames.UPGRADE, "websocket")
                .set(HttpHeaderNames.CONNECTION, "Upgrade")
                .set(HttpHeaderNames.SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ==")
                .set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
        if (origin != null) {
            req.headers().set(HttpHeaderNames.ORIGIN, origin);
        }
        return req;
    }

    private int refusalStatus(FullHttpRequest req) {
        ch.writeInbound(req);
        FullHttpResponse res = ch.readOutbound();
        assertNotNull(res, "a refusal response");
        try {
            assertFalse(ch.isOpen(), "the connection is closed after a refusal");
            return res.status().code();
        } finally {
            res.release();
        }
    }

    @Test
    void unknownPath_is404() {
        assertEquals(404, refusalStatus(upgrade("/elsewhere", null)));
        assertEquals(1, server.metrics().handshakesRefused());
    }

    @Test
    void disallowedOrigin_is403() {
        assertEquals(403, refusalStatus(upgrade("/gallery", "https://evil.example")));
    }

    @Test
    void plainGet_is400() {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/gallery");
        assertEquals(400, refusalStatus(req));
    }

    @Test
    void acceptedUpgrade_installsWebSocketHandlersAndRemovesTheGate() {
        // The handshaker needs the HTTP codec in front; it passes the already-decoded request through.
        ch.finishAndReleaseAll();
        ch = new EmbeddedChannel(new HttpServerCodec(), new HandshakeGate(server.runtime()));
        ch.writeInbound(upgrade("/gallery?token=x", "https://good.example"));
        assertNull(ch.pipeline().get(HandshakeGate.class));
        assertNotNull(ch.pipeline().get("ws-protocol"));
        assertNotNull(ch.pipeline().get("ws-session"));
        ByteBuf res = ch.readOutbound();
        assertNotNull(res, "the handshake response");
        try {
            assertTrue(res.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 101"),
                    res.toString(StandardCharsets.US_ASCII));
        } finally {
            res.release();
        }
        assertTrue(ch.isOpen());
    }
}
