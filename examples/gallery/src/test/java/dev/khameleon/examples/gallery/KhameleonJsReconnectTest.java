package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.ServerMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code khameleon.js} reconnects like the Java client, in Chromium against real servers: after
 * the server side of its session is gone it retries with jittered exponential back-off, and once a
 * server is back the new session serves blocks; a state the server rejects is not sent again.
 * When the node serving it goes away and another node sharing the resume key takes its address,
 * the page resumes its session: it keeps its cache and the ring continues where it stopped; a node
 * with another key starts it afresh.
 */
@Timeout(120)
class KhameleonJsReconnectTest {
    private static final int REQUESTS = 8;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 64;
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final int INITIAL_BACKOFF_MS = 100;
    @TempDir
    static Path profile;
    private static KhameleonJsPage page;

    @BeforeAll
    static void start() throws IOException {
        page = KhameleonJsPage.start(profile);
    }

    @AfterAll
    static void stop() {
        if (page != null) {
            page.close();
        }
    }

    /** Request {@code r}'s block {@code i} holds {@code r} in its first byte and {@code i} in its second. */
    private static Application application(ServerPredictor predictor) {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < REQUESTS; r++) {
            List<Block> blocks = new ArrayList<>();
            for (int i = 0; i < BLOCKS; i++) {
                byte[] payload = new byte[BLOCK_SIZE];
                payload[0] = (byte) r;
                payload[1] = (byte) i;
                blocks.add(Block.wrap(r, i, BLOCKS, payload, 0));
            }
            responses.add(blocks);
        }
        return Application.builder("app").blockSource(BlockSource.inMemory(BLOCK_SIZE, responses)).horizons(HORIZONS)
                .predictor(predictor).build();
    }

    private static KhameleonServer server(Application app, int port) {
        return server(app, port, 2e5, null);
    }

    /** A server at {@code port} (0: any) pushing at {@code bytesPerSecond}, with {@code resumeKey} if not null. */
    private static KhameleonServer server(Application app, int port, double bytesPerSecond, byte[] resumeKey) {
        // A port just released by the first server may take a moment to be free again.
        for (int attempt = 0; ; attempt++) {
            try {
                KhameleonServer.Builder b = KhameleonServer.builder().host("127.0.0.1").port(port).seed(3)
                        .fixedBytesPerSecond(bytesPerSecond).allowedOrigins(page.origin()).application(app);
                if (resumeKey != null) {
                    b.resumeKey(resumeKey);
                }
                return b.build().start();
            } catch (UncheckedIOException e) {
                if (attempt == 20) {
                    throw e;
                }
                sleep(100);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Page-side helpers: {@code until(predicate)} polls every 10 ms, for at most 20 s. */
    private static final String UNTIL = """
            const until = async (p, what) => {
              for (let i = 0; i < 2000 && !p(); i++) await new Promise((r) => setTimeout(r, 10));
              if (!p()) throw new Error('timed out waiting for ' + what);
            };
            """;

    @SuppressWarnings("try") // the second server only has to run while the page reconnects
    @Test
    void serverGone_pageRetriesWithGrowingDelays_andTheNextServerServesItAgain() {
        Application app = application(ServerPredictor.point(REQUESTS, HORIZONS));
        KhameleonServer first = server(app, 0);
        int port = first.port();
        try {
            JsonNode before = page.run(UNTIL + """
                    window.log = {closes: [], connects: [], invalidated: []};
                    window.want = 3;
                    window.kc = await k.KhameleonClient.connect({url: args[0], application: 'app', cacheBlocks: 64,
                        initialBackoffMs: args[1], maxBackoffMs: 100 * args[1],
                        predictor: {onEvent() {}, state: () => ({request: window.want})},
                        onConnected: (w) => window.log.connects.push({t: performance.now(), session: w.session}),
                        onCacheInvalidated: (seq) => window.log.invalidated.push(seq),
                        onClose: (c) => window.log.closes.push({t: performance.now(), code: c.code,
                            error: c.error?.code ?? null, willReconnect: c.willReconnect, delayMs: c.delayMs ?? null})});
                    const r = await new Promise((resolve) => window.kc.register(3, (r) => {
                      if (r.blocks === r.blockCount) resolve(r);
                    }));
                    return {first: r.bytes[0], blocks: r.blocks, connected: window.kc.connected};
                    """, "ws://127.0.0.1:" + port + "/app", INITIAL_BACKOFF_MS);
            assertEquals(3, before.path("first").asInt(), before.toString());
            assertEquals(BLOCKS, before.path("blocks").asInt(), before.toString());
            assertTrue(before.path("connected").asBoolean(), before.toString());
        } finally {
            first.close(); // the server side of the session is gone: the page's next attempts fail
        }
        JsonNode down = page.run(UNTIL + """
                await until(() => window.log.closes.length >= 4, 'four closes');
                return window.log;
                """);
        assertEquals(1, down.get("connects").size(), "nothing to connect to while the server is down: " + down);
        try (KhameleonServer second = server(application(ServerPredictor.point(REQUESTS, HORIZONS)), port)) {
            JsonNode after = page.run(UNTIL + """
                    await until(() => window.log.connects.length >= 2, 'a second session');
                    window.want = 5;
                    const r = await new Promise((resolve) => window.kc.register(5, (r) => {
                      if (r.blocks === r.blockCount) resolve(r);
                    }));
                    const m = window.kc.metrics();
                    window.kc.close();
                    return {log: window.log, first: r.bytes[0], second: r.bytes[args[0] + 1], blocks: r.blocks,
                            reconnects: m.reconnects, closed: window.kc.closed};
                    """, BLOCK_SIZE);
            JsonNode log = after.get("log");
            assertEquals(5, after.path("first").asInt(), "the new session serves blocks: " + after);
            assertEquals(1, after.path("second").asInt(), "block 1 follows block 0: " + after);
            assertEquals(BLOCKS, after.path("blocks").asInt(), after.toString());
            assertEquals(1, after.path("reconnects").asInt(), after.toString());
            assertEquals("[0]", log.get("invalidated").toString(), "the new session's cache starts empty at seq 0");
            assertTrue(after.path("closed").asBoolean(), "close() ends the client for good");

            JsonNode closes = log.get("closes");
            JsonNode lost = closes.get(0);
            assertEquals(1001, lost.path("code").asInt(), "a server shutting down says going away: " + lost);
            assertEquals("shutdown", lost.path("error").asText(), lost.toString());
            double connectedAgain = log.get("connects").get(1).path("t").asDouble();
            int failed = 0;
            for (int k = 0; k < closes.size(); k++) {
                JsonNode c = closes.get(k);
                if (c.path("t").asDouble() > connectedAgain) {
                    break; // the final close(), after the second session
                }
                assertTrue(c.path("willReconnect").asBoolean(), "every lost connection is retried: " + closes);
                long base = Math.min(100L * INITIAL_BACKOFF_MS, (long) INITIAL_BACKOFF_MS << k);
                long delay = c.path("delayMs").asLong();
                assertTrue(delay >= base / 2 && delay <= base,
                        "attempt " + k + " waits a delay in [" + base / 2 + ", " + base + "], was " + delay + ": " + closes);
                if (k > 0) {
                    assertTrue(delay >= closes.get(k - 1).path("delayMs").asLong(), "delays grow: " + closes);
                    assertTrue(c.path("code").asInt() == 1006, "an attempt with no server fails with 1006: " + c);
                    failed++;
                }
                // The next attempt, failed or welcomed, comes no sooner than the delay.
                double next = k + 1 < closes.size() && closes.get(k + 1).path("t").asDouble() < connectedAgain
                        ? closes.get(k + 1).path("t").asDouble() : connectedAgain;
                assertTrue(next - c.path("t").asDouble() >= delay - 1,
                        "attempt " + (k + 1) + " started after its delay of " + delay + " ms: " + closes);
            }
            assertTrue(failed >= 3, "at least three failed attempts while the server was down: " + closes);
            assertTrue(closes.get(3).path("delayMs").asLong() >= 2 * closes.get(0).path("delayMs").asLong(),
                    "the fourth delay is at least twice the first: " + closes);
        }
    }

    @Test
    void rejectedState_closesTheSession_isReportedAndNeverSentAgain() {
        AtomicInteger rejected = new AtomicInteger();
        ServerPredictor point = ServerPredictor.point(REQUESTS, HORIZONS);
        ServerPredictor rejectsFlagged = state -> {
            if (state.path("bad").asBoolean()) {
                rejected.incrementAndGet();
                throw new IllegalArgumentException("this predictor rejects states with \"bad\": " + state);
            }
            return point.decode(state);
        };
        try (KhameleonServer server = server(application(rejectsFlagged), 0)) {
            JsonNode r = page.run(UNTIL + """
                    const log = {closes: [], rejected: [], errors: []};
                    const kc = await k.KhameleonClient.connect({url: args[0], application: 'app', cacheBlocks: 64,
                        initialBackoffMs: 50, stateIntervalMs: 10,
                        predictor: {onEvent() {}, state: () => ({request: 2, bad: true})},
                        onServerError: (e) => log.errors.push(e.code),
                        onStateRejected: (state, message) => log.rejected.push({state, message}),
                        onClose: (c) => log.closes.push({code: c.code, error: c.error?.code ?? null,
                            willReconnect: c.willReconnect})});
                    await until(() => kc.metrics().reconnects >= 1, 'a reconnect');
                    // 50 state intervals in which the rejected state must not go out again.
                    await new Promise((resolve) => setTimeout(resolve, 500));
                    const result = {log, reconnects: kc.metrics().reconnects, connected: kc.connected};
                    kc.close();
                    return result;
                    """, "ws://127.0.0.1:" + server.port() + "/app");
            JsonNode log = r.get("log");
            assertEquals(1, rejected.get(), "the rejected state reached the server once: " + r);
            assertEquals(1, r.path("reconnects").asInt(), "the second session stays up: " + r);
            assertTrue(r.path("connected").asBoolean(), r.toString());
            assertEquals("[\"invalid_state\"]", log.get("errors").toString());
            assertEquals(1, log.get("rejected").size(), r.toString());
            assertEquals("{\"request\":2,\"bad\":true}", log.get("rejected").get(0).get("state").toString());
            JsonNode close = log.get("closes").get(0);
            assertEquals(1007, close.path("code").asInt(), "the server closes a rejected state with 1007: " + close);
            assertEquals("invalid_state", close.path("error").asText());
            assertTrue(close.path("willReconnect").asBoolean());
        }
    }

    /** A node of the resume tests: the point predictor, a slow push, the resume key {@code key}. */
    private static KhameleonServer resumingServer(int port, byte[] key) {
        return server(application(ServerPredictor.point(REQUESTS, HORIZONS)), port, 2e4, key);
    }

    private static byte[] key(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    /** Connects the page to {@code port} and caches request 3 completely. */
    private static void fill(int port) {
        JsonNode r = page.run(UNTIL + """
                window.log = {resume: [], invalidated: [], seqAtClose: -1};
                window.want = 3;
                window.kc = await k.KhameleonClient.connect({url: args[0], application: 'app', cacheBlocks: 64,
                    initialBackoffMs: 100, maxBackoffMs: 400,
                    predictor: {onEvent() {}, state: () => ({request: window.want})},
                    onResume: (resumed, w, refusal) => window.log.resume.push({resumed, refusal,
                        firstSeq: w.firstSeq, cached: window.kc.cache.prefix(3).length}),
                    onCacheInvalidated: (seq) => window.log.invalidated.push(seq),
                    onClose: () => { if (window.log.seqAtClose < 0) window.log.seqAtClose = window.kc.nextSeq; }});
                await until(() => window.kc.cache.prefix(3).length === args[1], 'request 3');
                return {nextSeq: window.kc.nextSeq};
                """, "ws://127.0.0.1:" + port + "/app", BLOCKS);
        assertFalse(r.has("error"), r.toString());
    }

    /** What the page saw when its node was replaced, and the next node's counters. */
    private record Moved(JsonNode log, JsonNode resume, ServerMetrics next) {
    }

    /**
     * Fills the page's cache on a node with key 1, replaces that node by one with {@code nextKey}
     * at the same address, and asks for request 5 there.
     */
    private static Moved replaceNode(byte[] nextKey) {
        KhameleonServer a = resumingServer(0, key(1));
        int port = a.port();
        fill(port);
        a.close();
        try (KhameleonServer b = resumingServer(port, nextKey)) {
            JsonNode log = page.run(UNTIL + """
                    try {
                      await until(() => window.log.resume.length >= 1, 'the welcome of the next node');
                      // Request 3 is cached (on a resumed session the next node knows it): ask for another.
                      window.want = 5;
                      await until(() => window.kc.cache.prefix(5).length === 4, 'request 5 from the next node');
                      // The newest copy of each cached block of request 3: pushed before or after the move?
                      window.log.request3Seqs = window.kc.cache.prefix(3).map((b) => b.seq);
                    } catch (e) {
                      window.log.error = String(e);
                      window.log.nextSeq = window.kc.nextSeq;
                      window.log.lastError = window.kc.lastError;
                    }
                    window.kc.close();
                    return window.log;
                    """);
            assertFalse(log.has("error"), log.toString());
            return new Moved(log, log.get("resume").get(0), b.metrics());
        }
    }

    @Test
    void nodeReplaced_bySameKey_pageResumesWithItsCache() {
        Moved m = replaceNode(key(1));
        assertTrue(m.resume().path("resumed").asBoolean(), m.log().toString());
        assertEquals(m.log().path("seqAtClose").asLong(), m.resume().path("firstSeq").asLong(),
                "the ring continues where it stopped: " + m.log());
        assertEquals(BLOCKS, m.resume().path("cached").asInt(), "request 3 still cached: " + m.log());
        assertEquals("[]", m.log().get("invalidated").toString(), m.log().toString());
        long firstSeq = m.resume().path("firstSeq").asLong();
        JsonNode seqs = m.log().get("request3Seqs");
        assertEquals(BLOCKS, seqs.size(), m.log().toString());
        seqs.forEach(s -> assertTrue(s.asLong() < firstSeq, "request 3 was not pushed again: " + m.log()));
        assertEquals(1, m.next().sessionsResumed());
    }

    @Test
    void nodeReplaced_byAnotherKey_pageStartsAfresh() {
        Moved m = replaceNode(key(2));
        assertFalse(m.resume().path("resumed").asBoolean(), m.log().toString());
        assertEquals("invalid_token", m.resume().path("refusal").asText(), m.log().toString());
        assertEquals(0, m.resume().path("firstSeq").asLong());
        assertEquals("[0]", m.log().get("invalidated").toString(), m.log().toString());
        assertTrue(m.next().blocksPushed() >= BLOCKS, "the fresh session pushes request 5");
        assertEquals(1, m.next().resumesRefused());
    }
}
