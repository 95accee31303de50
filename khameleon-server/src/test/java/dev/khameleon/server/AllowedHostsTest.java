package dev.khameleon.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code Host} check of the WebSocket upgrade, the defence against DNS rebinding: on a loopback
 * address only {@code localhost} and IP addresses by default, the configured names otherwise.
 */
class AllowedHostsTest {
    private final List<KhameleonServer> servers = new ArrayList<>();

    @AfterEach
    void tearDown() {
        servers.forEach(KhameleonServer::close);
    }

    private KhameleonServer start(String... allowedHosts) {
        KhameleonServer.Builder b = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1)
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 1, 16)).build());
        if (allowedHosts.length > 0) {
            b.allowedHosts(allowedHosts);
        }
        KhameleonServer s = b.build().start();
        servers.add(s);
        return s;
    }

    /** The status line the server answers an upgrade naming {@code host} (and {@code origin} if not null) with. */
    private static String upgradeStatus(int port, String host, String origin) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            String request = "GET /gallery HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + (origin == null ? "" : "Origin: " + origin + "\r\n") + "\r\n";
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = s.getInputStream().read()) >= 0 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    @Test
    void onLoopback_localhostAndAddressesAreAccepted_aRebindableNameIsNot() throws IOException {
        KhameleonServer s = start();
        int port = s.port();
        assertEquals("HTTP/1.1 101 Switching Protocols", upgradeStatus(port, "127.0.0.1:" + port, null));
        assertEquals("HTTP/1.1 101 Switching Protocols", upgradeStatus(port, "localhost:" + port,
                "http://localhost:" + port));
        assertEquals("HTTP/1.1 101 Switching Protocols", upgradeStatus(port, "[::1]:" + port, null));
        // A page of rebound.example, whose name now resolves to 127.0.0.1: same-origin, but not a local name.
        assertEquals("HTTP/1.1 403 Forbidden", upgradeStatus(port, "rebound.example:" + port,
                "http://rebound.example:" + port));
        assertEquals("HTTP/1.1 403 Forbidden", upgradeStatus(port, "rebound.example", null));
        assertEquals(2, s.metrics().handshakesRefused());
    }

    @Test
    void configuredNames_replaceTheDefault() throws IOException {
        KhameleonServer s = start("khameleon.example.com");
        int port = s.port();
        assertEquals("HTTP/1.1 101 Switching Protocols", upgradeStatus(port, "KHAMELEON.example.com", null));
        assertEquals("HTTP/1.1 403 Forbidden", upgradeStatus(port, "localhost:" + port, null));
        assertEquals("HTTP/1.1 403 Forbidden", upgradeStatus(port, "khameleon.example.com.evil.example", null));
    }

    @Test
    void star_acceptsAnyHost() throws IOException {
        KhameleonServer s = start("*");
        assertEquals("HTTP/1.1 101 Switching Protocols", upgradeStatus(s.port(), "rebound.example", null));
    }

    @ParameterizedTest
    @CsvSource({"localhost, true", "LOCALHOST:80, true", "127.0.0.1:9000, true", "10.1.2.3, true", "[::1]:8080, true",
        "[fe80::1], true", "rebound.example, false", "localhost.evil.example, false", "127.0.0.1.nip.io, false",
        "300.1.1.1, false", "1.2.3, false"})
    void defaultOnLoopback_acceptsOnlyLocalhostAndIpAddresses(String host, boolean allowed) {
        ServerConfig config = KhameleonServer.builder()
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 1, 16)).build()).toConfig();
        assertEquals(allowed, HandshakeGate.hostAllowed(config, host, true), host);
        assertTrue(HandshakeGate.hostAllowed(config, host, false), "off loopback nothing is checked by default");
    }

    @Test
    void badSettings_areRefusedNamingTheSetting() {
        for (String bad : List.of("", "host:80", "a/b", " ")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KhameleonServer.builder().allowedHosts(bad));
            assertTrue(e.getMessage().startsWith("allowedHosts must be host names without a port"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KhameleonServer.builder().allowedHosts("*", "a.example"));
        assertFalse(e.getMessage().isBlank());
    }
}
