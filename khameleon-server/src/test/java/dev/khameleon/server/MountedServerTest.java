package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.CharsetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server mounted on an HTTP server of the test's own, over loopback: one port and one event-loop
 * group serve a plain HTTP route and Khameleon at {@code /ws}, and every limit still applies to the
 * connections Khameleon takes over.
 */
@Timeout(60)
class MountedServerTest {
    private static final String UPGRADE = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

    private EventLoopGroup group;
    private Channel http;
    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (http != null) {
            http.close().syncUninterruptibly();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** The test's own route: {@code GET /hello} answers "hello", anything else 404; keep-alive. */
    private static final class HelloRoute extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean hello = req.uri().equals("/hello");
            FullHttpResponse res = new DefaultFullHttpResponse(req.protocolVersion(),
                    hello ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
                    Unpooled.copiedBuffer(hello ? "hello from the app\n" : "app: no route\n", CharsetUtil.UTF_8));
            HttpUtil.setContentLength(res, res.content().readableBytes());
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
            HttpUtil.setKeepAlive(res, HttpUtil.isKeepAlive(req));
            ctx.writeAndFlush(res);
        }
    }

    /** Mounts a server with {@code settings} and starts the test's HTTP server with it; returns the ws URI. */
    private URI mount(KhameleonServer.Builder settings) {
        server = settings.seed(5)
                .application(Application.builder("test").path("/ws")
                        .blockSource(TestApps.inMemory(100, 4, 1024)).build())
                .build()
                .mount();
        group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("app-io", true), NioIoHandler.newFactory());
        http = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec());
                        ch.pipeline().addLast(new HttpServerKeepAliveHandler());
                        ch.pipeline().addLast(server.newHandler());
                        ch.pipeline().addLast(new HttpObjectAggregator(65_536));
                        ch.pipeline().addLast(new HelloRoute());
                    }
                })
                .bind("127.0.0.1", 0).syncUninterruptibly().channel();
        return URI.create("ws://127.0.0.1:" + port() + "/ws");
    }

    private int port() {
        return ((InetSocketAddress) http.localAddress()).getPort();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .timeout(Duration.ofSeconds(10)).build();
        return HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
    }

    private static int refusedStatus(URI uri) {
        CompletionException e = assertThrows(CompletionException.class,
                () -> TestClient.connectAsync(uri, Map.of()).orTimeout(10, TimeUnit.SECONDS).join());
        return assertInstanceOf(WebSocketHandshakeException.class, e.getCause()).getResponse().statusCode();
    }

    @Test
    void onePort_servesSessionsAndTheApplicationsOwnRoutes_onItsEventLoops() throws Exception {
        URI uri = mount(KhameleonServer.builder().fixedBytesPerSecond(200_000));
        HttpClient keepAlive = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/hello")).build();
        assertEquals("hello from the app\n", keepAlive.send(hello, HttpResponse.BodyHandlers.ofString()).body());
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            TestClient.Received first = c.nextBlock();
            assertTrue(first.frame().block().requestId() >= 0 && first.frame().block().requestId() < 100);
            c.nextBlock();
            // The other routes keep answering while a session streams, on new and reused connections.
            assertEquals("hello from the app\n", get("/hello").body());
            assertEquals("hello from the app\n", keepAlive.send(hello, HttpResponse.BodyHandlers.ofString()).body());
            HttpResponse<String> other = get("/elsewhere");
            assertEquals(404, other.statusCode());
            assertEquals("app: no route\n", other.body(), "unknown paths reach the application, not Khameleon");
            assertEquals(1, server.metrics().activeSessions());
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                assertFalse(t.getName().startsWith("khameleon-io") || t.getName().startsWith("khameleon-accept"),
                        "a mounted server runs on the application's event loops, found " + t.getName());
            }
        }
        assertThrows(IllegalStateException.class, server::port, "a mounted server has no port of its own");
    }

    @Test
    void healthz_isAnsweredOnTheSharedPort_andDrainRefusesNewSessions() throws Exception {
        URI uri = mount(KhameleonServer.builder().fixedBytesPerSecond(50_000));
        assertEquals(200, get("/healthz").statusCode());
        try (TestClient c = TestClient.open(uri, "test", 20)) {
            c.nextBlock();
            server.drain(Duration.ZERO).get(10, TimeUnit.SECONDS);
            assertEquals(1001, c.awaitClose().status(), "the session closes with shutdown");
        }
        HttpResponse<String> draining = get("/healthz");
        assertEquals(503, draining.statusCode());
        assertEquals("draining\n", draining.body());
        assertEquals(503, refusedStatus(uri), "a new session is refused while draining");
        assertEquals("hello from the app\n", get("/hello").body(), "the application's routes are not drained");
    }

    @Test
    void handshakeTimeout_startsWithTheRequest_andClosesAStalledUpgrade() throws Exception {
        mount(KhameleonServer.builder().handshakeTimeout(Duration.ofMillis(300)));
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // A request for the Khameleon path whose announced body never comes.
            out.write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        }
        assertEquals(1, server.metrics().handshakesRefused());
    }

    @Test
    void keepAliveConnection_servesTheAppThenUpgrades() throws Exception {
        mount(KhameleonServer.builder());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String first = readHead(in);
            assertTrue(first.startsWith("HTTP/1.1 200"), first);
            int length = Integer.parseInt(first.replaceAll("(?s).*content-length: (\\d+).*", "$1"));
            assertEquals("hello from the app\n", new String(in.readNBytes(length), StandardCharsets.UTF_8));
            out.write(UPGRADE.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String upgrade = readHead(in);
            assertTrue(upgrade.startsWith("HTTP/1.1 101"), upgrade);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the response head: " + head);
            }
            head.append((char) Character.toLowerCase(b));
        }
        return head.toString().replaceFirst("^http", "HTTP");
    }

    @Test
    void helloTimeout_closesASessionThatNeverSaysHello() {
        URI uri = mount(KhameleonServer.builder().helloTimeout(Duration.ofMillis(200)));
        try (TestClient c = TestClient.connect(uri)) {
            assertEquals("missing_hello", c.awaitError().code());
            assertEquals(1002, c.awaitClose().status());
        }
    }

    @Test
    void perAddressLimit_refusesTheExtraUpgrade_butNotTheApplicationsRoutes() throws Exception {
        URI uri = mount(KhameleonServer.builder().maxConnectionsPerAddress(1).fixedBytesPerSecond(50_000));
        try (TestClient a = TestClient.open(uri, "test", 20)) {
            a.nextBlock();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
                s.setSoTimeout(10_000);
                s.getOutputStream().write(UPGRADE.getBytes(StandardCharsets.US_ASCII));
                assertEquals(0, s.getInputStream().readAllBytes().length,
                        "a second Khameleon connection from the address is closed at once, unanswered");
            }
            assertEquals(1, server.metrics().handshakesRefused());
            assertEquals("hello from the app\n", get("/hello").body(), "the application's routes are not limited");
        }
    }

    @Test
    void sessionCap_refusesTheExtraSessionWith1013() {
        URI uri = mount(KhameleonServer.builder().maxSessions(1).fixedBytesPerSecond(50_000));
        try (TestClient a = TestClient.open(uri, "test", 20); TestClient b = TestClient.connect(uri)) {
            b.send(ControlMessage.Hello.of("test", 20));
            assertEquals("too_many_sessions", b.awaitError().code());
            assertEquals(1013, b.awaitClose().status());
            a.nextBlock();
        }
    }

    @Test
    void close_endsSessionsAndRefusesUpgrades_butLeavesTheApplicationsServerRunning() throws Exception {
        URI uri = mount(KhameleonServer.builder().fixedBytesPerSecond(50_000));
        try (TestClient c = TestClient.open(uri, "test", 20)) {
            c.nextBlock();
            server.close();
            assertEquals(1001, c.awaitClose().status());
        }
        assertEquals(503, refusedStatus(uri));
        assertEquals("hello from the app\n", get("/hello").body());
        // New connections of the application still get a handler, which refuses upgrades.
        assertEquals(503, refusedStatus(uri));
    }

    /**
     * Regression: newHandler() took the server's lock, which close() holds while sessions close, so
     * a connection accepted during close() stalled its event loop (and every connection on it)
     * until close() returned.
     */
    @Test
    void newConnectionsDuringClose_areServedWhileASlowSessionHoldsCloseUp() throws Exception {
        mount(KhameleonServer.builder().fixedBytesPerSecond(1e8).writeBufferWaterMark(4 * 1024, 8 * 1024)
                .sendBufferBytes(8 * 1024).closeTimeout(Duration.ofSeconds(3)).shutdownTimeout(Duration.ofSeconds(10)));
        try (RawClient stalled = new RawClient(port(), "/ws", 4096)) {
            stalled.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"test\",\"cacheBlocks\":100}");
            TestClient.await(() -> !server.sessionMetrics().isEmpty()
                    && server.sessionMetrics().get(0).maxQueuedBytes() > 0, "the stalled session fills its buffers");
            CompletableFuture<Long> closed = CompletableFuture.supplyAsync(() -> {
                server.close(); // waits up to closeTimeout for the stalled session's close frame
                return System.nanoTime();
            });
            TestClient.await(() -> server.isDraining(), "close() has begun");
            assertEquals("hello from the app\n", get("/hello").body());
            long helloDone = System.nanoTime();
            long closeDone = closed.get(20, TimeUnit.SECONDS);
            assertTrue(helloDone < closeDone, "a new connection was served while close() was still waiting");
        }
    }

    @Test
    void lifecycle_mountAndStartExcludeEachOther() {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(10, 1, 256)).build();
        try (KhameleonServer notMounted = KhameleonServer.builder().application(app).build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, notMounted::newHandler);
            assertTrue(e.getMessage().contains("mount()"), e.getMessage());
            notMounted.mount();
            assertThrows(IllegalStateException.class, notMounted::start);
            assertThrows(IllegalStateException.class, notMounted::mount);
        }
    }
}
