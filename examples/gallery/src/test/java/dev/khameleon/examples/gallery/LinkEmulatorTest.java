package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class LinkEmulatorTest {
    private ServerSocket echo;
    private Thread echoThread;

    @BeforeEach
    void startEcho() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        echoThread = new Thread(() -> {
            while (!echo.isClosed()) {
                Socket accepted;
                try {
                    accepted = echo.accept();
                } catch (IOException e) {
                    return; // the test closed the listener
                }
                Thread t = new Thread(() -> {
                    try (Socket s = accepted; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        in.transferTo(out);
                    } catch (IOException ignored) {
                        // the proxy closed the socket
                    }
                }, "echo-connection");
                t.setDaemon(true);
                t.start();
            }
        }, "echo");
        echoThread.setDaemon(true);
        echoThread.start();
    }

    @AfterEach
    void stopEcho() throws IOException, InterruptedException {
        echo.close();
        echoThread.join(5_000);
    }

    private InetSocketAddress echoAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort());
    }

    private static byte[] roundTrip(int port, byte[] data) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = s.getOutputStream();
            out.write(data);
            s.shutdownOutput();
            return s.getInputStream().readAllBytes();
        }
    }

    @Test
    void proxy_deliversEveryByteInOrderBothWays() throws IOException {
        byte[] data = new byte[300_000];
        new SplittableRandom(1).nextBytes(data);
        try (LinkEmulator link = new LinkEmulator(0, echoAddress(), new LinkEmulator.Link(0, 0), 4)) {
            assertArrayEquals(data, roundTrip(link.port(), data));
        }
    }

    @Test
    void proxy_delaysByTheLatencyInEachDirection() throws IOException {
        try (LinkEmulator link = new LinkEmulator(0, echoAddress(), new LinkEmulator.Link(0, 60), 4)) {
            long start = System.nanoTime();
            byte[] back = roundTrip(link.port(), new byte[] {1, 2, 3});
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertArrayEquals(new byte[] {1, 2, 3}, back);
            // 60 ms one way, twice: a lower bound, which a slow machine only exceeds.
            assertTrue(elapsedMillis >= 120, "round trip took " + elapsedMillis + " ms");
        }
    }

    @Test
    void proxy_neverDeliversFasterThanTheLinkRate() throws IOException {
        byte[] data = new byte[200_000];
        Arrays.fill(data, (byte) 7);
        try (LinkEmulator link = new LinkEmulator(0, echoAddress(), new LinkEmulator.Link(1_000_000, 0), 4)) {
            long start = System.nanoTime();
            byte[] back = roundTrip(link.port(), data);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(data.length, back.length);
            // 200 kB downstream at 1 MB/s take at least 200 ms (minus one chunk of slack).
            assertTrue(elapsedMillis >= 190, "200 kB crossed a 1 MB/s link in " + elapsedMillis + " ms");
        }
    }

    @Test
    void closedConnections_freeTheirSlots() throws IOException {
        try (LinkEmulator link = new LinkEmulator(0, echoAddress(), new LinkEmulator.Link(0, 0), 2)) {
            for (int i = 0; i < 8; i++) {
                byte[] data = {(byte) i, 1, 2};
                assertArrayEquals(data, roundTrip(link.port(), data), "connection " + i + " of 8 through 2 slots");
            }
        }
    }

    @Test
    void idleConnection_isClosedAfterTheIdleTimeout() throws Exception {
        try (LinkEmulator link = new LinkEmulator(LinkEmulator.listen(0), echoAddress(), new LinkEmulator.Link(0, 0),
                4, Duration.ofMillis(300), null);
             Socket idle = new Socket(InetAddress.getLoopbackAddress(), link.port())) {
            idle.setSoTimeout(20_000);
            assertEquals(-1, idle.getInputStream().read(), "the proxy closes a connection idle for 300 ms");
            awaitTrue(() -> link.liveConnections() == 0, "the idle connection's slot is freed");
        }
    }

    @Test
    void connectionsBeyondTheLimit_takeTheSlotsOfIdleOnesInsteadOfBeingRefused() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try (LinkEmulator link = new LinkEmulator(LinkEmulator.listen(0), echoAddress(), new LinkEmulator.Link(0, 0),
                4, Duration.ofMinutes(5), null)) {
            for (int i = 0; i < 12; i++) {
                idle.add(new Socket(InetAddress.getLoopbackAddress(), link.port()));
            }
            awaitTrue(() -> link.liveConnections() == 4, "4 slots taken by idle connections");
            Thread.sleep(LinkEmulator.EVICTABLE_IDLE_MILLIS + 100);
            for (int i = 0; i < 3; i++) {
                byte[] data = {42, (byte) i};
                assertArrayEquals(data, roundTrip(link.port(), data), "a working connection despite 12 idle ones");
            }
            assertTrue(link.liveConnections() <= 4, "never more than 4: " + link.liveConnections());
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void gate_refusesWith403BeforeForwardingAndForwardsTheRest() throws IOException {
        LinkEmulator.RequestGate gate = head -> head.contains("Origin: http://evil.example") ? "origin refused" : null;
        try (LinkEmulator link = new LinkEmulator(LinkEmulator.listen(0), echoAddress(), new LinkEmulator.Link(0, 0),
                4, Duration.ofSeconds(30), gate)) {
            byte[] refused = "GET / HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII);
            String answer = new String(roundTrip(link.port(), refused), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 403 Forbidden\r\n") && answer.endsWith("\r\n\r\norigin refused\n"),
                    answer);
            byte[] accepted = "GET / HTTP/1.1\r\nHost: x\r\n\r\nand a body".getBytes(StandardCharsets.US_ASCII);
            assertArrayEquals(accepted, roundTrip(link.port(), accepted), "forwarded whole, head included");
        }
    }

    @Test
    void listen_namesABusyPort() throws IOException {
        try (ServerSocket busy = LinkEmulator.listen(0)) {
            BindException e = assertThrows(BindException.class, () -> LinkEmulator.listen(busy.getLocalPort()));
            assertEquals("port " + busy.getLocalPort() + " on 127.0.0.1 is already in use", e.getMessage());
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 20 s: " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void link_rejectsBadSettings() {
        IllegalArgumentException rate = assertThrows(IllegalArgumentException.class,
                () -> new LinkEmulator.Link(Double.NaN, 0));
        assertTrue(rate.getMessage().contains("NaN"), rate.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LinkEmulator.Link(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new LinkEmulator.Link(1e6, -5));
    }

    @Test
    void link_sharesOneRateAcrossReservations() {
        LinkEmulator.Link link = new LinkEmulator.Link(1000, 10);
        long first = link.reserve(500, 0);
        long second = link.reserve(500, 0);
        assertEquals(500_000_000L + 10_000_000L, first);
        assertEquals(1_000_000_000L + 10_000_000L, second, "the second waits for the first to cross");
    }
}
