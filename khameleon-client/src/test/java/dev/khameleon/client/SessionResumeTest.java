package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client resumes its session on another node after its node dies: two real servers
 * sharing a resume key on 127.0.0.1, behind a relay that plays the load balancer.
 */
@Timeout(60)
class SessionResumeTest {
    private static final int N = 24;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 512;
    private static final int C = 64;
    private static final byte[] KEY = new byte[32];

    static {
        Arrays.fill(KEY, (byte) 42);
    }

    private final List<KhameleonServer> servers = new ArrayList<>();
    private SwitchableRelay relay;

    @AfterEach
    void stop() throws Exception {
        if (relay != null) {
            relay.close();
        }
        servers.forEach(KhameleonServer::close);
    }

    private static BlockSource blocks() {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < N; r++) {
            List<Block> bs = new ArrayList<>();
            for (int b = 0; b < BLOCKS; b++) {
                bs.add(Block.wrap(r, b, BLOCKS, new byte[BLOCK_SIZE], 0));
            }
            responses.add(bs);
        }
        return BlockSource.inMemory(BLOCK_SIZE, responses);
    }

    private KhameleonServer start(byte[] key, int maxFrameBytes) {
        KhameleonServer s = KhameleonServer.builder().host("127.0.0.1").port(0).seed(servers.size() + 1)
                .fixedBytesPerSecond(20_000).resumeKey(key).maxFramePayloadBytes(maxFrameBytes)
                .application(Application.builder("grid").blockSource(blocks())
                        .predictor(ServerPredictor.point(N, 50, 150, 250, 500)).build())
                .build().start();
        servers.add(s);
        return s;
    }

    /** Points the prediction at {@link #target}. */
    private static final class Pointing implements ClientPredictor<Integer> {
        final AtomicInteger target = new AtomicInteger(3);

        @Override
        public void onEvent(Integer event) {
            target.set(event);
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", target.get());
        }
    }

    /** What the listener saw. */
    private static final class Events implements ClientListener {
        final CompletableFuture<Boolean> resume = new CompletableFuture<>();
        final List<String> refusals = new CopyOnWriteArrayList<>();
        final AtomicInteger invalidated = new AtomicInteger();
        final AtomicInteger connected = new AtomicInteger();
        volatile Welcome resumedWelcome;
        volatile long seqAtDisconnect = -1;
        volatile CacheView cache;

        @Override
        public void onConnected(Welcome welcome) {
            connected.incrementAndGet();
        }

        @Override
        public void onDisconnected(int status, String reason, boolean willReconnect) {
            if (seqAtDisconnect < 0) {
                seqAtDisconnect = cache.nextSeq();
            }
        }

        @Override
        public void onResume(boolean resumed, Welcome welcome, String refusal) {
            resumedWelcome = welcome;
            refusals.add(refusal);
            resume.complete(resumed);
        }

        @Override
        public void onCacheInvalidated(long firstSeq) {
            invalidated.incrementAndGet();
        }
    }

    /** A client of the relay, which leads to {@code a} until the test switches it. */
    private KhameleonClient<Integer> client(KhameleonServer a, Events events) throws Exception {
        relay = new SwitchableRelay(a.port());
        KhameleonClient<Integer> c = KhameleonClient.builder().uri(URI.create("ws://127.0.0.1:" + relay.port() + "/grid"))
                .application("grid").cacheBlocks(C).predictor(new Pointing()).stateInterval(Duration.ofMillis(20))
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(2)).listener(events).build();
        events.cache = c.cache();
        return c;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /**
     * Connects {@code client} through the relay to {@code a}, fills its cache while the pointer
     * visits a few requests, then kills {@code a}: its connections are reset (no close frame) and
     * the relay leads to {@code b} from then on.
     */
    private void fillThenKill(KhameleonClient<Integer> client, KhameleonServer a, KhameleonServer b)
            throws Exception {
        client.connect().get(10, TimeUnit.SECONDS);
        fill(client);
        relay.target(b.port());
        relay.cutAll();
        a.close();
    }

    /** Moves the pointer over a few requests, half a ring of blocks each. */
    private static void fill(KhameleonClient<Integer> client) throws InterruptedException {
        for (int id : new int[] {3, 7, 11, 15}) {
            client.onEvent(id);
            long until = client.cache().nextSeq() + C / 2;
            await(() -> client.cache().nextSeq() >= until, "blocks for request " + id);
        }
    }

    private static List<Integer> cachedRequests(CacheView cache) {
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; id < N; id++) {
            if (cache.prefixLength(id) > 0) {
                ids.add(id);
            }
        }
        return ids;
    }

    @Test
    void nodeKilled_clientResumesOnAnotherNode_keepingItsCache() throws Exception {
        KhameleonServer a = start(KEY, 64 * 1024);
        KhameleonServer b = start(KEY, 64 * 1024);
        Events events = new Events();
        try (KhameleonClient<Integer> client = client(a, events)) {
            fillThenKill(client, a, b);
            assertTrue(events.resume.get(10, TimeUnit.SECONDS), "resumed, refusal " + events.refusals);
            List<Integer> kept = cachedRequests(client.cache());
            long expected = events.seqAtDisconnect;
            assertEquals(expected, events.resumedWelcome.firstSeq(), "the ring continues where it stopped");
            assertTrue(client.cache().nextSeq() >= expected);
            assertEquals(0, events.invalidated.get(), "the cache was not invalidated");
            assertTrue(kept.size() >= 3, "requests still cached after the move: " + kept);
            long hitsBefore = client.metrics().hits();
            int hits = 0;
            for (int id : kept.subList(kept.size() - 3, kept.size())) {
                hits += client.request(id, r -> { }) ? 1 : 0;
            }
            assertEquals(3, hits, "requests cached before the move are hits after it");
            assertEquals(hitsBefore + 3, client.metrics().hits());
            await(() -> client.cache().nextSeq() >= expected + 5, "B pushes after the resume");
            assertEquals(1, b.metrics().sessionsResumed());
            assertEquals(2, relay.accepted(), "one connection to A, one to B");
        }
    }

    @Test
    void otherKey_startsAfresh_clearsTheCache_once() throws Exception {
        KhameleonServer a = start(KEY, 64 * 1024);
        byte[] otherKey = KEY.clone();
        otherKey[0] ^= 1;
        KhameleonServer b = start(otherKey, 64 * 1024);
        Events events = new Events();
        try (KhameleonClient<Integer> client = client(a, events)) {
            fillThenKill(client, a, b);
            assertFalse(events.resume.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("invalid_token"), events.refusals);
            assertEquals(0, events.resumedWelcome.firstSeq());
            await(() -> events.invalidated.get() == 1, "the cache invalidated");
            await(() -> client.cache().nextSeq() >= 5, "B pushes to the fresh session");
            Thread.sleep(300);
            assertEquals(1, b.metrics().sessionsOpened(), "no reconnect loop");
            assertEquals(1, b.metrics().resumesRefused());
        }
    }

    @Test
    void manifestBeyondTheNodesFrameLimit_nextAttemptStartsAfresh_noLoop() throws Exception {
        KhameleonServer a = start(KEY, 64 * 1024);
        KhameleonServer b = start(KEY, 256); // too small for a hello carrying this cache's manifest
        Events events = new Events();
        try (KhameleonClient<Integer> client = client(a, events)) {
            fillThenKill(client, a, b);
            await(() -> events.connected.get() == 2, "connected to B");
            assertEquals(1, events.invalidated.get(), "a fresh session on B");
            await(() -> client.cache().nextSeq() >= 5, "B pushes to the fresh session");
            Thread.sleep(300);
            assertEquals(1, b.metrics().sessionsOpened(), "one session on B, no reconnect loop");
            assertEquals(3, relay.accepted(), "A, the refused resume, the fresh session");
        }
    }
}
