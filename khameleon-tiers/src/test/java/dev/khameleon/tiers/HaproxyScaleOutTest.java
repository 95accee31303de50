package dev.khameleon.tiers;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.testing.Haproxy;
import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HAProxy configuration of docs/scale-out.md, run as documented (only the addresses changed to
 * 127.0.0.1 ports) with Debian's haproxy in front of three servers: sessions spread, a drained node
 * is marked down and new sessions go to the others, its clients resume their sessions on the
 * others (the nodes share a resume key), and a Java client gets its blocks through it.
 */
@Timeout(120)
class HaproxyScaleOutTest {
    private static final int BLOCKS = GridNode.BLOCKS;

    private final List<KhameleonServer> servers = new ArrayList<>();
    private final List<KhameleonClient<PointerEvent>> clients = new ArrayList<>();
    private Haproxy haproxy;

    @AfterEach
    void stop() throws Exception {
        clients.forEach(KhameleonClient::close);
        if (haproxy != null) {
            haproxy.close();
        }
        servers.forEach(KhameleonServer::close);
    }

    private KhameleonServer startServer(int seed) {
        KhameleonServer s = GridNode.builder(seed, 200_000).build().start();
        servers.add(s);
        // A node joins a balancer warm: a first answer from a cold JVM on a busy machine can take
        // longer than a health check waits.
        for (int k = 0; k < 3; k++) {
            try {
                HttpResponse<String> ok = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + s.port() + "/healthz")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, ok.statusCode());
            } catch (IOException | InterruptedException e) {
                throw new AssertionError("node " + s.port() + " does not answer /healthz", e);
            }
        }
        return s;
    }

    private KhameleonClient<PointerEvent> connect(URI uri) throws Exception {
        KhameleonClient<PointerEvent> c = KhameleonClient.builder().uri(uri).application("grid").cacheBlocks(64)
                .predictor(new GridNode.CellPredictor()).backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
        clients.add(c);
        try {
            assertEquals(GridNode.GRID.requestCount(), c.connect().get(10, TimeUnit.SECONDS).requestCount());
        } catch (ExecutionException e) {
            throw new AssertionError("connect " + clients.size() + " failed; haproxy said:\n" + log(), e);
        }
        return c;
    }

    /** Starts haproxy with the documented configuration in front of the servers. */
    private int startHaproxy(Path dir) throws Exception {
        haproxy = Haproxy.start(dir, servers.stream().map(KhameleonServer::port).toList());
        return haproxy.port();
    }

    private int sessionsOn(int node) {
        return servers.get(node).sessionMetrics().size();
    }

    private int totalSessions() {
        return servers.stream().mapToInt(s -> s.sessionMetrics().size()).sum();
    }

    @Test
    void sessionsSpread_drainedNodeIsMarkedDown_andClientsGetBlocksThroughHaproxy(@TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        for (int k = 0; k < 3; k++) {
            startServer(k + 1);
        }
        URI uri = URI.create("ws://127.0.0.1:" + startHaproxy(dir) + "/grid");

        for (int k = 0; k < 6; k++) {
            connect(uri);
            int expected = k + 1;
            await(() -> totalSessions() == expected, expected + " sessions open");
        }
        for (int node = 0; node < 3; node++) {
            assertEquals(2, sessionsOn(node), "leastconn gives each node two of six sessions; haproxy said:\n"
                    + log());
        }
        assertBlocksThrough(clients.get(0), 5);

        try (LogCapture drained = LogCapture.warnings(KhameleonClient.class,
                "server error shutdown: the server is draining")) {
            servers.get(0).drain(Duration.ofMillis(500)).get(10, TimeUnit.SECONDS);
            // Before HAProxy marks the drained node down, leastconn still prefers it (it is empty) and it
            // refuses upgrades with 503: HAProxy retries them elsewhere, so even a first connect, which
            // the client does not retry, succeeds.
            for (int k = 0; k < 3; k++) {
                connect(uri);
            }
            await(() -> log().contains("khameleon_nodes/node1 is DOWN"), "haproxy marks the drained node down");
            for (int k = 0; k < 3; k++) {
                connect(uri);
            }
            await(() -> totalSessions() == 12, "the drained node's two clients reconnected and six more joined");
            // Each warned before it reconnected; the refused upgrades never reached a client.
            assertEquals(2, drained.messages().size(),
                    "the drained node's two clients were told: " + drained.messages());
        }
        assertEquals(0, sessionsOn(0), "no session on the drained node");
        assertEquals(2, servers.get(1).metrics().sessionsResumed() + servers.get(2).metrics().sessionsResumed(),
                "the drained node's two clients resumed their sessions on the other nodes, cache included");
        assertEquals(0, servers.get(1).metrics().resumesRefused() + servers.get(2).metrics().resumesRefused());
        assertTrue(sessionsOn(1) >= 4 && sessionsOn(2) >= 4,
                "the others share the load: " + sessionsOn(1) + " and " + sessionsOn(2));
        for (KhameleonClient<PointerEvent> c : clients) {
            assertBlocksThrough(c, 9);
        }
    }

    /** Requests {@code cell} and checks the complete response's bytes. */
    private static void assertBlocksThrough(KhameleonClient<PointerEvent> client, int cell) throws Exception {
        client.onEvent((cell % 4) * 100 + 50, (cell / 4) * 100 + 50, System.currentTimeMillis());
        CompletableFuture<Response> complete = new CompletableFuture<>();
        client.request(cell, r -> {
            if (r.isComplete()) {
                complete.complete(r);
            }
        });
        Response r;
        try {
            r = complete.get(20, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no complete response to request " + cell + ": " + client.metrics(), e);
        }
        assertEquals(BLOCKS, r.blocks().size());
        for (Block b : r.blocks()) {
            assertArrayEquals(GridNode.payload(cell, b.index()), b.payloadBytes(), "block " + b);
        }
    }

    private String log() {
        return haproxy.log();
    }

    private void await(BooleanSupplier condition, String what) throws InterruptedException {
        haproxy.await(condition, what);
    }
}
