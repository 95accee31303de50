package dev.khameleon.tiers;

import dev.khameleon.testing.Haproxy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Node JVMs ({@link NodeProcess}) behind Debian's haproxy with the documented configuration
 * ({@link Haproxy}), all on loopback: the load-balancer tests' fleet. {@link #close()} stops
 * haproxy and SIGKILLs every node JVM it launched, stopped or not, and waits for them to exit, so
 * nothing outlives a test, passed or failed.
 */
final class Fleet implements AutoCloseable {
    private final List<Process> launched = new ArrayList<>();
    private final List<NodeProcess> nodes = new ArrayList<>();
    private Haproxy haproxy;

    private Fleet() {
    }

    /**
     * Launches {@code count} nodes serving {@code application} ({@code grid} or {@code screen}, see
     * {@link GridNode#main}) with seeds 1..count, each pushing {@code bytesPerSecond} per session,
     * warms them and starts haproxy in front of them. Files go to {@code dir}.
     */
    static Fleet start(Path dir, int count, long bytesPerSecond, String application) throws Exception {
        return start(dir, count, bytesPerSecond, application, UnaryOperator.identity());
    }

    /** Like {@link #start(Path, int, long, String)}, haproxy's documented configuration changed by {@code edit}. */
    static Fleet start(Path dir, int count, long bytesPerSecond, String application, UnaryOperator<String> edit)
            throws Exception {
        Fleet f = new Fleet();
        try {
            // All JVMs start at once: on a small machine their start-ups overlap.
            for (int k = 1; k <= count; k++) {
                f.launched.add(NodeProcess.launch(dir, k, bytesPerSecond, application));
            }
            for (int k = 1; k <= count; k++) {
                NodeProcess node = NodeProcess.ready(f.launched.get(k - 1), dir, k);
                f.nodes.add(node);
                warm(node);
            }
            f.haproxy = Haproxy.start(dir, f.nodes.stream().map(NodeProcess::port).toList(), edit);
        } catch (Throwable e) {
            f.close();
            throw e;
        }
        return f;
    }

    /** Answers /healthz three times: a node joins the balancer warm, as a health check would find it. */
    private static void warm(NodeProcess node) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        for (int k = 0; k < 3; k++) {
            HttpResponse<String> ok = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.port() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode(), "node " + node.port() + " /healthz");
        }
    }

    /** The nodes, in launch order. */
    List<NodeProcess> nodes() {
        return nodes;
    }

    /** The proxy in front of them. */
    Haproxy haproxy() {
        return haproxy;
    }

    /** The WebSocket address of the nodes' application through the proxy. */
    URI uri() {
        return URI.create("ws://127.0.0.1:" + haproxy.port() + "/grid");
    }

    /** Open sessions per node, as each node counts them (every node must answer). */
    long[] sessions() throws IOException, InterruptedException {
        long[] s = new long[nodes.size()];
        for (int k = 0; k < s.length; k++) {
            s[k] = nodes.get(k).metrics()[0];
        }
        return s;
    }

    /** The index of the node with the most open sessions (the first of equals). */
    static int busiest(long[] sessions) {
        int b = 0;
        for (int k = 1; k < sessions.length; k++) {
            if (sessions[k] > sessions[b]) {
                b = k;
            }
        }
        return b;
    }

    /** What every node and haproxy logged so far, for a failure message. */
    String logs() {
        StringBuilder out = new StringBuilder();
        for (NodeProcess n : nodes) {
            out.append("\nnode ").append(n.port()).append(" logged:\n").append(n.log());
        }
        if (haproxy != null) {
            out.append("\nhaproxy logged:\n").append(haproxy.log());
        }
        return out.toString();
    }

    /** {@code e} with every client's state and every node's and haproxy's log appended. */
    AssertionError withLogs(AssertionError e, List<WatchedClient> clients) {
        StringBuilder out = new StringBuilder(e.getMessage()).append("\nclients:");
        for (WatchedClient w : clients) {
            out.append("\n  ").append(w.describe());
        }
        return new AssertionError(out.append(logs()).toString(), e);
    }

    @Override
    public void close() {
        try {
            if (haproxy != null) {
                haproxy.close();
            }
        } finally {
            // SIGKILL ends a stopped JVM too.
            for (Process p : launched) {
                p.destroyForcibly();
            }
            try {
                for (Process p : launched) {
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
