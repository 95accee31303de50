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
}
