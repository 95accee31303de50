package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.testkit.KeyedBlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser client module ({@code khameleon.js}) unit by unit, in a real browser: its frame
 * decoder against the Java protocol codec, its ring buffer and cache manager, and its Kalman
 * predictor against the Java {@link KalmanPredictor} on a real pointer trace.
 */
@Timeout(120)
class KhameleonJsModuleTest {
    private static final ObjectMapper JSON = new ObjectMapper();
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

    /** Runs {@code body} (an async function body with the module as {@code k}) and returns its JSON result. */
    private static JsonNode run(String body, Object... args) {
        return page.run(body, args);
    }

    private static String frame(long seq, int request, int index, int count, byte[] payload, int padding) {
        return Base64.getEncoder().encodeToString(
                BlockFrame.encode(seq, Block.of(request, index, count, payload, padding)));
    }

    private static final String DECODE = "const bytes = Uint8Array.from(atob(args[0]), (c) => c.charCodeAt(0));"
            + "try { const f = k.decodeBlockFrame(bytes.buffer);"
            + " return {seq: f.seq, requestId: f.requestId, index: f.index, count: f.count, padding: f.padding,"
            + " payload: Array.from(f.payload), frameBytes: f.frameBytes}; }"
            + " catch (e) { return {code: e.code, message: e.message}; }";

    /**
     * The JPEG prefix cut: for block prefixes, prefixes ending inside each Huffman table or scan
     * header, and byte prefixes at a stride of a gallery picture, {@code jpegPrefixBlob} gives
     * exactly the bytes of the Java {@link ProgressiveJpegEncoder#renderablePrefix} and Chromium
     * decodes every one full-frame.
     */
    @Test
    void jpegPrefixBlob_cutsLikeJavaAndChromiumDecodesEveryPrefix() {
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(4096).build();
        byte[] jpeg = encoder.toJpeg(TileImages.synthetic(480, 360, 42).apply(3));
        int preview = ProgressiveJpegEncoder.previewLength(jpeg);
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int n = preview; n < jpeg.length; n += 4096) {
            lengths.add(n); // the block boundaries
        }
        lengths.add(jpeg.length);
        for (int i = preview; i + 1 < jpeg.length; i++) {
            int marker = jpeg[i + 1] & 0xFF;
            if ((jpeg[i] & 0xFF) == 0xFF && (marker == 0xC4 || marker == 0xDA)) {
                int length = ((jpeg[i + 2] & 0xFF) << 8) | (jpeg[i + 3] & 0xFF);
                for (int n = i + 1; n <= i + 2 + length; n += Math.max(1, length / 6)) {
                    lengths.add(n); // inside the table or scan header
                }
            }
        }
        for (int n = preview + 13; n < jpeg.length; n += 997) {
            lengths.add(n);
        }
        JsonNode r = run("const jpeg = Uint8Array.from(atob(args[0]), (c) => c.charCodeAt(0));"
                + "const out = [];"
                + "for (const n of args[1]) {"
                + "  const blob = k.jpegPrefixBlob(jpeg.subarray(0, n));"
                + "  let size = null, error = null;"
                + "  try { const b = await createImageBitmap(blob); size = [b.width, b.height]; b.close(); }"
                + "  catch (e) { error = String(e); }"
                + "  out.push({n, bytes: Array.from(new Uint8Array(await blob.arrayBuffer())).length,"
                + "    tail: Array.from(new Uint8Array(await blob.arrayBuffer()).slice(-2)), size, error});"
                + "}"
                + "return out;", Base64.getEncoder().encodeToString(jpeg), new ArrayList<>(lengths));
        assertEquals(lengths.size(), r.size());
        int headerCuts = 0;
        for (JsonNode p : r) {
            int n = p.get("n").asInt();
            byte[] expected = ProgressiveJpegEncoder.renderablePrefix(java.util.Arrays.copyOf(jpeg, n));
            assertEquals(expected.length, p.get("bytes").asInt(), "prefix " + n);
            assertEquals(0xD9, p.get("tail").get(1).asInt(), "prefix " + n + " ends with EOI");
            assertTrue(p.get("error").isNull(), "prefix " + n + ": " + p.get("error"));
            assertEquals(480, p.get("size").get(0).asInt(), "prefix " + n);
            assertEquals(360, p.get("size").get(1).asInt(), "prefix " + n);
            if (expected.length < n) {
                headerCuts++;
            }
        }
        assertTrue(headerCuts > 10, "prefixes cut back before a header: " + headerCuts);
    }

    @Test
    void decodeBlockFrame_readsWhatTheJavaCodecWrites() {
        JsonNode f = run(DECODE, frame(123_456_789_012L, 7, 2, 3, new byte[] {1, 2, 3, 0}, 1));
        assertEquals(123_456_789_012L, f.get("seq").asLong());
        assertEquals(7, f.get("requestId").asInt());
        assertEquals(2, f.get("index").asInt());
        assertEquals(3, f.get("count").asInt());
        assertEquals(1, f.get("padding").asInt());
        assertEquals("[1,2,3,0]", f.get("payload").toString());
        assertEquals(36, f.get("frameBytes").asInt());
    }

    @Test
    void decodeBlockFrame_readsTheBindingGenerationOfA36ByteHeader() {
        String withGeneration = Base64.getEncoder().encodeToString(
                BlockFrame.encode(9, Block.of(4, 0, 2, new byte[] {5, 6}, 0), 7));
        JsonNode f = run("const bytes = Uint8Array.from(atob(args[0]), (c) => c.charCodeAt(0));"
                + "const f = k.decodeBlockFrame(bytes.buffer);"
                + "const plain = k.decodeBlockFrame(Uint8Array.from(atob(args[1]), (c) => c.charCodeAt(0)).buffer);"
                + "return {generation: f.generation, payload: Array.from(f.payload), plain: plain.generation};",
                withGeneration, frame(9, 4, 0, 2, new byte[] {5, 6}, 0));
        assertEquals(7, f.get("generation").asInt());
        assertEquals("[5,6]", f.get("payload").toString(), "the payload starts after the 36-byte header");
        assertEquals(0, f.get("plain").asInt(), "a 32-byte header means generation 0");
    }

    /**
     * The browser client against the real server: a rebind while blocks of the old binding are in
     * flight. The old content is held back until the page has the rebind, so it arrives after it;
     * only the frames' generation tells the page those blocks are stale.
     */
    @Test
    void client_rebindWhileOldBlocksAreInFlight_neverAnswersWithAnOldBlock() throws Exception {
        int blocks = 4;
        int blockSize = 64;
        long[] horizons = {50, 150, 250, 500};
        CompletableFuture<Void> gate = new CompletableFuture<>();
        KeyedBlockSource source = new KeyedBlockSource(2, blocks, blockSize).holdDefaultContentUntil(gate);
        Distribution.Builder onZero = Distribution.builder(2, horizons);
        for (int j = 0; j < horizons.length; j++) {
            onZero.explicit(j, 0, 1.0);
        }
        Application app = Application.builder("xf").blockSource(source).horizons(horizons)
                .predictor(ServerPredictor.point(2, horizons)).initialDistribution(onZero.build())
                .requestScope(scope -> {
                    Bindings.Builder b = Bindings.builder();
                    scope.get("bind").forEach(pair -> b.bind(pair.get(0).intValue(), pair.get(1).longValue()));
                    return b.build();
                }).build();
        try (KhameleonServer server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(5)
                .fixedBytesPerSecond(5e6).allowedOrigins(page.origin())
                .application(app).build().start()) {
            JsonNode welcome = run("""
                    window.rebinds = [];
                    window.kc = await k.KhameleonClient.connect({url: args[0], application: 'xf', cacheBlocks: 64,
                        predictor: {onEvent() {}, state() { return {request: 0}; }},
                        onRebind: (ids) => window.rebinds.push(ids)});
                    return {features: window.kc.welcome.features};
                    """, "ws://127.0.0.1:" + server.port() + "/xf");
            assertEquals("[\"scope\"]", welcome.get("features").toString(), welcome.toString());
            // The server planned request 0's default content and is fetching it: now the page rebinds 0.
            source.firstFetch().toCompletableFuture().get(10, TimeUnit.SECONDS);
            // The page registers request 0 as soon as it has the rebind, before any old block can arrive.
            JsonNode rebinds = run("""
                    window.kc.scope({bind: [[0, 100]]});
                    for (let i = 0; i < 1000 && window.rebinds.length === 0; i++) {
                      await new Promise((r) => setTimeout(r, 10));
                    }
                    window.keys = [];
                    window.complete = new Promise((resolve) => {
                      window.kc.register(0, (response) => {
                        const v = new DataView(response.bytes.buffer, response.bytes.byteOffset);
                        for (let b = 0; b < response.blocks; b++) {
                          window.keys.push(Number(v.getBigInt64(b * args[0])));
                        }
                        if (response.blocks === response.blockCount) {
                          resolve();
                        }
                      });
                    });
                    return window.rebinds;
                    """, blockSize);
            assertEquals("[[0]]", rebinds.toString());
            gate.complete(null);
            JsonNode answers = run("""
                    await window.complete;
                    const m = window.kc.metrics();
                    window.kc.close();
                    return {keys: window.keys, stale: m.blocksStale};
                    """);
            for (JsonNode key : answers.get("keys")) {
                assertEquals(100, key.asLong(), "every block the page answered request 0 with is its new content: "
                        + answers);
            }
            assertTrue(answers.get("keys").size() >= blocks, "the page got the complete new response: " + answers);
            assertTrue(answers.get("stale").asInt() >= 1,
                    "blocks of the old binding reached the page after the rebind and were refused: " + answers);
        }
    }

    @Test
    void decodeBlockFrame_rejectsEachBrokenFieldNamingIt() {
        byte[] good = BlockFrame.encode(5, Block.of(1, 0, 2, new byte[] {9, 9, 9, 9}, 0));
        String[][] cases = {
            {"0", "magic"}, {"1", "version"}, {"2", "flags"}, {"28", "padding"}, {"27", "payloadLength"},
        };
        for (String[] c : cases) {
            byte[] bad = good.clone();
            int at = Integer.parseInt(c[0]);
            bad[at] = (byte) (at == 28 ? 0x7F : at == 2 ? 1 : bad[at] + 1);
            JsonNode r = run(DECODE, Base64.getEncoder().encodeToString(bad));
            assertEquals("invalid_message", r.path("code").asText(), c[1] + ": " + r);
            assertTrue(r.get("message").asText().contains(c[1]), r.toString());
        }
        JsonNode shortFrame = run(DECODE, Base64.getEncoder().encodeToString(new byte[10]));
        assertEquals("invalid_message", shortFrame.path("code").asText());
    }

    @Test
    void ringBufferCache_isFifoBySequenceNumberAndServesTheLongestPrefix() {
        JsonNode r = run("""
                const frame = (seq, requestId, index, count) => ({seq, requestId, index, count, padding: 0,
                    payload: new Uint8Array([index]), frameBytes: 33});
                const c = new k.RingBufferCache(3);
                c.put(frame(0, 5, 0, 3)); c.put(frame(1, 5, 2, 3)); c.put(frame(2, 5, 1, 3));
                const full = c.prefix(5).map((b) => b.index);
                const evicted = c.put(frame(3, 6, 0, 1));          // slot 0: evicts block 0 of 5
                const afterEviction = c.prefix(5).length;
                c.put(frame(4, 5, 0, 3));                           // slot 1: evicts block 2, re-adds block 0
                const again = c.prefix(5).map((b) => b.index);
                c.put(frame(5, 5, 1, 3));                           // slot 2: a newer copy of block 1
                c.put(frame(6, 7, 0, 1));                           // slot 0: evicts request 6
                return {full, evictedIndex: evicted.index, afterEviction, again, present5: c.presentCount(5),
                        present6: c.presentCount(6), stored: c.stored, evictions: c.evicted,
                        content: Array.from(k.concatContent(c.prefix(5)))};
                """);
        assertEquals("[0,1,2]", r.get("full").toString());
        assertEquals(0, r.get("evictedIndex").asInt());
        assertEquals(0, r.get("afterEviction").asInt(), "block 0 gone: no usable prefix");
        assertEquals("[0,1]", r.get("again").toString());
        assertEquals(2, r.get("present5").asInt());
        assertEquals(0, r.get("present6").asInt());
        assertEquals(7, r.get("stored").asInt());
        assertEquals(4, r.get("evictions").asInt());
        assertEquals("[0,1]", r.get("content").toString());
    }

    @Test
    void cacheManager_upcallsOnHitAndArrivalPreemptsAndMeasuresLatency() {
        JsonNode r = run("""
                const frame = (seq, requestId, index, count, padding = 0) => ({seq, requestId, index, count, padding,
                    payload: new Uint8Array([index + 1, index + 1, 0]), frameBytes: 35});
                let now = 100;
                const cache = new k.RingBufferCache(10);
                const m = new k.CacheManager(cache, {now: () => now, utility: (f) => Math.sqrt(f)});
                const put = (f) => { cache.put(f); m.onBlock(f); };
                put(frame(0, 1, 0, 2, 1));
                const calls = [];
                const hit = m.register(1, (r) => calls.push({id: 1, blocks: r.blocks, hit: r.hit, first: r.first,
                    latency: r.latencyMs, utility: r.utility, bytes: Array.from(r.bytes)}));
                const synchronous = calls.length;
                await null;
                now = 130;
                const lost = m.register(2, () => calls.push({id: 2}));   // preempted by the next one
                now = 150;
                m.register(3, (r) => calls.push({id: 3, blocks: r.blocks, hit: r.hit, latency: r.latencyMs}));
                now = 190;
                put(frame(1, 3, 0, 1));
                put(frame(2, 2, 0, 1));
                put(frame(3, 1, 1, 2));
                hit.cancel();
                put(frame(4, 1, 1, 2));
                return {synchronous, calls, lostActive: lost.active, metrics: m.metrics()};
                """);
        assertEquals(0, r.get("synchronous").asInt(), "upcalls are never re-entrant from register()");
        JsonNode calls = r.get("calls");
        assertEquals(3, calls.size(), calls.toString());
        JsonNode first = calls.get(0);
        assertEquals(1, first.get("id").asInt());
        assertTrue(first.get("hit").asBoolean());
        assertEquals(0.0, first.get("latency").asDouble());
        assertEquals(Math.sqrt(0.5), first.get("utility").asDouble(), 1e-12);
        assertEquals("[1,1]", first.get("bytes").toString(), "padding removed");
        JsonNode third = calls.get(1);
        assertEquals(3, third.get("id").asInt());
        assertEquals(40.0, third.get("latency").asDouble());
        assertTrue(!third.get("hit").asBoolean());
        JsonNode improved = calls.get(2);
        assertEquals(1, improved.get("id").asInt());
        assertEquals(2, improved.get("blocks").asInt());
        assertTrue(!improved.get("first").asBoolean());
        assertTrue(!r.get("lostActive").asBoolean());
        JsonNode metrics = r.get("metrics");
        assertEquals(3, metrics.get("registrations").asInt());
        assertEquals(1, metrics.get("hits").asInt());
        assertEquals(1, metrics.get("preempted").asInt());
        assertEquals(2, metrics.get("answered").asInt());
        assertEquals(20.0, metrics.get("meanLatencyMs").asDouble(), 1e-9);
        assertEquals(5, metrics.get("blocksReceived").asInt());
        assertEquals(3, metrics.get("blocksUsed").asInt());
    }

    @Test
    void predictorManager_miss_sendsAStateAtOnce_atMostOnePerMissInterval() {
        JsonNode times = run("""
                let now = 1000;
                const sent = [];
                const m = new k.PredictorManager({
                  predictor: {onEvent() {}, state: (t) => ({t})},
                  send: (message) => sent.push(message),
                  clock: () => now,
                  missStateIntervalMs: 20,
                });
                m.onMiss();              // sends at once
                now = 1010; m.onMiss();  // 10 ms later: rate-limited
                now = 1019; m.onMiss();
                now = 1020; m.onMiss();  // 20 ms after the last state: sends
                return sent.map((s) => s.time);
                """);
        assertEquals("[1000,1020]", times.toString());
    }

    @Test
    void predictorManager_missInsideTheWindow_isSentWhenTheWindowEnds_notDropped() {
        JsonNode times = run("""
                let now = 1000;
                const sent = [];
                const m = new k.PredictorManager({
                  predictor: {onEvent() {}, state: (t) => ({t})},
                  send: (message) => sent.push(message),
                  clock: () => now,
                  missStateIntervalMs: 20,
                });
                m.onMiss();              // sends at once
                now = 1005; m.onMiss();  // inside the window: deferred by 15 ms
                now = 1010; m.onMiss();  // the same deferred send
                const before = sent.length;
                await new Promise((resolve) => setTimeout(resolve, 100));
                return {before, after: sent.map((s) => s.time)};
                """);
        assertEquals(1, times.get("before").asInt(), "nothing inside the window");
        assertEquals("[1000,1010]", times.get("after").toString(), "one state at the window's end");
    }

    /** The Java client's policy: attempt k waits in [b/2, b], b = min(max, initial·2^k); only a healthy session resets k. */
    @Test
    void reconnectBackoff_delaysDoubleWithinTheirJitterUntilTheCap_andOnlyAHealthySessionResets() {
        JsonNode r = run("""
                const delays = (random, n, welcomedFor = -1) => {
                  const b = new k.ReconnectBackoff({initialMs: 100, maxMs: 1600, healthyAfterMs: 5000, random});
                  return Array.from({length: n}, () => b.nextDelayMs(welcomedFor));
                };
                const reset = new k.ReconnectBackoff({initialMs: 100, maxMs: 1600, random: () => 0.999999});
                const beforeReset = [reset.nextDelayMs(-1), reset.nextDelayMs(10), reset.nextDelayMs(4999)];
                const afterHealthy = reset.nextDelayMs(5000);
                const errors = [];
                for (const bad of [{initialMs: 0}, {initialMs: 100, maxMs: 50}, {healthyAfterMs: -1}, {random: 3}]) {
                  try { new k.ReconnectBackoff(bad); errors.push(null); } catch (e) { errors.push(e.message); }
                }
                const refused = await k.KhameleonClient.connect({url: 'ws://127.0.0.1:9/x', application: 'a', reconnect: 'yes'})
                    .then(() => null, (e) => e.message);
                return {low: delays(() => 0, 7), high: delays(() => 0.999999, 7), broken: delays(() => NaN, 2),
                        beforeReset, afterHealthy, errors, refused};
                """);
        assertEquals("[50,100,200,400,800,800,800]", r.get("low").toString(), "the lowest delay of each attempt");
        assertEquals("[100,200,400,800,1600,1600,1600]", r.get("high").toString(), "the highest, capped at max");
        assertEquals("[50,100]", r.get("broken").toString(), "a broken random source still gives delays in range");
        assertEquals("[100,200,400]", r.get("beforeReset").toString(), "short sessions let the delay grow");
        assertEquals(100, r.get("afterHealthy").asInt(), "a session up for healthyAfterMs resets the back-off");
        JsonNode errors = r.get("errors");
        String[] named = {"initialBackoffMs", "maxBackoffMs", "healthyAfterMs", "random"};
        for (int i = 0; i < named.length; i++) {
            assertTrue(errors.get(i).asText().contains(named[i]), "the error names " + named[i] + ": " + errors);
        }
        assertTrue(r.get("refused").asText().contains("reconnect must be a boolean"), r.toString());
    }

    @Test
    void kalmanPredictor_matchesTheJavaKalmanPredictorOnARealTrace() throws IOException {
        Path trace = SharedData.requireFile("pointer/gallery/1M-30s.json", "pointer trace");
        List<double[]> samples = new ArrayList<>();
        for (JsonNode event : JSON.readTree(trace.toFile())) {
            JsonNode e = event.get("e");
            samples.add(new double[] {e.get(0).asDouble(), e.get(1).asDouble(), e.get(2).asLong()});
            if (samples.size() == 400) {
                break;
            }
        }
        long[] queries = {0, 35, 60, 300};   // ms after every 25th sample: moving, either side of the rest threshold, at rest
        KalmanPredictor java = KalmanPredictor.create();
        List<JsonNode> expected = new ArrayList<>();
        for (int i = 0; i < samples.size(); i++) {
            double[] s = samples.get(i);
            java.onEvent(new PointerEvent(s[0], s[1], (long) s[2]));
            if (i % 25 == 24) {
                for (long q : queries) {
                    expected.add(java.state((long) s[2] + q));
                }
            }
        }
        JsonNode actual = run("""
                const samples = JSON.parse(args[0]);
                const queries = JSON.parse(args[1]);
                const p = new k.KalmanPredictor();
                const states = [];
                samples.forEach((s, i) => {
                  p.onEvent({x: s[0], y: s[1], timeMillis: s[2]});
                  if (i % 25 === 24) {
                    for (const q of queries) states.push(p.state(s[2] + q));
                  }
                });
                return states;
                """, JSON.writeValueAsString(samples), JSON.writeValueAsString(queries));
        assertEquals(expected.size(), actual.size());
        assertTrue(expected.size() >= 40 && expected.stream().allMatch(e -> e.has("mean") && e.has("cov")),
                "the Java predictor forecast at every query");
        for (int i = 0; i < expected.size(); i++) {
            assertStatesClose(expected.get(i), actual.get(i), "state " + i);
        }
    }

    private static void assertStatesClose(JsonNode expected, JsonNode actual, String where) {
        if (expected.isNumber()) {
            double e = expected.asDouble();
            double a = actual.asDouble();
            assertTrue(Math.abs(e - a) <= 1e-6 * Math.max(1, Math.abs(e)), where + ": Java " + e + ", JS " + a);
            return;
        }
        assertEquals(expected.size(), actual.size(), where + ": " + expected + " vs " + actual);
        if (expected.isObject()) {
            expected.fieldNames().forEachRemaining(name ->
                    assertStatesClose(expected.get(name), actual.get(name), where + "." + name));
        } else {
            for (int i = 0; i < expected.size(); i++) {
                assertStatesClose(expected.get(i), actual.get(i), where + "[" + i + "]");
            }
        }
    }
}
