package dev.khameleon.server;

import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.server.spi.WebSocketPeer;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections another WebSocket stack accepted, attached through {@link KhameleonServer#attach}
 * with a scripted {@link WebSocketPeer}: sessions, one send at a time with back-pressure on the
 * peer's completions, and the limits that apply.
 */
@Timeout(60)
class AttachedConnectionTest {
    private static final int BLOCK_SIZE = 1024;

    /** A peer that records what the server sends and completes sends at once or when told. */
    private static final class ScriptedPeer implements WebSocketPeer {
        final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        final CompletableFuture<int[]> closed = new CompletableFuture<>();
        final List<String> closeReasons = new CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<CompletableFuture<Void>> pending = new ConcurrentLinkedQueue<>();
        final AtomicInteger inProgress = new AtomicInteger();
        final AtomicInteger maxInProgress = new AtomicInteger();
        /** What {@link #closed()} returns: done at once unless a test holds it, as an adapter closing on its own thread. */
        volatile CompletableFuture<Void> closeDone = CompletableFuture.completedFuture(null);
        /** Sends from this index on (0 being the first) are held until {@link #releaseSends}. */
        volatile int holdFrom = Integer.MAX_VALUE;
        private final AtomicInteger sends = new AtomicInteger();
        private final SocketAddress address;
        private final String origin;

        ScriptedPeer(SocketAddress address, String origin) {
            this.address = address;
            this.origin = origin;
        }

        ScriptedPeer() {
            this(null, null);
        }

        private CompletionStage<Void> sent(Object what) {
            maxInProgress.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
            received.add(what);
            CompletableFuture<Void> done = new CompletableFuture<>();
            done.whenComplete((v, e) -> inProgress.decrementAndGet());
            if (sends.getAndIncrement() >= holdFrom) {
                pending.add(done);
            } else {
                done.complete(null);
            }
            return done;
        }

        void releaseSends() {
            holdFrom = Integer.MAX_VALUE;
            CompletableFuture<Void> f;
            while ((f = pending.poll()) != null) {
                f.complete(null);
            }
        }

        @Override
        public CompletionStage<Void> sendText(String text) {
            return sent(ControlCodec.decodeFromServer(text));
        }

        @Override
        public CompletionStage<Void> sendBinary(ByteBuffer data) {
            byte[] frame = new byte[data.remaining()];
            data.get(frame);
            return sent(BlockFrame.decode(frame));
        }

        @Override
        public void close(int status, String reason) {
            closeReasons.add(reason);
            closed.complete(new int[] {status});
        }

        @Override
        public CompletionStage<Void> closed() {
            return closeDone;
        }

        @Override
        public Optional<SocketAddress> remoteAddress() {
            return Optional.ofNullable(address);
        }

        @Override
        public Optional<String> origin() {
            return Optional.ofNullable(origin);
        }

        @Override
        public Optional<String> host() {
            return Optional.of("app.example:443");
        }

        Object next() throws InterruptedException {
            Object o = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(o, "nothing sent within 10 s");
            return o;
        }

        int closeStatus() {
            return closed.orTimeout(10, TimeUnit.SECONDS).join()[0];
        }
    }

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void mount(KhameleonServer.Builder b) {
        server = b.seed(9).application(Application.builder("test").path("/ws")
                .blockSource(TestApps.inMemory(50, 4, BLOCK_SIZE)).build()).build().mount();
    }

    private static String hello(int cacheBlocks) {
        return ControlCodec.encode(ControlMessage.Hello.of("test", cacheBlocks));
    }

    @Test
    void attachedConnection_getsAWelcomeAndBlocks_andEndsWithThePeer() throws Exception {
        mount(KhameleonServer.builder().fixedBytesPerSecond(1e6));
        ScriptedPeer peer = new ScriptedPeer(new InetSocketAddress("192.0.2.7", 4000), null);
        AttachedConnection c = server.attach("/ws", peer);
        c.onText(hello(50));
        assertInstanceOf(ControlMessage.Welcome.class, peer.next());
        for (int i = 0; i < 5; i++) {
            BlockFrame f = assertInstanceOf(BlockFrame.class, peer.next());
            assertEquals(i, f.seq(), "sequence numbers in order");
            assertEquals(TestApps.payloadByte(f.block().requestId(), f.block().index(), 0), f.block().content().get(0));
        }
        assertEquals(1, server.metrics().activeSessions());
        assertEquals(1, peer.maxInProgress.get(), "one send at a time");
        c.onClose();
        TestClient.await(() -> server.metrics().activeSessions() == 0, "the session ends with the peer");
        TestClient.await(() -> server.runtime().addressLimits.connections(new InetSocketAddress("192.0.2.7", 1)) == 0,
                "the connection frees its place under the per-address limits");
        assertFalse(c.isOpen());
        c.onText(hello(50)); // ignored
    }

    @Test
    void sendsWaitForThePeer_andTheSessionQueuesNoMoreThanTheWaterMark() throws Exception {
        int high = 8 * 1024;
        mount(KhameleonServer.builder().fixedBytesPerSecond(1e7).writeBufferWaterMark(4 * 1024, high));
        ScriptedPeer peer = new ScriptedPeer();
        peer.holdFrom = 4; // the welcome and three blocks go through, the fifth message is held
        AttachedConnection c = server.attach("/ws", peer);
        c.onText(hello(50));
        assertInstanceOf(ControlMessage.Welcome.class, peer.next());
        TestClient.await(() -> !peer.pending.isEmpty(), "a send is held");
        // The sender goes on writing into Netty's buffer behind the held send until the channel
        // turns unwritable at the high water mark, then stops.
        TestClient.await(() -> server.sessionMetrics().get(0).maxQueuedBytes() > high, "the buffer fills to the mark");
        long pushed = server.sessionMetrics().get(0).blocksPushed();
        Thread.sleep(200);
        SessionMetrics m = server.sessionMetrics().get(0);
        assertEquals(pushed, m.blocksPushed(), "the sender stopped at the mark");
        // Netty counts each queued frame with its entry overhead; the frame that crossed the mark is the last.
        assertTrue(m.maxQueuedBytes() <= high + 2 * (BLOCK_SIZE + 32 + 96), "queued " + m.maxQueuedBytes() + " bytes");
        assertEquals(1, peer.maxInProgress.get(), "never a second send before the first completes");
        assertEquals(4, peer.received.size(), "three blocks and the held one: nothing more while the peer holds it");
        peer.releaseSends();
        TestClient.await(() -> peer.received.size() > 10, "sending resumes");
        c.onClose();
    }

    @Test
    void helloTimeout_closesThroughThePeer() {
        mount(KhameleonServer.builder().helloTimeout(Duration.ofMillis(100)));
        ScriptedPeer peer = new ScriptedPeer();
        server.attach("/ws", peer);
        assertEquals(1002, peer.closeStatus());
        assertEquals("missing_hello", peer.closeReasons.get(0));
    }

    @Test
    void perAddressLimitAndOrigin_refuseAtOnceThroughThePeer() {
        mount(KhameleonServer.builder().maxConnectionsPerAddress(1).allowedOrigins("https://good.example"));
        SocketAddress address = new InetSocketAddress("192.0.2.8", 4000);
        AttachedConnection first = server.attach("/ws", new ScriptedPeer(address, null));
        ScriptedPeer second = new ScriptedPeer(address, null);
        AttachedConnection refused = server.attach("/ws", second);
        assertFalse(refused.isOpen());
        assertEquals(1008, second.closeStatus());
        assertEquals("too_many_connections", second.closeReasons.get(0));
        ScriptedPeer evil = new ScriptedPeer(null, "https://evil.example");
        assertFalse(server.attach("/ws", evil).isOpen());
        assertEquals(1008, evil.closeStatus());
        assertEquals("forbidden_origin", evil.closeReasons.get(0));
        assertTrue(server.attach("/ws", new ScriptedPeer(null, "https://good.example")).isOpen());
        assertTrue(server.attach("/ws", new ScriptedPeer(null, "https://app.example:443")).isOpen(), "same origin");
        assertEquals(2, server.metrics().handshakesRefused());
        first.onClose();
    }

    @Test
    void closeAndDrain_closeSessionsWith1001_andRefuseNewOnesWith1013() throws Exception {
        mount(KhameleonServer.builder().fixedBytesPerSecond(50_000));
        ScriptedPeer peer = new ScriptedPeer();
        server.attach("/ws", peer).onText(hello(20));
        assertInstanceOf(ControlMessage.Welcome.class, peer.next());
        server.drain(Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertEquals(1001, peer.closeStatus());
        ScriptedPeer late = new ScriptedPeer();
        assertFalse(server.attach("/ws", late).isOpen());
        assertEquals(1013, late.closeStatus());
        server.close();
        ScriptedPeer afterClose = new ScriptedPeer();
        assertFalse(server.attach("/ws", afterClose).isOpen());
        assertEquals(1013, afterClose.closeStatus());
    }

    @Test
    void close_waitsForTheAdapterToCarryOutItsClose_beforeItReturns() throws Exception {
        mount(KhameleonServer.builder().fixedBytesPerSecond(50_000).shutdownTimeout(Duration.ofSeconds(30)));
        ScriptedPeer peer = new ScriptedPeer();
        CompletableFuture<Void> written = new CompletableFuture<>();
        peer.closeDone = written;
        server.attach("/ws", peer).onText(hello(20));
        assertInstanceOf(ControlMessage.Welcome.class, peer.next());
        AtomicInteger order = new AtomicInteger();
        AtomicInteger closeReturnedAt = new AtomicInteger();
        Thread closing = new Thread(() -> {
            server.close();
            closeReturnedAt.set(order.incrementAndGet());
        });
        closing.start();
        assertEquals(1001, peer.closeStatus(), "the session is closed with shutdown");
        // The adapter writes its close frame later, on a thread of its own, as JakartaPeer does.
        closing.join(200);
        int writtenAt = order.incrementAndGet();
        written.complete(null);
        closing.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(closing.isAlive(), "close returned once the close was written");
        assertTrue(closeReturnedAt.get() > writtenAt, "close returned only after the adapter's close was carried out"
                + " (returned " + closeReturnedAt.get() + ", written " + writtenAt + ")");
    }

    @Test
    void attachRacingClose_everyPeerIsClosed_andNoAttachThrows() throws Exception {
        for (int round = 0; round < 20; round++) {
            mount(KhameleonServer.builder().fixedBytesPerSecond(50_000));
            KhameleonServer s = server;
            List<ScriptedPeer> peers = new CopyOnWriteArrayList<>();
            List<Throwable> thrown = new CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(2);
            List<Thread> attachers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread th = new Thread(() -> {
                    started.countDown();
                    for (int i = 0; i < 40; i++) {
                        ScriptedPeer p = new ScriptedPeer();
                        peers.add(p);
                        try {
                            s.attach("/ws", p).onText(hello(20));
                        } catch (RuntimeException e) {
                            thrown.add(e);
                        }
                    }
                });
                th.start();
                attachers.add(th);
            }
            started.await();
            s.close();
            for (Thread th : attachers) {
                th.join(10_000);
            }
            assertEquals(List.of(), thrown, "round " + round);
            for (ScriptedPeer p : peers) {
                int status = p.closeStatus();
                assertTrue(status == 1001 || status == 1013, "round " + round + ": closed with " + status);
            }
        }
    }

    @Test
    void attach_unknownPathOrServerNotRunning_isRefused() {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(4, 1, 16)).build();
        try (KhameleonServer notMounted = KhameleonServer.builder().application(app).build()) {
            assertThrows(IllegalStateException.class, () -> notMounted.attach("/test", new ScriptedPeer()));
            notMounted.mount();
            assertThrows(IllegalArgumentException.class, () -> notMounted.attach("/nope", new ScriptedPeer()));
        }
    }

    @Test
    void binaryFromTheClient_isAProtocolError() {
        mount(KhameleonServer.builder());
        ScriptedPeer peer = new ScriptedPeer();
        AttachedConnection c = server.attach("/ws", peer);
        c.onBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertEquals(1003, peer.closeStatus());
        assertEquals("unsupported_data", peer.closeReasons.get(0));
    }
}
