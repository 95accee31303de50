package dev.khameleon.tiers;

import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
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
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kill -9} of a node behind HAProxy, mid-session: three server JVMs sharing a resume key
 * behind Debian's haproxy with the configuration of docs/scale-out.md, nine Java clients filling
 * their rings, then SIGKILL of the node holding most sessions. Every affected client must be back
 * through HAProxy, its session resumed, within 2 s of the kill; the first frame it gets continues
 * its ring at the expected sequence number; no block its ring holds from the current batch is
 * pushed again; and the requests it had cached are still hits. Prints the reconnect times.
 */
@Timeout(60)
class HaproxyKillTest {
    private static final int NODES = 3;
    private static final int CLIENTS = 9;
    /** Smaller than the 64 blocks of content, so rings wrap and requests are overwritten. */
    private static final int C = 16;
    /** The cells the pointers visit before the kill; the ones after it are all others. */
    private static final int[] BEFORE = {5, 10, 6};
    /** Per session: about 100 frames a second, so a ring fills in well under a second. */
    private static final long BYTES_PER_SECOND = 30_000;
    private static final long BACK_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** One client and what it saw. */
    private static final class Watched implements ClientListener {
        final FrameTap tap = new FrameTap();
        final KhameleonClient<PointerEvent> client;
        final CompletableFuture<Boolean> resume = new CompletableFuture<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile long disconnectedAtNanos = -1;
        volatile long resumedAtNanos = -1;
        volatile long seqAtDisconnect = -1;
        volatile int resumedConnection = -1;
        volatile Welcome resumedWelcome;
        /** Requests cached at the disconnect whose block 0 is among the newest half of the ring. */
        volatile List<Integer> recentlyCached = List.of();
        /** Those of them that were hits right after the resume. */
        final List<Integer> hitsAfterResume = new CopyOnWriteArrayList<>();

        Watched(URI uri) {
            client = KhameleonClient.builder().uri(uri).application("grid").cacheBlocks(C)
                    .predictor(new GridNode.CellPredictor()).backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
                    .httpClient(tap).listener(this).build();
        }

        /** Whether this client, once resumed, received frames up to the end of the ring's batch. */
        boolean pastTheBatch() {
            return seqAtDisconnect < 0 || client.cache().nextSeq() >= (seqAtDisconnect / C + 1) * C;
        }

        @Override
        public void onDisconnected(int status, String reason, boolean willReconnect) {
            events.add("disconnected " + status + " " + reason);
            if (disconnectedAtNanos >= 0) {
                return;
            }
            disconnectedAtNanos = System.nanoTime();
            // No connection now: the cache stays as it is until the next welcome.
            long next = client.cache().nextSeq();
            seqAtDisconnect = next;
            Map<Integer, Long> lastBlock0 = new HashMap<>();
            for (FrameTap.Frame f : tap.frames()) {
                if (f.index() == 0) {
                    lastBlock0.put(f.requestId(), f.seq());
                }
            }
            List<Integer> recent = new ArrayList<>();
            lastBlock0.forEach((id, seq) -> {
                if (seq >= next - C / 2 && client.cache().prefixLength(id) > 0) {
                    recent.add(id);
                }
            });
            recentlyCached = recent;
        }

        @Override
        public void onResume(boolean resumed, Welcome welcome, String refusal) {
            resumedAtNanos = System.nanoTime();
            resumedConnection = tap.connections();
            resumedWelcome = welcome;
            events.add("resume " + resumed + " " + refusal + " at " + welcome.firstSeq());
            if (resumed) {
                // At once: the new node overwrites the oldest slots first, these are the newest.
                for (int id : recentlyCached) {
                    if (client.request(id, r -> { })) {
                        hitsAfterResume.add(id);
                    }
                }
            }
            resume.complete(resumed);
        }
    }

    @Test
    void killNineOfANode_itsClientsResumeThroughHaproxyWithin2s_continuingTheirRings(@TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        List<Process> launched = new ArrayList<>();
        List<NodeProcess> nodes = new ArrayList<>();
        List<Watched> clients = new ArrayList<>();
        Haproxy haproxy = null;
        try {
            for (int k = 1; k <= NODES; k++) {
                launched.add(NodeProcess.launch(dir, k, BYTES_PER_SECOND));
            }
            for (int k = 1; k <= NODES; k++) {
                nodes.add(NodeProcess.ready(launched.get(k - 1), dir, k));
                warm(nodes.get(k - 1));
            }
            haproxy = Haproxy.start(dir, nodes.stream().map(NodeProcess::port).toList());
            URI uri = URI.create("ws://127.0.0.1:" + haproxy.port() + "/grid");
            for (int k = 0; k < CLIENTS; k++) {
                Watched w = new Watched(uri);
                clients.add(w);
                w.client.connect().get(10, TimeUnit.SECONDS);
            }
            visit(clients, BEFORE, haproxy);

            long[] sessions = new long[NODES];
            int victim = 0;
            for (int k = 0; k < NODES; k++) {
                sessions[k] = nodes.get(k).metrics()[0];
                if (sessions[k] > sessions[victim]) {
                    victim = k;
                }
            }
            assertEquals(CLIENTS, Arrays.stream(sessions).sum(), "every client has a session");
            long killedAt = System.nanoTime();
            nodes.get(victim).kill();

            Haproxy h = haproxy;
            long lost = sessions[victim];
            h.await(() -> clients.stream().filter(w -> w.resume.isDone()).count() >= lost,
                    "the killed node's " + lost + " clients are back");
            List<Watched> affected = clients.stream().filter(w -> w.disconnectedAtNanos >= 0).toList();
            assertEquals(lost, affected.size(), "the killed node's clients, and only they, lost their connection");

            // The new nodes push as their clients' pointers move on, past the end of the batch.
            int[] after = IntStream.range(0, GridNode.GRID.requestCount())
                    .filter(cell -> Arrays.stream(BEFORE).noneMatch(b -> b == cell)).toArray();
            for (int k = 0; k < after.length && !affected.stream().allMatch(Watched::pastTheBatch); k++) {
                visit(affected, new int[] {after[k]}, h);
            }
            List<Long> backMillis = new ArrayList<>();
            for (Watched w : affected) {
                assertTrue(w.disconnectedAtNanos >= killedAt, "disconnected by the kill: " + w.events);
                assertTrue(w.resume.getNow(false), "resumed, not a fresh session: " + w.events);
                long back = w.resumedAtNanos - killedAt;
                backMillis.add(TimeUnit.NANOSECONDS.toMillis(back));
                assertTrue(back <= BACK_WITHIN_NANOS, "back through haproxy in " + back / 1e6 + " ms: " + w.events
                        + "; haproxy said:\n" + h.log());
                assertRingContinues(w, h);
                assertFalse(w.recentlyCached.isEmpty(), "the ring held requests before the kill");
                assertEquals(w.recentlyCached, w.hitsAfterResume, "requests cached before the kill are hits after it");
            }
            long resumed = 0;
            long refused = 0;
            for (int k = 0; k < NODES; k++) {
                if (k != victim) {
                    long[] m = nodes.get(k).metrics();
                    resumed += m[1];
                    refused += m[2];
                }
            }
            assertEquals(affected.size(), resumed, "each affected session resumed once, on a surviving node");
            assertEquals(0, refused);
            for (Watched w : clients) {
                assertTrue(affected.contains(w) || w.events.isEmpty(), "a client of a surviving node: " + w.events);
            }
            backMillis.sort(null);
            System.out.printf("kill -9 of a node with %d of %d sessions: back through haproxy, resumed, in p50 %d ms,"
                    + " max %d ms (%s)%n", affected.size(), CLIENTS, backMillis.get((backMillis.size() - 1) / 2),
                    backMillis.get(backMillis.size() - 1), backMillis);
        } catch (AssertionError e) {
            StringBuilder logs = new StringBuilder(e.getMessage()).append("\nclients:");
            for (Watched w : clients) {
                logs.append("\n  ").append(w.tap.frames().size()).append(" frames, next ")
                        .append(w.client.cache().nextSeq()).append(", ").append(w.events);
            }
            for (NodeProcess n : nodes) {
                logs.append("\nnode ").append(n.port()).append(" logged:\n").append(n.log());
            }
            throw new AssertionError(logs.toString(), e);
        } finally {
            for (Watched w : clients) {
                w.client.close();
            }
            if (haproxy != null) {
                haproxy.close();
            }
            for (Process p : launched) {
                p.destroyForcibly();
            }
            for (Process p : launched) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
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

    /**
     * Moves every client's pointer over {@code cells}, each until its response is complete in every
     * client's cache (then its node has nothing more to push for it).
     */
    private static void visit(List<Watched> clients, int[] cells, Haproxy haproxy) throws InterruptedException {
        for (int cell : cells) {
            for (Watched w : clients) {
                w.client.onEvent((cell % 4) * 100 + 50, (cell / 4) * 100 + 50, System.currentTimeMillis());
            }
            for (int k = 0; k < clients.size(); k++) {
                KhameleonClient<PointerEvent> c = clients.get(k).client;
                haproxy.await(() -> c.cache().prefixLength(cell) == GridNode.BLOCKS,
                        "client " + k + " has the response to cell " + cell);
            }
        }
    }

    /**
     * The resumed connection's first frame carries the sequence number the ring stopped at, and
     * until the end of the current batch of {@code C} slots no block is pushed that the ring
     * already holds from this batch (protocol.md, section 8).
     */
    private static void assertRingContinues(Watched w, Haproxy haproxy) throws InterruptedException {
        long next = w.seqAtDisconnect;
        assertEquals(next, w.resumedWelcome.firstSeq(), "the welcome continues the ring where it stopped");
        long batchStart = next / C * C;
        long batchEnd = batchStart + C;
        assertTrue(w.pastTheBatch(), "the new node pushed to the end of the batch, " + batchEnd + ": " + w.events);
        Set<Long> batch = new HashSet<>();
        FrameTap.Frame first = null;
        for (FrameTap.Frame f : w.tap.frames()) {
            if (f.connection() < w.resumedConnection && f.seq() >= batchStart && f.seq() < next) {
                batch.add(key(f));
            } else if (f.connection() == w.resumedConnection && f.seq() < batchEnd) {
                if (first == null) {
                    first = f;
                    assertEquals(next, f.seq(), "the first frame after the resume has the expected sequence number");
                }
                assertTrue(batch.add(key(f)), "request " + f.requestId() + " block " + f.index() + " at " + f.seq()
                        + " is already in this batch of the ring");
            }
        }
        assertTrue(first != null, "frames after the resume: " + w.events);
    }

    private static long key(FrameTap.Frame f) {
        return ((long) f.requestId() << 32) | f.index();
    }
}
