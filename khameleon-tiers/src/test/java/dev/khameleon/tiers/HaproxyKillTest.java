package dev.khameleon.tiers;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.testing.Haproxy;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kill -9} of a node behind HAProxy, mid-session: three server JVMs sharing a resume key
 * behind Debian's haproxy with the configuration of docs/scale-out.md, nine Java clients filling
 * their rings, then SIGKILL of the node holding most sessions. Every affected client must be back
 * through HAProxy with its session resumed; the first frame it gets continues its ring at the
 * expected sequence number; no block its ring holds from the current batch is pushed again; and the
 * requests it had cached are still hits. Prints the reconnect times, a benchmark figure that is not
 * asserted because a busy machine stretches it.
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

    @Test
    void killNineOfANode_itsClientsResumeThroughHaproxy_continuingTheirRings(@TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        List<WatchedClient> clients = new ArrayList<>();
        try (Fleet fleet = Fleet.start(dir, NODES, BYTES_PER_SECOND, "grid")) {
            List<NodeProcess> nodes = fleet.nodes();
            Haproxy haproxy = fleet.haproxy();
            try {
                for (int k = 0; k < CLIENTS; k++) {
                    WatchedClient w = new WatchedClient(KhameleonClient.builder().uri(fleet.uri()).application("grid")
                            .predictor(new GridNode.CellPredictor())
                            .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), C, true);
                    clients.add(w);
                    w.client.connect().get(10, TimeUnit.SECONDS);
                }
                killAndCheck(nodes, haproxy, clients);
            } catch (AssertionError e) {
                throw fleet.withLogs(e, clients);
            } finally {
                WatchedClient.closeAll(clients);
            }
        }
    }

    /** Kills the busiest node once the clients have cached {@link #BEFORE}, and checks its clients' resumes. */
    private static void killAndCheck(List<NodeProcess> nodes, Haproxy haproxy, List<WatchedClient> clients)
            throws Exception {
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
        List<WatchedClient> affected = clients.stream().filter(w -> w.disconnectedAtNanos >= 0).toList();
        assertEquals(lost, affected.size(), "the killed node's clients, and only they, lost their connection");

        // The new nodes push as their clients' pointers move on, past the end of the batch.
        int[] after = IntStream.range(0, GridNode.GRID.requestCount())
                .filter(cell -> Arrays.stream(BEFORE).noneMatch(b -> b == cell)).toArray();
        for (int k = 0; k < after.length && !affected.stream().allMatch(WatchedClient::pastTheBatch); k++) {
            visit(affected, new int[] {after[k]}, h);
        }
        List<Long> backMillis = new ArrayList<>();
        for (WatchedClient w : affected) {
            assertTrue(w.disconnectedAtNanos >= killedAt, "disconnected by the kill: " + w.events);
            assertTrue(w.resume.getNow(false), "resumed, not a fresh session: " + w.events);
            long back = w.resumedAtNanos - killedAt;
            backMillis.add(TimeUnit.NANOSECONDS.toMillis(back));
            w.assertRingContinues();
            assertFalse(w.recentlyCached.isEmpty(), "the ring held requests before the kill");
            assertEquals(w.expectedHitsAfterResume, w.hitsAfterResume,
                    "requests cached before the kill are hits after it, unless the new node overwrote them first");
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
        for (WatchedClient w : clients) {
            assertTrue(affected.contains(w) || w.events.isEmpty(), "a client of a surviving node: " + w.events);
        }
        backMillis.sort(null);
        System.out.printf("kill -9 of a node with %d of %d sessions: back through haproxy, resumed, in p50 %d ms,"
                + " max %d ms (%s)%n", affected.size(), CLIENTS, backMillis.get((backMillis.size() - 1) / 2),
                backMillis.get(backMillis.size() - 1), backMillis);
    }

    /**
     * Moves every client's pointer over {@code cells}, each until its response is complete in every
     * client's cache (then its node has nothing more to push for it).
     */
    private static void visit(List<WatchedClient> clients, int[] cells, Haproxy haproxy) throws InterruptedException {
        for (int cell : cells) {
            for (WatchedClient w : clients) {
                w.client.onEvent((cell % 4) * 100 + 50, (cell / 4) * 100 + 50, System.currentTimeMillis());
            }
            for (int k = 0; k < clients.size(); k++) {
                KhameleonClient<PointerEvent> c = clients.get(k).client;
                haproxy.await(() -> c.cache().prefixLength(cell) == GridNode.BLOCKS,
                        "client " + k + " has the response to cell " + cell);
            }
        }
    }
}
