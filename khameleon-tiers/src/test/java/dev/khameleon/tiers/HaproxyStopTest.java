package dev.khameleon.tiers;

import dev.khameleon.core.Rect;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.testing.BalabitTraces;
import dev.khameleon.testing.Haproxy;
import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that vanishes from the network behind HAProxy: SIGSTOP of a node JVM mid-replay, so that
 * no RST or FIN tells anyone (its kernel keeps its connections and accepts new ones, nothing is
 * answered). Three node JVMs (the {@code screen} application of {@link GridNode}) behind Debian's
 * haproxy with the configuration of docs/scale-out.md; nine Java clients with their default
 * predictor replay Balabit traces. HAProxy's health checks time out, it marks the node down and
 * ({@code on-marked-down shutdown-sessions}) closes the sessions it carried; their clients
 * reconnect and resume on the other nodes, their rings continued: closed by HAProxy before their
 * idle timeout noticed, their first reconnect reaching a live node. Without {@code shutdown-sessions}
 * the clients' own idle timeout must move them, with at most one reconnect reaching the silent node.
 * Prints the times against the bounds the settings give ({@link #boundMillis},
 * {@link #idleBoundMillis}); only a hang may take three times the bound, since load stretches them.
 */
@Timeout(120)
class HaproxyStopTest {
    private static final int NODES = 3;
    private static final int CLIENTS = 9;
    private static final int C = 192;
    private static final long BYTES_PER_SECOND = 30_000;
    private static final double TRACE_MILLIS = 30_000;
    private static final double SPEED = 1.5;
    private static final long STOP_AT_MILLIS = 4_000;
    /** The clients' first reconnect waits at most their initial back-off ({@link WatchedClient#connected}). */
    private static final long BACKOFF_MILLIS = 100;
    /** The Java client's default {@code connectTimeout}. */
    private static final long CONNECT_TIMEOUT_MILLIS = 10_000;
    /** Allowance for the reconnect through haproxy and the resume on a surviving node (measured: under 0.6 s on a loaded machine). */
    private static final long RESUME_ALLOWANCE_MILLIS = 1_000;

    /**
     * How long after a node goes silent its clients may take to be back, from the documented
     * {@code inter}, {@code fall} and {@code timeout check}: a check starts at most {@code inter}
     * after the node stops and fails {@code timeout check} later; each of the {@code fall - 1}
     * further checks starts {@code inter} after the last one failed and fails the same way; then
     * HAProxy marks the node down and closes its sessions, and each client reconnects after its
     * first back-off and resumes.
     */
    static long boundMillis(String config) {
        Matcher check = Pattern.compile("check inter (\\d+)s fall (\\d+)").matcher(config);
        Matcher timeout = Pattern.compile("timeout check (\\d+)s").matcher(config);
        assertTrue(check.find() && timeout.find(), "the documented config has check inter, fall and timeout check");
        long inter = Long.parseLong(check.group(1)) * 1000;
        long fall = Long.parseLong(check.group(2));
        long timeoutCheck = Long.parseLong(timeout.group(1)) * 1000;
        return inter + fall * timeoutCheck + (fall - 1) * inter + BACKOFF_MILLIS + RESUME_ALLOWANCE_MILLIS;
    }

    @Test
    void sigstopOfANode_haproxyClosesItsSessions_itsClientsResumeElsewhereWithinTheCheckBound(@TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        long bound = boundMillis(Haproxy.documentedConfig());
        stopBusiestMidReplay(dir, UnaryOperator.identity(), Duration.ofSeconds(30), bound,
                "haproxy's health checks", false);
    }

    /**
     * The same with {@code on-marked-down shutdown-sessions} left out of the configuration: HAProxy
     * keeps the silent node's sessions open, and only the clients' idle timeout (3 s here) moves them.
     */
    @Test
    void sigstopOfANode_withoutShutdownSessions_theClientsIdleTimeoutMovesThem(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        Duration idle = Duration.ofSeconds(3);
        stopBusiestMidReplay(dir, cfg -> cfg.replace(" on-marked-down shutdown-sessions", ""), idle,
                idleBoundMillis(idle), "the clients' idle timeout", true);
    }

    /**
     * How long after a node goes silent its clients may take to be back when only their own
     * {@code idleTimeout} notices: the silence is noticed at most four thirds of it after the node
     * last sent anything; then the first reconnect may reach the silent node itself (HAProxy has
     * not marked it down yet, and {@code leastconn} prefers it: it has the fewest sessions now),
     * where it waits out the client's {@code connectTimeout} (10 s by default); the second,
     * after a back-off of at most 200 ms, reaches a node HAProxy still sends sessions to.
     */
    static long idleBoundMillis(Duration idleTimeout) {
        return idleTimeout.toMillis() * 4 / 3 + CONNECT_TIMEOUT_MILLIS + BACKOFF_MILLIS + 2 * BACKOFF_MILLIS
                + RESUME_ALLOWANCE_MILLIS;
    }

    /**
     * Checks how a client of the stopped node came back, from what it saw rather than from how long
     * it took (which load stretches): moved by its idle timeout, it noticed the silence first and
     * needed at most one reconnect that failed (the one HAProxy may still send to the silent node);
     * moved by HAProxy's checks, it was closed before its idle timeout noticed anything and its
     * first reconnect reached a live node.
     */
    private static void assertMovedBy(WatchedClient w, Duration idleTimeout, boolean idleTimeoutMovesThem) {
        List<String> events = List.copyOf(w.events);
        long failed = events.stream().filter(e -> e.contains("connection failed")).count();
        boolean firstByIdle = !events.isEmpty() && events.get(0).contains("idle timeout");
        if (idleTimeoutMovesThem) {
            assertTrue(firstByIdle, "the idle timeout (" + idleTimeout.toMillis() + " ms) noticed the silence: " + events);
            assertTrue(failed <= 1, "at most the first reconnect reached the silent node: " + events);
        } else {
            assertFalse(events.stream().anyMatch(e -> e.contains("idle timeout")),
                    "haproxy closed the session before the client's idle timeout noticed: " + events);
            assertEquals(0, failed, "the first reconnect reached a live node: " + events);
        }
    }

    /**
     * Nine clients (with {@code idleTimeout}) replay traces through haproxy (its documented
     * configuration changed by {@code edit}); the busiest node gets SIGSTOP 4 s in. Each of its
     * clients must lose its connection and be back, resumed, on another node within
     * {@code boundMillis} of the stop, its ring continued; the others keep their sessions.
     */
    private static void stopBusiestMidReplay(Path dir, UnaryOperator<String> edit, Duration idleTimeout,
                                             long boundMillis, String closedBy, boolean idleTimeoutMovesThem)
            throws Exception {
        List<List<BalabitTraces.Sample>> traces = TraceReplay.traces(CLIENTS, TRACE_MILLIS, SPEED);
        List<WatchedClient> clients = new ArrayList<>();
        try (Fleet fleet = Fleet.start(dir, NODES, BYTES_PER_SECOND, "screen", edit)) {
            NodeProcess stopped = null;
            try {
                for (int k = 0; k < CLIENTS; k++) {
                    clients.add(WatchedClient.connected(fleet.uri(), C, k, idleTimeout));
                }
                long[] sessions = fleet.sessions();
                assertEquals(CLIENTS, Arrays.stream(sessions).sum(), "every client has a session");
                List<KhameleonClient<PointerEvent>> kc = clients.stream().map(w -> w.client).toList();
                long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                try (TraceReplay replay = new TraceReplay(kc, traces, start);
                     LogCapture idle = LogCapture.warnings(KhameleonClient.class, "; dropping the connection")) {
                    TimeUnit.NANOSECONDS.sleep(start + TimeUnit.MILLISECONDS.toNanos(STOP_AT_MILLIS)
                            - System.nanoTime());
                    sessions = fleet.sessions();
                    int victim = Fleet.busiest(sessions);
                    long lost = sessions[victim];
                    long stoppedAt = System.nanoTime();
                    stopped = fleet.nodes().get(victim);
                    stopped.stop();
                    fleet.haproxy().await(() -> clients.stream().filter(w -> w.resume.isDone()).count() >= lost,
                            "the stopped node's " + lost + " clients are back");
                    List<Long> closedMillis = new ArrayList<>();
                    List<Long> backMillis = new ArrayList<>();
                    List<Integer> moved = new ArrayList<>();
                    for (int k = 0; k < CLIENTS; k++) {
                        WatchedClient w = clients.get(k);
                        if (w.disconnectedAtNanos < 0) {
                            continue;
                        }
                        moved.add(k);
                        assertTrue(w.disconnectedAtNanos >= stoppedAt, "disconnected after the stop: " + w.events);
                        assertTrue(w.resume.getNow(false), "resumed, not a fresh session: " + w.events);
                        closedMillis.add(TimeUnit.NANOSECONDS.toMillis(w.disconnectedAtNanos - stoppedAt));
                        long back = TimeUnit.NANOSECONDS.toMillis(w.resumedAtNanos - stoppedAt);
                        backMillis.add(back);
                        assertMovedBy(w, idleTimeout, idleTimeoutMovesThem);
                        // Only a hang takes three times the bound; the bound itself is what the
                        // printed times are compared with (docs/benchmarks.md), load adding to it.
                        assertTrue(back <= 3 * boundMillis, "client " + k + " back through haproxy " + back
                                + " ms after the stop, three times the " + boundMillis + " ms " + closedBy
                                + " allow: " + w.events);
                    }
                    assertEquals(lost, moved.size(), "the stopped node's clients, and only they, lost their"
                            + " connection");
                    replay.join((long) (TRACE_MILLIS / SPEED / 1e3) + 30);
                    // A client back late (after a connect timeout on a busy machine) may have had too
                    // little of the trace left for its new node to finish the batch: its pointer moves
                    // on over the screen's cells until the node has pushed past the batch.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    for (int step = 0; moved.stream().anyMatch(k -> !clients.get(k).pastTheBatch()); step++) {
                        assertTrue(System.nanoTime() < deadline, "the new nodes pushed past the batch within 30 s");
                        Rect cell = GridNode.SCREEN.bounds(step % GridNode.SCREEN.requestCount());
                        for (int k : moved) {
                            clients.get(k).client.onEvent(cell.centerX(), cell.centerY(), System.currentTimeMillis());
                        }
                        Thread.sleep(50);
                    }
                    for (int k = 0; k < CLIENTS; k++) {
                        WatchedClient w = clients.get(k);
                        if (moved.contains(k)) {
                            w.assertRingContinues();
                        } else {
                            assertTrue(w.events.isEmpty(), "client " + k + " kept its session: " + w.events);
                        }
                    }
                    // The client's own warning when its idle timeout drops a connection: once for each
                    // client of the stopped node if only the timeout moves them, else never.
                    assertEquals(idleTimeoutMovesThem ? lost : 0, idle.messages().size(),
                            "idle-timeout warnings: " + idle.messages());
                    System.out.printf(Locale.ROOT, "SIGSTOP of a node with %d of %d sessions, noticed by %s: closed"
                                    + " %s ms after the stop; back and resumed after %s ms (bound %d ms): %s%n", lost,
                            CLIENTS, closedBy, closedMillis, backMillis, boundMillis,
                            moved.stream().map(k -> clients.get(k).events).toList());
                }
            } catch (AssertionError e) {
                throw fleet.withLogs(e, clients);
            } finally {
                WatchedClient.closeAll(clients);
                if (stopped != null) {
                    try {
                        stopped.cont();
                    } catch (IOException e) {
                        // The fleet kills it anyway (SIGKILL ends a stopped process too).
                    }
                }
            }
        }
    }
}
