package dev.khameleon.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mount router in memory: what passes on to the application's handlers and what it takes over. */
class MountRouterTest {
    /** Stands for the application's own handlers: records what reaches them. */
    private static final class AppHandlers extends ChannelInboundHandlerAdapter {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.add(msg);
        }
    }

    private KhameleonServer server;
    private final AppHandlers app = new AppHandlers();
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        server = KhameleonServer.builder().seed(1).maxConnectionsPerAddress(1)
                .application(Application.builder("charts").path("/ws").blockSource(TestApps.inMemory(4, 1, 16)).build())
                .build()
                .mount();
        ch = new EmbeddedChannel(server.newHandler(), app);
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
        app.seen.forEach(ReferenceCountUtil::release);
        server.close();
    }

    private static HttpRequest request(HttpMethod method, String uri) {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri);
    }

    private static HttpContent content(String text, boolean last) {
        return last ? new DefaultLastHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8))
                : new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    @Test
    void otherPaths_passOnWithTheirContent_requestAfterRequest() {
        HttpRequest upload = request(HttpMethod.POST, "/upload");
        HttpContent part = content("a", false);
        HttpContent end = content("b", true);
        HttpRequest near = request(HttpMethod.GET, "/ws/x?y");   // below the application's path: not Khameleon's
        HttpRequest escaped = request(HttpMethod.GET, "/%77s");  // the raw path is matched, as on the own port
        ch.writeInbound(upload, part, end, near, escaped);
        assertEquals(List.of(upload, part, end, near, escaped), app.seen, "passed on unchanged, in order");
        assertNotNull(ch.pipeline().get(MountRouter.class), "the router stays for the next request");
        assertEquals(0, server.runtime().addressLimits.connections(ch.remoteAddress()), "not counted");
    }

    @Test
    void applicationPath_takesTheConnectionOver() {
        ch.writeInbound(request(HttpMethod.GET, "/ws?token=1"));
        assertNull(ch.pipeline().get(MountRouter.class), "the router has removed itself");
        assertNotNull(ch.pipeline().get(HttpObjectAggregator.class));
        assertNotNull(ch.pipeline().get(HandshakeGate.class), "the gate waits for the rest of the request");
        assertTrue(app.seen.isEmpty(), "the application's handlers see nothing of it");
        assertEquals(1, server.runtime().addressLimits.connections(ch.remoteAddress()));
        ch.close();
        assertEquals(0, server.runtime().addressLimits.connections(ch.remoteAddress()), "closing frees the place");
    }

    @Test
    void healthz_isAnsweredByKhameleon() {
        ch.writeInbound(request(HttpMethod.GET, "/healthz"), content("", true));
        FullHttpResponse res = ch.readOutbound();
        try {
            assertEquals(200, res.status().code());
        } finally {
            res.release();
        }
        assertTrue(app.seen.isEmpty());
    }

    @Test
    void perAddressLimit_closesTheConnection_andReleasesTheRefusedRequest() {
        EmbeddedChannel first = new EmbeddedChannel(server.newHandler());
        try {
            first.writeInbound(request(HttpMethod.GET, "/ws"));
            HttpContent body = content("never read", true);
            ch.writeInbound(request(HttpMethod.GET, "/ws"), body);
            assertFalse(ch.isOpen(), "the second connection from the address is closed at once");
            assertEquals(0, body.refCnt(), "what follows the refused request is released");
            assertTrue(app.seen.isEmpty());
            assertEquals(1, server.metrics().handshakesRefused());
        } finally {
            first.finishAndReleaseAll();
        }
    }

    @Test
    void afterClose_upgradesAreRefusedWith503() {
        server.close();
        EmbeddedChannel late = new EmbeddedChannel(server.newHandler());
        try {
            late.writeInbound(upgrade());
            FullHttpResponse res = late.readOutbound();
            try {
                assertEquals(503, res.status().code());
            } finally {
                res.release();
            }
        } finally {
            late.finishAndReleaseAll();
        }
    }

    private static FullHttpRequest upgrade() {
        FullHttpRequest req = new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1, HttpMethod.GET, "/ws");
        req.headers().set("Host", "localhost").set("Upgrade", "websocket").set("Connection", "Upgrade")
                .set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==").set("Sec-WebSocket-Version", "13");
        return req;
    }

    @Test
    void eachCall_givesANewUnsharedHandler() {
        assertFalse(((ChannelHandlerAdapter) server.newHandler()).isSharable());
        assertNotSame(server.newHandler(), server.newHandler());
    }
}
