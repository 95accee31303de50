package dev.khameleon.spring;

import dev.khameleon.testing.WebSocketRecorder;
import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole Spring Boot servlet web application (Spring MVC) on an embedded web server: the starter
 * serves the application bean on the web server's port, with the server's origin check,
 * per-address limits, hello deadline, draining, {@code /healthz} and graceful shutdown. Each web
 * server's test extends this class.
 */
@Timeout(120)
abstract class BootPortContract {
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GalleryWebApplication {
        @Bean
        Application gallery() {
            return TestApplications.named("gallery");
        }
    }

    /** Configuration classes that choose the web server, beside {@link GalleryWebApplication}. */
    abstract Class<?>[] webServer();

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    /** Starts the web application on the web server, on a free port of 127.0.0.1, with {@code properties}. */
    ConfigurableApplicationContext start(String... properties) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--logging.level.org.apache=warn",
                "--logging.level.org.springframework=warn"));
        for (String p : properties) {
            args.add("--" + p);
        }
        List<Class<?>> sources = new ArrayList<>(List.of(GalleryWebApplication.class));
        sources.addAll(List.of(webServer()));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.SERVLET)
                .run(args.toArray(String[]::new));
        contexts.add(context);
        return context;
    }

    static int webPort(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    static KhameleonClient<PointerEvent> client(int port, ClientListener listener) {
        return KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + port + "/gallery"))
                .application("gallery")
                .cacheBlocks(64)
                .reconnect(false)
                .listener(listener)
                .build();
    }

    HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private WebSocketRecorder connect(int port, String path, String origin) {
        WebSocketRecorder recorder = new WebSocketRecorder();
        WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (origin != null) {
            b.header("Origin", origin);
        }
        b.buildAsync(URI.create("ws://127.0.0.1:" + port + path), recorder).orTimeout(10, TimeUnit.SECONDS).join();
        return recorder;
    }

    @Test
    void autoMode_servesTheExactBlocksOnBootsPort() throws Exception {
        ConfigurableApplicationContext context = start();
        KhameleonServer server = context.getBean(KhameleonServer.class);
        try (KhameleonClient<PointerEvent> client = client(webPort(context), new ClientListener() { })) {
            client.connect().get(10, TimeUnit.SECONDS);
            TestApplications.assertServesExactBlocks(client, 6);
        }
        assertEquals(1, server.metrics().sessionsOpened());
        IllegalStateException e = assertThrows(IllegalStateException.class, server::port, "no port of its own");
        assertTrue(e.getMessage().contains("mounted"), e.getMessage());
    }

    @Test
    void healthz_answersOkThenDrainingOnBootsPort() throws Exception {
        ConfigurableApplicationContext context = start();
        int port = webPort(context);
        HttpResponse<String> ok = get(port, "/healthz");
        assertEquals(200, ok.statusCode());
        assertEquals("ok\n", ok.body());

        context.getBean(KhameleonServer.class).drain(Duration.ZERO).get(10, TimeUnit.SECONDS);
        HttpResponse<String> draining = get(port, "/healthz");
        assertEquals(503, draining.statusCode());
        assertEquals("draining\n", draining.body());
        assertEquals(1013, connect(port, "/gallery", null).closed.get(10, TimeUnit.SECONDS),
                "a draining server closes new connections with 1013, try again later");
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
    }

    @Test
    void healthzOff_leavesThePathToTheApplication() throws Exception {
        ConfigurableApplicationContext context = start("khameleon.healthz=false");
        assertEquals(404, get(webPort(context), "/healthz").statusCode());
    }

    @Test
    void foreignOrigin_isClosedWith1008() throws Exception {
        ConfigurableApplicationContext context = start();
        int port = webPort(context);
        assertEquals(1008, connect(port, "/gallery", "https://evil.example").closed.get(10, TimeUnit.SECONDS));
        assertEquals(1, context.getBean(KhameleonServer.class).metrics().handshakesRefused());
        WebSocketRecorder sameOrigin = connect(port, "/gallery", "http://127.0.0.1:" + port);
        assertFalse(sameOrigin.closed.isDone(), "the page's own origin is allowed");
    }

    @Test
    void allowedOriginsProperty_admitsTheListedOrigin() throws Exception {
        ConfigurableApplicationContext context = start("khameleon.allowed-origins=https://app.example");
        WebSocketRecorder listed = connect(webPort(context), "/gallery", "https://app.example");
        // Without a hello the session ends at the hello deadline, not at once with 1008.
        assertThrows(java.util.concurrent.TimeoutException.class, () -> listed.closed.get(1, TimeUnit.SECONDS));
        assertEquals(0, context.getBean(KhameleonServer.class).metrics().handshakesRefused());
    }

    @Test
    void unknownPath_isNotUpgraded() {
        ConfigurableApplicationContext context = start();
        CompletionException e = assertThrows(CompletionException.class, () -> connect(webPort(context), "/nope", null));
        assertTrue(e.getCause() instanceof java.net.http.WebSocketHandshakeException, e.toString());
        assertEquals(404, ((java.net.http.WebSocketHandshakeException) e.getCause()).getResponse().statusCode());
    }

    @Test
    void perAddressLimit_appliesOnBootsPort() throws Exception {
        ConfigurableApplicationContext context = start("khameleon.max-connections-per-address=1",
                "khameleon.hello-timeout=1s");
        int port = webPort(context);
        WebSocketRecorder a = connect(port, "/gallery", null);
        WebSocketRecorder b = connect(port, "/gallery", null);
        // The container completes each handshake before it opens the endpoint, so either may be the extra one.
        int first = (Integer) CompletableFuture.anyOf(a.closed, b.closed).get(10, TimeUnit.SECONDS);
        assertEquals(1008, first, "the connections carry the client's address");
        WebSocketRecorder admitted = a.closed.isDone() ? b : a;
        assertEquals(1002, admitted.closed.get(10, TimeUnit.SECONDS), "the other is a session, ended by its hello deadline");
    }

    @Test
    void helloTimeoutProperty_closesASilentClient() throws Exception {
        ConfigurableApplicationContext context = start("khameleon.hello-timeout=200ms");
        WebSocketRecorder silent = connect(webPort(context), "/gallery", null);
        assertEquals(1002, silent.closed.get(10, TimeUnit.SECONDS));
        assertTrue(silent.text().contains("missing_hello"), silent.text());
    }

    @Test
    void closingTheApplication_closesSessionsWithShutdownBeforeTheWebServerStops() throws Exception {
        ConfigurableApplicationContext context = start();
        TestApplications.ShutdownRecorder recorder = new TestApplications.ShutdownRecorder();
        try (KhameleonClient<PointerEvent> client = client(webPort(context), recorder)) {
            client.connect().get(10, TimeUnit.SECONDS);
            context.close();
            recorder.assertShutdown();
        }
    }
}
