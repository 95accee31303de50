package dev.khameleon.tiers;

import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.testing.FrameTap;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Java client of the load-balancer tests and what it saw: every block frame (through a
 * {@link FrameTap}), its connection events, when it lost its node and when its session resumed,
 * and the ring's next sequence number at the loss; {@link #assertRingContinues} checks a resume
 * against them. The listener calls run on the client's upcall thread; the test reads the fields.
 */
final class WatchedClient implements ClientListener {
    final FrameTap tap = new FrameTap();
    final KhameleonClient<PointerEvent> client;
    /** The ring's size in blocks. */
    final int cacheBlocks;
    /** Whether to ask, right after the resume, for the requests recently cached before the loss. */
    private final boolean probeAfterResume;
    final CompletableFuture<Boolean> resume = new CompletableFuture<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    volatile long disconnectedAtNanos = -1;
    volatile long resumedAtNanos = -1;
    volatile long seqAtDisconnect = -1;
    volatile int resumedConnection = -1;
    volatile Welcome resumedWelcome;
    /**
     * Requests cached at the disconnect whose block 0 is among the newest three quarters of the ring.
     * (The newest half alone was sometimes empty: a session still pushing after the visits spends it
     * on later blocks of cells whose block 0 is older.)
     */
    volatile List<Integer> recentlyCached = List.of();
    /** The sequence number of each recently cached request's block 0. */
    private volatile Map<Integer, Long> block0Seq = Map.of();
    /** Those of them that were hits right after the resume (with {@code probeAfterResume}). */
    final List<Integer> hitsAfterResume = new CopyOnWriteArrayList<>();
    /**
     * Those of them the resumed node had not overwritten when the probe ended: the new node writes
     * seq {@code next + i} over seq {@code next + i - cacheBlocks}, so after {@code m} frames the
     * blocks 0 from {@code next - cacheBlocks} up to {@code next - cacheBlocks + m} are gone. How many
     * frames arrive before the listener runs depends on the machine's load; which ones do not.
     */
    volatile List<Integer> expectedHitsAfterResume = List.of();

    /**
     * Builds the client from {@code builder} with a ring of {@code cacheBlocks}, this listener and
     * a frame tap; not yet connected.
     */
    WatchedClient(KhameleonClient.Builder<PointerEvent> builder, int cacheBlocks, boolean probeAfterResume) {
        this.cacheBlocks = cacheBlocks;
        this.probeAfterResume = probeAfterResume;
        this.client = builder.cacheBlocks(cacheBlocks).httpClient(tap).listener(this).build();
    }

    /**
     * A client of the trace replays, connected through {@code uri}: the library's default
     * predictor, a ring of {@code cacheBlocks}, a first reconnect after 50–100 ms, and back-off
     * jitter seeded with {@code seed}, so that a client makes the same draws in every run.
     */
    static WatchedClient connected(URI uri, int cacheBlocks, int seed) throws Exception {
        return connected(uri, cacheBlocks, seed, Duration.ofSeconds(30));
    }

    /** Like {@link #connected(URI, int, int)}, with the client's {@code idleTimeout}. */
    static WatchedClient connected(URI uri, int cacheBlocks, int seed, Duration idleTimeout) throws Exception {
        WatchedClient w = new WatchedClient(KhameleonClient.builder().uri(uri).application("grid")
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).random(new SplittableRandom(seed))
                .idleTimeout(idleTimeout), cacheBlocks, false);
        try {
            w.client.connect().get(10, TimeUnit.SECONDS);
        } catch (Exception | Error e) {
            w.client.close();
            throw e;
        }
        return w;
    }

    /** Closes every client (each says goodbye to its node if it still has one). */
    static void closeAll(List<WatchedClient> clients) {
        for (WatchedClient w : clients) {
            w.client.close();
        }
    }

    /** Whether this client, once resumed, received frames up to the end of the ring's batch. */
    boolean pastTheBatch() {
        return seqAtDisconnect < 0
                || client.cache().nextSeq() >= (seqAtDisconnect / cacheBlocks + 1) * cacheBlocks;
    }

    @Override
    public void onDisconnected(int status, String reason, boolean willReconnect) {
        events.add("disconnected " + status + " " + reason);
        if (disconnectedAtNanos >= 0) {
            return;
        }
        disconnectedAtNanos = System.nanoTime();
        // No connection now: the cache stays as it is until the next welcome.
        long next = client.cache().nextSeq();
        seqAtDisconnect = next;
        Map<Integer, Long> lastBlock0 = new HashMap<>();
        for (FrameTap.Frame f : tap.frames()) {
            if (f.index() == 0) {
                lastBlock0.put(f.requestId(), f.seq());
            }
        }
        List<Integer> recent = new ArrayList<>();
        Map<Integer, Long> seqs = new HashMap<>();
        lastBlock0.forEach((id, seq) -> {
            if (seq >= next - cacheBlocks * 3 / 4 && client.cache().prefixLength(id) > 0) {
                recent.add(id);
                seqs.put(id, seq);
            }
        });
        block0Seq = seqs;
        recentlyCached = recent;
    }

    @Override
    public void onResume(boolean resumed, Welcome welcome, String refusal) {
        resumedAtNanos = System.nanoTime();
        resumedConnection = tap.connections();
        resumedWelcome = welcome;
        events.add("resume " + resumed + " " + refusal + " at " + welcome.firstSeq());
        if (resumed && probeAfterResume) {
            // At once: the new node overwrites the oldest slots first, these are the newest.
            for (int id : recentlyCached) {
                if (client.request(id, r -> { })) {
                    hitsAfterResume.add(id);
                }
            }
            long overwritten = tap.frames().stream().filter(f -> f.connection() == resumedConnection).count();
            long firstKept = seqAtDisconnect - cacheBlocks + overwritten;
            expectedHitsAfterResume = recentlyCached.stream().filter(id -> block0Seq.get(id) >= firstKept).toList();
        }
        resume.complete(resumed);
    }

    /**
     * The resumed connection's first frame carries the sequence number the ring stopped at, and
     * until the end of the current batch of {@code C} slots no block is pushed that the ring
     * already holds from this batch (protocol.md, section 8). Call once {@link #pastTheBatch()}.
     */
    void assertRingContinues() {
        long next = seqAtDisconnect;
        int c = cacheBlocks;
        assertEquals(next, resumedWelcome.firstSeq(), "the welcome continues the ring where it stopped");
        long batchStart = next / c * c;
        long batchEnd = batchStart + c;
        assertTrue(pastTheBatch(), "the new node pushed to the end of the batch, " + batchEnd + ": " + events);
        Set<Long> batch = new HashSet<>();
        FrameTap.Frame first = null;
        for (FrameTap.Frame f : tap.frames()) {
            if (f.connection() < resumedConnection && f.seq() >= batchStart && f.seq() < next) {
                batch.add(key(f));
            } else if (f.connection() == resumedConnection && f.seq() < batchEnd) {
                if (first == null) {
                    first = f;
                    assertEquals(next, f.seq(), "the first frame after the resume has the expected sequence number");
                }
                assertTrue(batch.add(key(f)), "request " + f.requestId() + " block " + f.index() + " at " + f.seq()
                        + " is already in this batch of the ring");
            }
        }
        assertTrue(first != null, "frames after the resume: " + events);
    }

    /** One line for a failure message: frames, ring position, events. */
    String describe() {
        return tap.frames().size() + " frames, next " + client.cache().nextSeq() + ", " + events;
    }

    private static long key(FrameTap.Frame f) {
        return ((long) f.requestId() << 32) | f.index();
    }
}
