package dev.khameleon.tiers;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.testing.BalabitTraces;
import dev.khameleon.testing.Haproxy;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hit rate of clients replaying real pointer traces through HAProxy, with and without a
 * {@code kill -9} of a node mid-replay. Three node JVMs (the {@code screen} application of
 * {@link GridNode}: a 1920×1080 grid of 96 cells, the library's default predictor) behind Debian's
 * haproxy with the configuration of docs/scale-out.md; nine Java clients with their default
 * predictor replay 20 s of Balabit sessions (six users), each asking for a cell's response when its
 * pointer enters the cell. The replay runs twice on fresh fleets, the same traces for the same
 * clients: once without a failure, once with SIGKILL of the busiest node 8 s in. The clients that
 * lost their node must be back, resumed, with their rings continued (expected sequence number, no
 * block of the current batch pushed twice), and their hit rate over the whole replay must be within
 * 5 points of the same clients' in the run without the failure. Prints both runs' hit rates.
 */
@Timeout(150)
class HaproxyKillHitRateTest {
    private static final int NODES = 3;
    /** Ten sessions per node: enough requests that two runs' hit rates differ by little more than the failure's cost. */
    private static final int CLIENTS = 30;
    /** Half of the 384 blocks of content: the ring holds what the predictor expects next, not all. */
    private static final int C = 192;
    /** Per session, about 100 blocks a second. */
    private static final long BYTES_PER_SECOND = 30_000;
    /** How much of each trace is replayed, and how much faster than recorded: 30 s of trace in 20 s. */
    private static final double TRACE_MILLIS = 30_000;
    private static final double SPEED = 1.5;
    private static final double REPLAY_MILLIS = TRACE_MILLIS / SPEED;
    private static final long KILL_AT_MILLIS = 8_000;
    /** The largest drop of the affected clients' hit rate the failure may cause, in points. */
    private static final double MAX_DROP_POINTS = 5;

    /** One replay's counts per client, and which clients the kill moved (none without it). */
    private record Run(int[] requests, int[] hits, List<Integer> affected, List<Long> backMillis) {
        double hitRate(List<Integer> clients) {
            int r = 0;
            int h = 0;
            for (int k : clients) {
                r += requests[k];
                h += hits[k];
            }
            return 100.0 * h / r;
        }
    }

    @Test
    void killNineMidReplay_affectedClientsHitRateWithin5PointsOfAFailureFreeRun(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Haproxy.installed(),
                "haproxy not found at " + Haproxy.EXECUTABLE + " (Debian package haproxy); test skipped");
        List<List<BalabitTraces.Sample>> traces = TraceReplay.traces(CLIENTS, TRACE_MILLIS, SPEED);
        Run base = replay(Files.createDirectories(dir.resolve("base")), traces, false);
        Run killed = replay(Files.createDirectories(dir.resolve("kill")), traces, true);

        List<Integer> affected = killed.affected();
        double before = base.hitRate(affected);
        double after = killed.hitRate(affected);
        List<Integer> all = new ArrayList<>();
        for (int k = 0; k < CLIENTS; k++) {
            all.add(k);
        }
        System.out.printf(Locale.ROOT, "kill -9 of a node with %d of %d sessions, %d ms into a %.0f s replay: back"
                        + " and resumed in %s ms%n", affected.size(), CLIENTS, KILL_AT_MILLIS, REPLAY_MILLIS / 1e3,
                killed.backMillis());
        System.out.println("| client | trace | requests (no failure / kill) | hit rate % (no failure / kill) |");
        System.out.println("|---:|---|---:|---:|");
        for (int k = 0; k < CLIENTS; k++) {
            System.out.printf(Locale.ROOT, "| %d%s | %s | %d / %d | %.1f / %.1f |%n", k,
                    affected.contains(k) ? " (moved)" : "", TraceReplay.traceName(k), base.requests()[k],
                    killed.requests()[k],
                    100.0 * base.hits()[k] / base.requests()[k], 100.0 * killed.hits()[k] / killed.requests()[k]);
        }
        System.out.printf(Locale.ROOT, "moved clients: hit rate %.1f %% without the failure, %.1f %% with it (%+.1f"
                        + " points); all clients: %.1f %% and %.1f %%%n", before, after, after - before,
                base.hitRate(all), killed.hitRate(all));
        assertTrue(before - after <= MAX_DROP_POINTS, String.format(Locale.ROOT, "the moved clients' hit rate fell"
                + " from %.1f %% to %.1f %%, more than %.0f points", before, after, MAX_DROP_POINTS));
    }

    /** One replay on a fresh fleet; with {@code kill}, SIGKILL of the busiest node mid-replay. */
    private static Run replay(Path dir, List<List<BalabitTraces.Sample>> traces, boolean kill) throws Exception {
        List<WatchedClient> clients = new ArrayList<>();
        try (Fleet fleet = Fleet.start(dir, NODES, BYTES_PER_SECOND, "screen")) {
            try {
                for (int k = 0; k < CLIENTS; k++) {
                    clients.add(WatchedClient.connected(fleet.uri(), C, k)); // the same seed in both runs
                }
                long[] sessions = fleet.sessions();
                assertEquals(CLIENTS, Arrays.stream(sessions).sum(), "every client has a session");
                List<KhameleonClient<PointerEvent>> kc = clients.stream().map(w -> w.client).toList();
                long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                List<Long> backMillis = new ArrayList<>();
                List<Integer> affected = new ArrayList<>();
                int[] requests = new int[CLIENTS];
                int[] hits = new int[CLIENTS];
                try (TraceReplay replay = new TraceReplay(kc, traces, start)) {
                    if (kill) {
                        TimeUnit.NANOSECONDS.sleep(start + TimeUnit.MILLISECONDS.toNanos(KILL_AT_MILLIS)
                                - System.nanoTime());
                        sessions = fleet.sessions();
                        int victim = Fleet.busiest(sessions);
                        long killedAt = System.nanoTime();
                        fleet.nodes().get(victim).kill();
                        long lost = sessions[victim];
                        fleet.haproxy().await(() -> clients.stream().filter(w -> w.resume.isDone()).count() >= lost,
                                "the killed node's " + lost + " clients are back");
                        for (int k = 0; k < CLIENTS; k++) {
                            WatchedClient w = clients.get(k);
                            if (w.disconnectedAtNanos >= 0) {
                                affected.add(k);
                                assertTrue(w.disconnectedAtNanos >= killedAt, "disconnected by the kill: " + w.events);
                                assertTrue(w.resume.getNow(false), "resumed, not a fresh session: " + w.events);
                                long back = w.resumedAtNanos - killedAt;
                                backMillis.add(TimeUnit.NANOSECONDS.toMillis(back));
                            }
                        }
                        assertEquals(lost, affected.size(), "the killed node's clients, and only they, lost their"
                                + " connection");
                    }
                    replay.join((long) (REPLAY_MILLIS / 1e3) + 30);
                    for (int k = 0; k < CLIENTS; k++) {
                        requests[k] = replay.requests(k);
                        hits[k] = replay.hits(k);
                        assertTrue(requests[k] > 0, "client " + k + " entered cells");
                        assertTrue(affected.contains(k) || clients.get(k).events.isEmpty(),
                                "client " + k + " kept its session: " + clients.get(k).events);
                    }
                }
                for (int k : affected) {
                    clients.get(k).assertRingContinues();
                }
                return new Run(requests, hits, affected, backMillis);
            } catch (AssertionError e) {
                throw fleet.withLogs(e, clients);
            } finally {
                WatchedClient.closeAll(clients);
            }
        }
    }
}
