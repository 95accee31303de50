package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code khameleon.js} resumes its session like the Java client, in Chromium: when the node
 * serving it goes away and another node sharing the resume key takes its address, the page keeps
 * its cache and the ring continues where it stopped; a node with another key starts it afresh.
 */
@Timeout(120)
class KhameleonJsResumeTest {
    private static final int REQUESTS = 8;
    private static final int BLOCKS = 4;
    private static final int BLOCK_SIZE = 64;
    private static final long[] HORIZONS = {50, 150, 250, 500};
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

    private static byte[] key(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    private static Application application() {
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
                .predictor(ServerPredictor.point(REQUESTS, HORIZONS)).build();
    }

    private static KhameleonServer server(int port, byte[] key) {
        // A port just released by the first server may take a moment to be free again.
        for (int attempt = 0; ; attempt++) {
            try {
                return KhameleonServer.builder().host("127.0.0.1").port(port).seed(3).fixedBytesPerSecond(2e4)
                        .allowedOrigins(page.origin()).resumeKey(key).application(application()).build().start();
            } catch (UncheckedIOException e) {
                if (attempt == 20) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(ie);
                }
            }
        }
    }

    private static final String UNTIL = """
            const until = async (p, what) => {
              for (let i = 0; i < 2000 && !p(); i++) await new Promise((r) => setTimeout(r, 10));
              if (!p()) throw new Error('timed out waiting for ' + what);
            };
            """;

    /** Connects the page to {@code port}, caches request 3 completely and returns the ring's position. */
    private static long fill(int port) {
        // With all mass on request 3 the server pushes its 4 blocks and then nothing more in the batch.
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
        assertEquals(BLOCKS, r.path("nextSeq").asLong(), r.toString());
        return r.path("nextSeq").asLong();
    }

    private static JsonNode afterMove() {
        JsonNode log = page.run(UNTIL + """
                try {
                  await until(() => window.log.resume.length >= 1, 'the welcome of the next node');
                  // Request 3 is cached (on a resumed session the next node knows it): ask for another.
                  window.want = 5;
                  await until(() => window.kc.cache.prefix(5).length === 4, 'request 5 from the next node');
                  window.log.request3 = window.kc.cache.prefix(3).length;
                } catch (e) {
                  window.log.error = String(e);
                  window.log.nextSeq = window.kc.nextSeq;
                  window.log.lastError = window.kc.lastError;
                }
                window.kc.close();
                return window.log;
                """);
        assertFalse(log.has("error"), log.toString());
        return log;
    }

    @Test
    void nodeReplaced_bySameKey_pageResumesWithItsCache() {
        KhameleonServer a = server(0, key(1));
        int port = a.port();
        fill(port);
        a.close();
        try (KhameleonServer b = server(port, key(1))) {
            JsonNode log = afterMove();
            JsonNode resume = log.get("resume").get(0);
            assertTrue(resume.path("resumed").asBoolean(), log.toString());
            assertEquals(log.path("seqAtClose").asLong(), resume.path("firstSeq").asLong(),
                    "the ring continues where it stopped: " + log);
            assertEquals(BLOCKS, resume.path("cached").asInt(), "request 3 still cached: " + log);
            assertEquals("[]", log.get("invalidated").toString(), log.toString());
            assertEquals(BLOCKS, log.path("request3").asInt(), "request 3 was not pushed again: " + log);
            assertEquals(BLOCKS, b.metrics().blocksPushed(), "the next node pushed request 5 only, not request 3 again");
            assertEquals(1, b.metrics().sessionsResumed());
        }
    }

    @Test
    void nodeReplaced_byAnotherKey_pageStartsAfresh() {
        KhameleonServer a = server(0, key(1));
        int port = a.port();
        fill(port);
        a.close();
        try (KhameleonServer b = server(port, key(2))) {
            JsonNode log = afterMove();
            JsonNode resume = log.get("resume").get(0);
            assertFalse(resume.path("resumed").asBoolean(), log.toString());
            assertEquals("invalid_token", resume.path("refusal").asText(), log.toString());
            assertEquals(0, resume.path("firstSeq").asLong());
            assertEquals("[0]", log.get("invalidated").toString(), log.toString());
            assertEquals(1, b.metrics().resumesRefused());
        }
    }
}
