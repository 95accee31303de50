package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.SplittableRandom;

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
            try (Socket s = echo.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException ignored) {
                // the test closed the socket
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
