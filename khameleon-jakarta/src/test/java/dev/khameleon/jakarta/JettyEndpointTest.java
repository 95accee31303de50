package dev.khameleon.jakarta;

import dev.khameleon.testing.WebSocketRecorder;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.testkit.DocSnippets;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Khameleon server served by Jetty 12's Jakarta WebSocket container on 127.0.0.1, next to a
 * plain servlet on the same port: the Java client gets complete responses, and the server's
 * limits apply to the container's connections.
 */
@Timeout(60)
class JettyEndpointTest {
    private static final int REQUESTS = 20;

    private KhameleonServer khameleon;
    private Server jetty;

    @AfterEach
    void stop() throws Exception {
        if (khameleon != null) {
            khameleon.close();
        }
        if (jetty != null) {
            jetty.stop();
        }
    }

    private static byte[] chart(int id) {
        byte[] bytes = new byte[3000 + id];
        Arrays.fill(bytes, (byte) id);
        return bytes;
    }

    /** The web application's own servlet in the example. */
    static final class HelloServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            res.setContentType("text/plain");
            res.getWriter().print("hello from a servlet\n");
        }
    }

    /** Mounts {@code settings} with one application at {@code /ws} and starts Jetty with it; returns the port. */
    private int start(KhameleonServer.Builder settings) throws Exception {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(1024);
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < REQUESTS; id++) {
            responses.add(encoder.encode(id, chart(id)));
        }
        khameleon = settings.seed(4)
                .application(Application.builder("charts").path("/ws")
                        .blockSource(BlockSource.inMemory(encoder.blockSize(), responses)).build())
                .build()
                .mount();
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        // tag::jakarta[]
        ServletContextHandler context = new ServletContextHandler();       // Jetty 12 (ee10)
        context.addServlet(new ServletHolder(new HelloServlet()), "/hello"); // the web app's own servlets
        JakartaWebSocketServletContainerInitializer.configure(context,
                (servletContext, container) -> container.addEndpoint(KhameleonEndpoints.at(khameleon, "/ws")));
        // end::jakarta[]
        jetty.setHandler(context);
        jetty.start();
        return connector.getLocalPort();
    }

    @Test
    void javaClient_getsCompleteResponses_whileTheServletAnswersOnTheSamePort() throws Exception {
        int port = start(KhameleonServer.builder().fixedBytesPerSecond(1e6));
        CompletableFuture<Response> complete = new CompletableFuture<>();
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + port + "/ws"))
                .application("charts")
                .cacheBlocks(100)
                .build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            client.request(7, response -> {
                if (response.isComplete()) {
                    complete.complete(response);
                }
            });
            assertArrayEquals(chart(7), complete.get(30, TimeUnit.SECONDS).content());
            HttpResponse<String> page = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("hello from a servlet\n", page.body());
            assertEquals(1, khameleon.metrics().activeSessions());
            assertTrue(khameleon.metrics().blocksPushed() >= 3);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (khameleon.metrics().activeSessions() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, khameleon.metrics().activeSessions(), "the session ends with the container's connection");
    }

    private static WebSocketRecorder connect(int port, String origin) {
        WebSocketRecorder recorder = new WebSocketRecorder();
        WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (origin != null) {
            b.header("Origin", origin);
        }
        b.buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), recorder).orTimeout(10, TimeUnit.SECONDS).join();
        return recorder;
    }

    @Test
    void foreignOrigin_isClosedWith1008() throws Exception {
        int port = start(KhameleonServer.builder());
        WebSocketRecorder evil = connect(port, "https://evil.example");
        assertEquals(1008, evil.closed.get(10, TimeUnit.SECONDS));
        assertEquals(1, khameleon.metrics().handshakesRefused());
    }

    @Test
    void perAddressLimit_closesTheExtraConnectionWith1008() throws Exception {
        int port = start(KhameleonServer.builder().maxConnectionsPerAddress(1));
        WebSocketRecorder first = connect(port, null);
        WebSocketRecorder second = connect(port, null);
        assertEquals(1008, second.closed.get(10, TimeUnit.SECONDS), "the container tells the client's address");
        assertFalse(first.closed.isDone());
    }

    @Test
    void clientWithoutHello_isClosedWithMissingHello() throws Exception {
        int port = start(KhameleonServer.builder().helloTimeout(Duration.ofMillis(200)));
        WebSocketRecorder silent = connect(port, null);
        assertEquals(1002, silent.closed.get(10, TimeUnit.SECONDS));
        assertTrue(silent.text().contains("missing_hello"), silent.text());
    }

    @Test
    void serverPage_quotesTheSnippetVerbatim() throws IOException {
        Map<String, String> regions = DocSnippets.regions(DocSnippets.read(
                "khameleon-jakarta/src/test/java/dev/khameleon/jakarta/JettyEndpointTest.java"));
        assertEquals(1, regions.size(), "snippets found: " + regions.keySet());
        assertTrue(DocSnippets.read("docs/server.md").contains(regions.get("jakarta")),
                "docs/server.md does not quote 'jakarta' as compiled:\n" + regions.get("jakarta"));
    }

    @Test
    void endpointConfig_refusesAPathWithoutApplicationOrABadMessageLimit() throws Exception {
        start(KhameleonServer.builder());
        assertThrows(IllegalArgumentException.class, () -> KhameleonEndpoints.at(khameleon, "/nope"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KhameleonEndpoints.at(khameleon, "/ws", 10));
        assertTrue(e.getMessage().contains("maxMessageBytes"), e.getMessage());
    }
}
