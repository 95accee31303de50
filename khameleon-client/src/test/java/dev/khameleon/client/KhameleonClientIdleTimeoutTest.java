package dev.khameleon.client;

import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.testing.ScriptedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's idle timeout: a connection on which nothing arrives (a peer gone silent, without a
 * close or a reset) is dropped and re-established, while a quiet but live server, which answers
 * the client's pings, keeps its connection.
 */
@Timeout(60)
class KhameleonClientIdleTimeoutTest {
    private static final int C = 8;

    /** Records disconnects, with when they came. */
    private static final class Events implements ClientListener {
        final List<String> disconnects = new CopyOnWriteArrayList<>();
        volatile long welcomedAtNanos = -1;
        volatile long disconnectedAtNanos = -1;

        @Override
        public void onConnected(Welcome welcome) {
            if (welcomedAtNanos < 0) {
                welcomedAtNanos = System.nanoTime();
            }
        }

        @Override
        public void onDisconnected(int status, String reason, boolean willReconnect) {
            if (disconnectedAtNanos < 0) {
                disconnectedAtNanos = System.nanoTime();
            }
            disconnects.add(status + " " + reason + " " + willReconnect);
        }
    }

    /** A server that welcomes every hello, then says nothing more (its protocol handler still answers pings). */
    private static ScriptedServer quietServer() throws InterruptedException {
        return new ScriptedServer((n, ch) -> ScriptedServer.sendText(ch, ScriptedServer.welcome(C, 100L * n, 16)));
    }

    private static KhameleonClient<PointerEvent> client(URI uri, Duration idleTimeout, Events events) {
        return KhameleonClient.builder().uri(uri).application("app").cacheBlocks(C).idleTimeout(idleTimeout)
                .backoff(Duration.ofMillis(20), Duration.ofMillis(40)).listener(events).build();
    }

    @Test
    void silentPeer_connectionDroppedAfterTheIdleTimeout_andReestablished() throws Exception {
        // Long enough for a cold test server to send its first welcome on a loaded machine.
        Duration idle = Duration.ofSeconds(1);
        try (ScriptedServer server = quietServer(); SwitchableRelay relay = new SwitchableRelay(server.uri().getPort())) {
            Events events = new Events();
            URI uri = URI.create("ws://127.0.0.1:" + relay.port() + "/app");
            try (KhameleonClient<PointerEvent> client = client(uri, idle, events)) {
                client.connect().get(10, TimeUnit.SECONDS);
                relay.freezeAll(); // the server's pongs no longer reach the client, nor its pings the server
                await(() -> relay.accepted() >= 2, "the client reconnected after dropping the silent connection");
                assertTrue(events.disconnects.get(0).startsWith("1006 idle timeout: nothing received for"),
                        events.disconnects.toString());
                assertTrue(events.disconnects.get(0).endsWith(" true"), "it reconnects: " + events.disconnects);
                long silentNanos = events.disconnectedAtNanos - events.welcomedAtNanos;
                assertTrue(silentNanos >= idle.toNanos(), "dropped only after the idle timeout, not "
                        + silentNanos / 1e6 + " ms after the welcome");
                await(() -> client.welcome().isPresent(), "welcomed again");
            }
        }
    }

    @Test
    void quietLivePeer_answersPings_connectionKept() throws Exception {
        try (ScriptedServer server = quietServer()) {
            Events events = new Events();
            // 3 s: a ping's pong may wait for a core for over a second when every core is busy.
            try (KhameleonClient<PointerEvent> client = client(server.uri(), Duration.ofSeconds(3), events)) {
                client.connect().get(10, TimeUnit.SECONDS);
                Thread.sleep(7_000); // over two idle timeouts, with nothing but pongs from the server
                assertEquals(List.of(), events.disconnects);
                assertTrue(client.welcome().isPresent());
            }
            long hellos = server.received.stream().filter(m -> m instanceof ControlMessage.Hello).count();
            assertEquals(1, hellos, "one connection, never re-established");
        }
    }

    @Test
    void idleTimeoutZero_silentPeerNotDropped() throws Exception {
        try (ScriptedServer server = quietServer(); SwitchableRelay relay = new SwitchableRelay(server.uri().getPort())) {
            Events events = new Events();
            URI uri = URI.create("ws://127.0.0.1:" + relay.port() + "/app");
            try (KhameleonClient<PointerEvent> client = client(uri, Duration.ZERO, events)) {
                client.connect().get(10, TimeUnit.SECONDS);
                relay.freezeAll();
                Thread.sleep(1_000);
                assertEquals(List.of(), events.disconnects);
                assertEquals(1, relay.accepted());
            }
        }
    }

    @Test
    void idleTimeout_outOfRange_rejectedNamingTheSetting() {
        KhameleonClient.Builder<?> b = KhameleonClient.builder();
        for (Duration bad : List.of(Duration.ofMillis(29), Duration.ofMillis(-1), Duration.ofDays(2))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.idleTimeout(bad));
            assertTrue(e.getMessage().startsWith("idleTimeout must be 0 (off) or in [30 ms, 1 day], was "),
                    e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> b.idleTimeout(null));
        b.idleTimeout(Duration.ZERO);
        b.idleTimeout(Duration.ofMillis(30));
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(10);
        }
    }
}
