package dev.khameleon.simulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The relay over real sockets: every byte crosses intact and in order, the queue bound holds
 * while the server writes far more than it, and both one-way delays are applied (lower bounds
 * only: a slow machine can only make the round trip longer).
 */
class LinkShaperTest {
    private static final int BYTES = 2_000_000;
    private static final long ONE_WAY_NANOS = 20_000_000L;
    private static final long QUEUE = 64 * 1024;

    @Test
    void relay_deliversEverythingInOrder_boundsItsQueue_andDelaysBothWays() throws Exception {
        try (ServerSocket target = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CompletableFuture<Long> sentBack = CompletableFuture.supplyAsync(() -> serveOnce(target));
            try (LinkShaper shaper = LinkShaper.start(0, () -> new InetSocketAddress("127.0.0.1", target.getLocalPort()),
                    DeliverySchedule.fixed(20e6), ONE_WAY_NANOS, QUEUE, System::nanoTime);
                 Socket client = new Socket("127.0.0.1", shaper.port())) {
                OutputStream out = client.getOutputStream();
                InputStream in = client.getInputStream();
                long askedAt = System.nanoTime();
                out.write(7);
                out.flush();
                int first = in.read();
                long firstAt = System.nanoTime();
                assertEquals(0, first);
                byte[] buf = new byte[64 * 1024];
                long got = 1;
                for (int n; (n = in.read(buf)) > 0; ) {
                    for (int i = 0; i < n; i++) {
                        assertEquals((byte) ((got + i) % 251), buf[i], "byte " + (got + i));
                    }
                    got += n;
                }
                assertEquals(BYTES, got);
                assertEquals(BYTES, sentBack.get(10, TimeUnit.SECONDS));
                assertTrue(firstAt - askedAt >= 2 * ONE_WAY_NANOS, "round trip " + (firstAt - askedAt) + " ns");
                assertTrue(shaper.maxQueuedBytes() <= QUEUE, "queued " + shaper.maxQueuedBytes());
                assertTrue(shaper.maxQueuedBytes() > QUEUE / 2, "the queue filled: " + shaper.maxQueuedBytes());
                assertEquals(BYTES, shaper.deliveredBytes());
            }
        }
    }

    /** Waits for one byte, then writes {@link #BYTES} bytes of a pattern and closes. */
    private static long serveOnce(ServerSocket target) {
        try (Socket s = target.accept()) {
            if (s.getInputStream().read() != 7) {
                return -1;
            }
            OutputStream out = s.getOutputStream();
            byte[] chunk = new byte[50_000];
            for (int off = 0; off < BYTES; off += chunk.length) {
                for (int i = 0; i < chunk.length; i++) {
                    chunk[i] = (byte) ((off + i) % 251);
                }
                out.write(chunk);
            }
            out.flush();
            return BYTES;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
