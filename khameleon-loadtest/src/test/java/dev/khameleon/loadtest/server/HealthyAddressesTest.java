package dev.khameleon.loadtest.server;

import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.SessionMetrics;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak's healthy clients on raw sockets: each connects from the loopback address it was given
 * (Linux routes all of 127/8 to loopback), so the server counts them per address as distinct clients.
 */
class HealthyAddressesTest {
    @Test
    void connectFrom_bindsEachClientToItsAddress_inTurn_andItReceivesBlocks() throws Exception {
        SoakOptions options = new SoakOptions(5, 1, 0, Set.of(), 5e5, 10_000, 0.1, true, 3);
        List<InetAddress> locals = Soak.healthyAddresses(options, true);
        assertEquals(3, locals.size());
        try (KhameleonServer server = LoadApp.server(options.workload(), options.ratePerSession(), true).build().start()) {
            LoadClient.Latency latency = LoadClient.Latency.create();
            List<LoadClient> clients = LoadClient.connectFrom(locals, server.port(), options.healthy(), latency, 2,
                    options.workload());
            try {
                Set<String> seen = new TreeSet<>();
                for (SessionMetrics m : server.sessionMetrics()) {
                    seen.add(m.remoteAddress().replaceFirst(":\\d+$", ""));
                }
                assertEquals(Set.of("/127.1.0.1", "/127.1.0.2", "/127.1.0.3"), seen);
                for (LoadClient c : clients) {
                    c.sendState(Long.MAX_VALUE); // untimed
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (LoadClient.totalBytes(clients) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(LoadClient.totalBytes(clients) > 0, "the clients' readers counted no block");
                for (LoadClient c : clients) {
                    assertEquals(-1, c.closeStatus, "open");
                }
            } finally {
                LoadClient.close(clients);
            }
        }
    }

    @Test
    void aSessionTheServerRefuses_failsTheConnectInOneLine_namingTheSessionAndTheServersAnswer() throws Exception {
        SoakOptions options = new SoakOptions(3, 1, 0, Set.of(), 5e5, 10_000, 0.1, true, 3);
        // Room for the cache blocks of two sessions, not three.
        try (KhameleonServer server = LoadApp.server(options.workload(), options.ratePerSession(), true)
                .maxCacheBlocks(LoadApp.CACHE).maxTotalCacheBlocks(2L * LoadApp.CACHE).build().start()) {
            LoadClient.Refused e = assertThrows(LoadClient.Refused.class, () -> LoadClient.connectFrom(
                    Soak.healthyAddresses(options, true), server.port(), options.healthy(), LoadClient.Latency.create(),
                    1, options.workload()));
            assertTrue(e.getMessage().startsWith("healthy session 2 of 3 refused: "), e.getMessage());
            assertTrue(e.getMessage().contains("too_many_sessions"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (server.metrics().activeSessions() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, server.metrics().activeSessions(), "the two welcomed sessions are closed again");
        }
    }
}
