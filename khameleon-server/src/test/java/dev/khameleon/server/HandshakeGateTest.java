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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upgrade gate in memory: routing by raw path, the origin check, non-upgrade requests, WebSocket
 * versions, and the handshake timer that outlives the gate.
 */
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

    /** A valid RFC 6455 upgrade request for {@code uri}, from {@code origin} if not null. */
    static FullHttpRequest upgrade(String uri, String origin) {
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

    /** Regression: the gate matched the decoded path and Netty the raw one, so /%67allery was held open forever. */
    @Test
    void escapedPath_is404() {
        assertEquals(404, refusalStatus(upgrade("/%67allery", null)));
    }

    @Test
    void pathBelowTheApplication_is404() {
        assertEquals(404, refusalStatus(upgrade("/gallery/x", null)));
    }

    /** Regression: hixie-76 and hybi-08 handshakes ran full sessions (unmasked, no UTF-8 checks). */
    @ParameterizedTest
    @ValueSource(strings = {"", "7", "8", "12", "14"})
    void webSocketVersionOtherThan13_is426NamingVersion13(String version) {
        FullHttpRequest req = upgrade("/gallery", null);
        if (version.isEmpty()) {
            req.headers().remove(HttpHeaderNames.SEC_WEBSOCKET_VERSION)
                    .set("Sec-WebSocket-Key1", "4 @1  46546xW%0l 1 5").set("Sec-WebSocket-Key2", "12998 5 Y3 1  .P00");
        } else {
            req.headers().set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, version);
        }
        ch.writeInbound(req);
        FullHttpResponse res = ch.readOutbound();
        try {
            assertEquals(426, res.status().code());
            assertEquals("13", res.headers().get(HttpHeaderNames.SEC_WEBSOCKET_VERSION));
            assertFalse(ch.isOpen(), "the connection is closed, not left waiting");
        } finally {
            res.release();
        }
    }

    @Test
    void upgradeOverHttp10_is400() {
        FullHttpRequest req = upgrade("/gallery", null);
        req.setProtocolVersion(HttpVersion.HTTP_1_0);
        assertRefused400(req, "a WebSocket upgrade must be HTTP/1.1, was HTTP/1.0");
    }

    @Test
    void upgradeWithoutHost_is400() {
        FullHttpRequest req = upgrade("/gallery", null);
        req.headers().remove(HttpHeaderNames.HOST);
        assertRefused400(req, "missing Host header");
    }

    @Test
    void upgradeWithTwoHosts_is400() {
        FullHttpRequest req = upgrade("/gallery", null);
        req.headers().add(HttpHeaderNames.HOST, "evil.example");
        assertRefused400(req, "2 Host headers");
    }

    /** Regression: with the allowed origin first, a second Origin header went unchecked. */
    @Test
    void upgradeWithTwoOrigins_theAllowedOneFirst_is400() {
        FullHttpRequest req = upgrade("/gallery", "https://good.example");
        req.headers().add(HttpHeaderNames.ORIGIN, "https://evil.example");
        assertRefused400(req, "2 Origin headers");
    }

    @ParameterizedTest
    @ValueSource(strings = {"x", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZSE=", "!!!!!!!!!!!!!!!!!!!!!!==",
        "dGhlIHNhbXBsZSBub25jZQ==dGhl"})
    void keyThatIsNot16BytesInBase64_is400(String key) {
        FullHttpRequest req = upgrade("/gallery", null);
        req.headers().set(HttpHeaderNames.SEC_WEBSOCKET_KEY, key);
        assertRefused400(req, "Sec-WebSocket-Key must be 16 bytes in base64");
    }

    @Test
    void wellFormedUpgrade_passesTheHeaderChecks() {
        assertNull(HandshakeGate.malformedUpgrade(upgrade("/gallery", "https://good.example")));
    }

    private void assertRefused400(FullHttpRequest req, String reason) {
        FullHttpRequest copy = req.copy();
        try {
            assertEquals(reason, HandshakeGate.malformedUpgrade(copy));
        } finally {
            copy.release();
        }
        ch.writeInbound(req);
        FullHttpResponse res = ch.readOutbound();
        assertNotNull(res, "a refusal response");
        try {
            assertEquals(400, res.status().code());
            assertEquals(reason + "\n", res.content().toString(StandardCharsets.UTF_8));
            assertFalse(ch.isOpen(), "the connection is closed after a refusal");
        } finally {
            res.release();
        }
        assertEquals(1, server.metrics().handshakesRefused());
    }

    @Test
    void upgradeWithoutKey_is400() {
        FullHttpRequest req = upgrade("/gallery", null);
        req.headers().remove(HttpHeaderNames.SEC_WEBSOCKET_KEY);
        assertEquals(400, refusalStatus(req));
    }

    @Test
    void sameOriginAndMissingOrigin_areAcceptedOtherOriginsAreNot() {
        assertAccepted(upgrade("/gallery", null));
        assertAccepted(upgrade("/gallery", "http://localhost"));
        assertAccepted(upgrade("/gallery", "https://good.example"));
        tearDown();
        setUp();
        assertEquals(403, refusalStatus(upgrade("/gallery", "http://localhost:9999")));
        tearDown();
        setUp();
        assertEquals(403, refusalStatus(upgrade("/gallery", "null")));
    }

    @Test
    void allowAnyOrigin_acceptsEveryOrigin() {
        server.close();
        server = KhameleonServer.builder().seed(1).allowAnyOrigin(true)
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 1, 16)).build())
                .build();
        assertAccepted(upgrade("/gallery", "https://elsewhere.example"));
    }

    /**
     * Regression: the gate dropped its timer once it passed the request on, so a handshake that
     * never completed after it (here: the client never reads the 101) held the connection forever.
     */
    @Test
    void handshakeThatNeverCompletesAfterTheGate_isClosedAtTheHandshakeTimeout() {
        server.close();
        server = KhameleonServer.builder().seed(1).handshakeTimeout(Duration.ofSeconds(5))
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 1, 16)).build())
                .build();
        ch.finishAndReleaseAll();
        List<Object> held = new ArrayList<>();
        ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                held.add(msg); // never written: the handshake response stays queued
            }
        }, new HttpServerCodec(), new HandshakeGate(server.runtime()));
        ch.freezeTime();
        try {
            ch.writeInbound(upgrade("/gallery", null));
            assertNull(ch.pipeline().get(HandshakeGate.class), "the gate has passed the request on");
            ch.advanceTimeBy(4, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertTrue(ch.isOpen(), "open before the timeout");
            ch.advanceTimeBy(2, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertFalse(ch.isOpen(), "closed at the handshake timeout");
            assertEquals(1, server.metrics().handshakesRefused());
        } finally {
            held.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void rawPath_dropsOnlyTheQuery() {
        assertEquals("/gallery", HandshakeGate.rawPath("/gallery?token=x?y"));
        assertEquals("/%67allery", HandshakeGate.rawPath("/%67allery"));
    }

    private void assertAccepted(FullHttpRequest req) {
        ch.finishAndReleaseAll();
        ch = new EmbeddedChannel(new HttpServerCodec(), new HandshakeGate(server.runtime()));
        ch.writeInbound(req);
        ByteBuf res = ch.readOutbound();
        assertNotNull(res, "the handshake response");
        try {
            assertTrue(res.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 101"),
                    res.toString(StandardCharsets.US_ASCII));
        } finally {
            res.release();
        }
    }

    @Test
    void acceptedUpgrade_installsWebSocketHandlersAndRemovesTheGate() {
        // The handshaker needs the HTTP codec in front; it passes the already-decoded request through.
        assertAccepted(upgrade("/gallery?token=x", "https://good.example"));
        assertNull(ch.pipeline().get(HandshakeGate.class));
        assertNotNull(ch.pipeline().get("ws-control"));
        assertNotNull(ch.pipeline().get("ws-protocol"));
        assertNotNull(ch.pipeline().get("ws-session"));
        assertTrue(ch.isOpen());
    }

    @Test
    void acceptedUpgrade_installsTheWebSocketHandlersInProtocolOrder() {
        assertAccepted(upgrade("/gallery", null));
        List<String> names = ch.pipeline().names();
        assertEquals(WebSocketPipelineTest.UPGRADE_ORDER, names.stream().filter(n -> n.startsWith("ws-")).toList());
        // Netty's frame codec replaced the HTTP codec; nothing sits between the codecs and the session.
        assertEquals(WebSocketPipelineTest.UPGRADE_ORDER.subList(5, 8), names.subList(names.size() - 4, names.size() - 1));
        assertInstanceOf(SessionHandler.class, ch.pipeline().get("ws-session"));
    }
}
