package dev.khameleon.server;

import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Node operations for a load balancer: {@code /healthz} and {@link KhameleonServer#drain}. */
@Timeout(60)
class ServerDrainTest {
    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI start() {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(10, 4, 256)).build();
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1).fixedBytesPerSecond(50_000)
                .application(app).build().start();
        return URI.create("ws://127.0.0.1:" + server.port() + "/test");
    }

    private HttpResponse<String> http(String method, String path) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build();
        return HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthz_isOkWhileServing_and503WhileDraining_withoutCountingARefusal() throws Exception {
        start();
        HttpResponse<String> ok = http("GET", "/healthz");
        assertEquals(200, ok.statusCode());
        assertEquals("ok\n", ok.body());
        assertEquals(405, http("POST", "/healthz").statusCode());
        assertEquals(0, server.metrics().handshakesRefused(), "a health check is not a refused handshake");
        server.drain(Duration.ZERO).get(10, TimeUnit.SECONDS);
        HttpResponse<String> draining = http("GET", "/healthz");
        assertEquals(503, draining.statusCode());
        assertEquals("draining\n", draining.body());
    }

    @Test
    void drain_closesEverySessionWithShutdown_spreadOverTheWindow_andRefusesNewOnes() throws Exception {
        URI uri = start();
        List<TestClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                TestClient c = TestClient.open(uri, "test", 20);
                c.nextBlock();
                clients.add(c);
            }
            TestClient.await(() -> server.sessionMetrics().size() == 3, "three sessions registered");
            long start = System.nanoTime();
            CompletableFuture<Void> done = server.drain(Duration.ofMillis(600));
            assertSame(done, server.drain(Duration.ofSeconds(9)), "a second call returns the first drain");
            assertTrue(server.isDraining());
            done.get(10, TimeUnit.SECONDS);
            long lastClosedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            for (TestClient c : clients) {
                assertEquals(1001, c.awaitClose().status(), "each session closes with shutdown");
            }
            // Closes are scheduled at 0, 200 and 400 ms: the last cannot come sooner.
            assertTrue(lastClosedAfterMillis >= 400, "closes spread over the window, last after "
                    + lastClosedAfterMillis + " ms");
            CompletionException e = assertThrows(CompletionException.class,
                    () -> TestClient.connectAsync(uri, Map.of()).orTimeout(10, TimeUnit.SECONDS).join());
            assertEquals(503, assertInstanceOf(WebSocketHandshakeException.class, e.getCause()).getResponse()
                    .statusCode(), "a new session is refused while draining");
        } finally {
            clients.forEach(TestClient::close);
        }
    }

    @Test
    void drain_badWindowOrServerNotRunning_isRefused() {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(10, 4, 256)).build();
        KhameleonServer notStarted = KhameleonServer.builder().host("127.0.0.1").port(0).application(app).build();
        assertThrows(IllegalStateException.class, () -> notStarted.drain(Duration.ZERO));
        notStarted.close();
        start();
        assertThrows(IllegalArgumentException.class, () -> server.drain(Duration.ofMillis(-1)));
    }
}
