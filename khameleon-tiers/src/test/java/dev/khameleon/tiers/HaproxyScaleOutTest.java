package dev.khameleon.tiers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.core.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    static final Path HAPROXY = Path.of("/usr/sbin/haproxy");
    static final Path DOC = Path.of("..", "docs", "scale-out.md");
    private static final int BLOCK_SIZE = 256;
    private static final int BLOCKS = 4;
    private static final GridLayout GRID = Layout.grid(4, 4, 0, 0, 100, 100);
    /** The nodes' shared resume key: a session moved off a node resumes on another with its cache. */
    private static final byte[] RESUME_KEY =
            "a resume key shared by all nodes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final List<KhameleonServer> servers = new ArrayList<>();
    private final List<KhameleonClient<PointerEvent>> clients = new ArrayList<>();
    private Process haproxy;
    private Path haproxyLog;

    @AfterEach
    void stop() throws Exception {
        clients.forEach(KhameleonClient::close);
        if (haproxy != null) {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        servers.forEach(KhameleonServer::close);
    }

    /** The configuration in the documentation's {@code haproxy} block. */
    static String documentedConfig() throws IOException {
        String doc = Files.readString(DOC);
        Matcher m = Pattern.compile("```haproxy\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertTrue(m.find(), "docs/scale-out.md has a ```haproxy block");
        return m.group(1);
    }

    static byte[] payload(int request, int index) {
        byte[] p = new byte[BLOCK_SIZE];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) (request * 31 + index * 7 + i);
        }
        return p;
    }

    private static BlockSource blocks() {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < GRID.requestCount(); r++) {
            List<Block> bs = new ArrayList<>();
            for (int b = 0; b < BLOCKS; b++) {
                bs.add(Block.wrap(r, b, BLOCKS, payload(r, b), 0));
            }
            responses.add(bs);
        }
        return BlockSource.inMemory(BLOCK_SIZE, responses);
    }

    private KhameleonServer startServer(int seed) {
        Application app = Application.builder("grid").blockSource(blocks())
                .predictor(ServerPredictor.point(GRID.requestCount(), 50, 150, 250, 500)).build();
        // Every connection comes from the proxy's address: per-address limits are the proxy's job.
        KhameleonServer s = KhameleonServer.builder().host("127.0.0.1").port(0).seed(seed)
                .fixedBytesPerSecond(200_000).maxConnectionsPerAddress(10_000).maxHandshakesPerAddress(10_000)
                .resumeKey(RESUME_KEY).application(app).build().start();
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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Starts haproxy with the documented configuration, pointed at 127.0.0.1 ports. */
    private int startHaproxy(Path dir) throws Exception {
        int port = freePort();
        String cfg = documentedConfig().replace("bind :80", "bind 127.0.0.1:" + port);
        for (int k = 0; k < servers.size(); k++) {
            String documented = "10.0.0.1" + (k + 1) + ":8080";
            assertTrue(cfg.contains(documented), "the documented config names " + documented);
            cfg = cfg.replace(documented, "127.0.0.1:" + servers.get(k).port());
        }
        // Diagnostics only: HAProxy logs each request (which node, what status) to the test's log file.
        cfg = "global\n    log stderr format short local0 info\n\n" + cfg.replace("    mode http\n",
                "    mode http\n    log global\n    option httplog\n");
        Path file = dir.resolve("haproxy.cfg");
        Files.writeString(file, cfg);
        haproxyLog = dir.resolve("haproxy.log");
        haproxy = new ProcessBuilder(HAPROXY.toString(), "-db", "-f", file.toString())
                .redirectErrorStream(true).redirectOutput(haproxyLog.toFile()).start();
        await(() -> {
            if (!haproxy.isAlive()) {
                throw new AssertionError("haproxy exited with " + haproxy.exitValue() + ":\n" + log());
            }
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return true;
            } catch (IOException e) {
                return false;
            }
        }, "haproxy listens on " + port);
        return port;
    }

    private KhameleonClient<PointerEvent> connect(URI uri) throws Exception {
        KhameleonClient<PointerEvent> c = KhameleonClient.builder().uri(uri).application("grid").cacheBlocks(64)
                .predictor(new CellPredictor()).backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
        clients.add(c);
        try {
            assertEquals(GRID.requestCount(), c.connect().get(10, TimeUnit.SECONDS).requestCount());
        } catch (ExecutionException e) {
            throw new AssertionError("connect " + clients.size() + " failed; haproxy said:\n" + log(), e);
        }
        return c;
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
        Assumptions.assumeTrue(Files.isExecutable(HAPROXY),
                "haproxy not found at " + HAPROXY + " (Debian package haproxy); test skipped");
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
            assertArrayEquals(payload(cell, b.index()), b.payloadBytes(), "block " + b);
        }
    }

    private String log() {
        try {
            return Files.readString(haproxyLog);
        } catch (IOException e) {
            return "";
        }
    }

    private void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what + "; haproxy said:\n" + log());
            }
            Thread.sleep(20);
        }
    }

    /** The client half of the point predictor: the cell under the pointer. */
    private static final class CellPredictor implements ClientPredictor<PointerEvent> {
        private volatile int cell = -1;

        @Override
        public void onEvent(PointerEvent event) {
            cell = GRID.requestAt(event.x(), event.y());
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", cell);
        }
    }
}
