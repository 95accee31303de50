package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.Rect;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianLayoutPredictor;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.server.Application;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live crossfilter over loopback with the Java client and DuckDB on the real 10,000 flights:
 * the predicted application predicts with the page layout and the recorded view transitions and
 * values blocks with the measured utility; a brush on one view rebinds the others, a hovered
 * view's pushed blocks decode to exactly the tile the database computes for those brushes, and
 * after the brush moves the answer is the new tile, never a block of the old one.
 */
@Timeout(120)
class CrossfilterServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static FlightsTable table;
    private static TileBackend db;
    private static TileCache cache;
    private static List<Workflow> workflows;
    private static ServingModel model;
    private CrossfilterServer server;
    private KhameleonClient<Integer> client;

    @BeforeAll
    static void load() throws Exception {
        table = FlightsTable.read(FlightsData.flightsCsv());
        db = TileBackend.duckDb(table, table.sample(table.size(), 42), 1);
        cache = TileCache.create(db);
        workflows = Workflows.readAll(FlightsData.workflows());
        model = ServingModel.learn(workflows, cache, TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE), 4,
                100, 42, 60);
    }

    private static CrossfilterServer start() throws Exception {
        return CrossfilterServer.start(cache, TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE), model,
                workflows, 0, 64);
    }

    private Application application(String name) {
        return server.applications().stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
    }

    /** A pointer resting at the centre of {@code view}'s chart, as the page's Kalman filter reports it. */
    private static JsonNode restingOn(View view) {
        Rect r = new PageLayout(6).bounds(view.index());
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : CrossfilterServer.HORIZONS) {
            hs.add(new GaussianAtHorizon(h, r.centerX(), r.centerY(), 4, 0, 4));
        }
        return new PointerForecast(r.centerX(), r.centerY(), hs).toJson();
    }

    @Test
    void thePredictedApplication_mixesTheLayoutForecastWithTheRecordedTransitions_andUsesTheMeasuredUtility()
            throws Exception {
        server = start();
        Application predicted = application(CrossfilterServer.APPLICATION);
        assertTrue(predicted.predictor() instanceof FirstViewPredictor p
                && p.delegate() instanceof GaussianLayoutPredictor, predicted.predictor().toString());
        // The measured utility, not the default linear one: a tenth of a tile draws far more than a tenth.
        for (double f = 0; f <= 1.0001; f += 0.05) {
            assertEquals(model.utility().function().utility(f), predicted.utility().utility(f), 1e-12, "U(" + f + ")");
        }
        assertTrue(predicted.utility().utility(0.1) > 0.5, "U(0.1) = " + predicted.utility().utility(0.1));

        // Resting on ARR_DELAY: half the mass stays there, half follows what users brushed after it.
        double w = model.priorWeight();
        double[] prior = model.prior().apply(FlightsViews.ARR_DELAY.index());
        Distribution d = predicted.predictor().decode(restingOn(FlightsViews.ARR_DELAY));
        for (View v : FlightsViews.values()) {
            double expected = (v == FlightsViews.ARR_DELAY ? 1 - w : 0) + w * prior[v.index()];
            assertEquals(expected, d.probability(0, v.index()), 1e-3, v + " at the first horizon");
        }
        // The recorded habit differs by view: the prior is not uniform.
        double max = java.util.Arrays.stream(prior).max().orElseThrow();
        double min = java.util.Arrays.stream(prior).min().orElseThrow();
        assertTrue(max > 2 * min, "transition prior after ARR_DELAY " + java.util.Arrays.toString(prior));

        Application onHover = application(CrossfilterServer.ON_HOVER_APPLICATION);
        assertEquals(1.0, onHover.predictor().decode(JsonNodeFactory.instance.objectNode().put("request",
                FlightsViews.AIR_TIME.index())).probability(0, FlightsViews.AIR_TIME.index()), 1e-12);
    }

    @Test
    void bothApplications_limitTheBackendToTheTilesWhoseQueriesFillTheCachesSlots() throws Exception {
        server = start();
        // DuckDB's cache runs 4 queries at once: one tile's five fill them.
        assertEquals(4, cache.maxConcurrentQueries());
        for (String name : List.of(CrossfilterServer.APPLICATION, CrossfilterServer.ON_HOVER_APPLICATION)) {
            assertEquals(1, application(name).backendConcurrency(), name);
        }
        int[][] slotsToTiles = {{1, 1}, {4, 1}, {5, 1}, {6, 2}, {10, 2}, {11, 3}, {15, 3}, {16, 4}};
        for (int[] st : slotsToTiles) {
            try (TileCache c = TileCache.create(new LatchedBackend(true), st[0], 1, 1)) {
                assertEquals(st[1], CrossfilterServer.backendConcurrency(c), st[0] + " query slots");
            }
        }
    }

    @Test
    void aFreshSession_isPushedTheViewsUsersBrushFirst_fromTheUnfilteredTilesComputedAtStartUp() throws Exception {
        server = start();
        // Pinned at start: computed without any session asking, and kept.
        CrossfilterServer.startupTiles(cache).get(60, TimeUnit.SECONDS);
        for (View v : FlightsViews.values()) {
            assertNotNull(cache.getIfPresent(new TileKey(v, FlightsViews.none())), v + "'s unfiltered tile");
        }
        // The first plan and the page's state before it has seen the pointer ({}): the recorded first views,
        // AIR_TIME 18 and DISTANCE 17 of the 55 sessions' first brushes, add-one smoothed.
        Application predicted = application(CrossfilterServer.APPLICATION);
        Distribution initial = predicted.initialDistribution().orElseThrow();
        Distribution empty = predicted.predictor().decode(JsonNodeFactory.instance.objectNode());
        double[] first = ServingModel.firstViews(FlightsViews.VIEWS, workflows);
        assertEquals(19.0 / 61, first[FlightsViews.AIR_TIME.index()], 1e-12);
        assertEquals(3.0 / 61, first[FlightsViews.ARR_TIME.index()], 1e-12);
        for (View v : FlightsViews.values()) {
            for (int j = 0; j < CrossfilterServer.HORIZONS.length; j++) {
                assertEquals(first[v.index()], initial.probability(j, v.index()), 1e-12, v + " first plan");
                assertEquals(first[v.index()], empty.probability(j, v.index()), 1e-12, v + " state {}");
            }
        }

        // A client that has not moved the pointer nor brushed gets every view's unfiltered tile pushed.
        client = KhameleonClient.builder().predictor(new ClientPredictor<Integer>() {
            @Override
            public void onEvent(Integer event) {
            }

            @Override
            public JsonNode state(long nowMillis) {
                return JsonNodeFactory.instance.objectNode();
            }
        }).uri(server.webSocketUri()).application(CrossfilterServer.APPLICATION).cacheBlocks(256).reconnect(false)
                .build();
        client.connect().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Arrays.stream(FlightsViews.values()).anyMatch(v -> client.cache().prefixLength(v.index()) == 0)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        for (View v : FlightsViews.values()) {
            assertTrue(client.cache().prefixLength(v.index()) > 0, v + "'s block 0 was pushed");
            assertEquals(new TileKey(v, FlightsViews.none()), TileDecoder.decode(FlightsViews.VIEWS, client.cache().prefix(v.index())).key());
        }
    }

    @AfterAll
    static void unload() throws Exception {
        if (cache != null) {
            cache.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** The client half of the point predictor: the view under the pointer. */
    private static final class Hover implements ClientPredictor<Integer> {
        private volatile int view = -1;

        @Override
        public void onEvent(Integer event) {
            view = event;
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", view);
        }
    }

    /** What the database answers for {@code key}, slice by slice, without the cache or the server. */
    private static Tile expected(TileKey key) throws Exception {
        List<Slice> slices = new ArrayList<>();
        for (View passive : Tile.passives(key.active())) {
            slices.add(db.slice(key, passive));
        }
        return new Tile(key, slices);
    }

    /** Asks for {@code view}; asserts every answer is a prefix of the tile of {@code key}; returns the complete one. */
    private Tile hoverAndRead(View view, TileKey key) throws Exception {
        client.onEvent(view.index());
        LinkedBlockingQueue<Response> answers = new LinkedBlockingQueue<>();
        client.request(view.index(), answers::add);
        Response last;
        do {
            last = answers.poll(60, TimeUnit.SECONDS);
            assertNotNull(last, view + " is answered");
            assertEquals(key, TileDecoder.decode(FlightsViews.VIEWS, last.blocks()).key(),
                    "every answer of " + view + " is its tile under the current brushes");
        } while (!last.isComplete());
        return TileDecoder.decode(FlightsViews.VIEWS, last.blocks()).toTile();
    }

    private HttpResponse<String> get(String pathAndQuery) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.pageUri().resolve(pathAndQuery)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void onDemandHistogramsAndRecordedSessions_areServedOverHttp_badQueriesAre400() throws Exception {
        server = start();
        HttpResponse<String> ok = get("histograms?active=DISTANCE&scope=" + encode("{\"DISTANCE\": [0, 100],"
                + " \"AIR_TIME\": [20, 200]}"));
        assertEquals(200, ok.statusCode(), ok.body());
        JsonNode h = JSON.readTree(ok.body());
        assertEquals(5, h.size(), "every view but the active one: " + ok.body());
        Filters filters = FlightsViews.none().with(FlightsViews.DISTANCE, 0, 100).with(FlightsViews.AIR_TIME, 20, 200);
        for (View v : Tile.passives(FlightsViews.DISTANCE)) {
            int[] shown = new int[h.get(v.name()).size()];
            for (int k = 0; k < shown.length; k++) {
                shown[k] = h.get(v.name()).get(k).intValue();
            }
            assertArrayEquals(db.histogram(v, filters), shown, v.name());
        }
        assertEquals(6, JSON.readTree(get("histograms?active=&scope=" + encode("{}")).body()).size());

        assertEquals(400, get("histograms?active=NOPE&scope=" + encode("{}")).statusCode());
        assertEquals(400, get("histograms?active=DISTANCE&scope=" + encode("{\"DISTANCE\": [5, 1]}")).statusCode());
        assertEquals(400, get("histograms?active=DISTANCE&scope=" + encode("[1")).statusCode());
        assertEquals(400, get("histograms?active=DISTANCE").statusCode(), "scope is required");
        assertEquals(400, get("histograms").statusCode());
        assertEquals(400, get("histograms?active=&scope=" + "x".repeat(CrossfilterServer.MAX_QUERY_LENGTH))
                .statusCode(), "a query string over the limit");

        JsonNode sessions = JSON.readTree(get("workflows.json").body());
        assertEquals(workflows.size(), sessions.size());
        JsonNode events = JSON.readTree(get("workflow/3.json").body()).get("events");
        Workflow w = workflows.get(3);
        assertEquals(w.events().size(), events.size());
        BrushEvent last = w.events().get(w.events().size() - 1);
        JsonNode row = events.get(events.size() - 1);
        assertEquals(List.of(last.timeMs(), (long) last.view().index(), (long) last.from(), (long) last.to()),
                List.of(row.get(0).longValue(), row.get(1).longValue(), row.get(2).longValue(), row.get(3).longValue()));
        assertEquals(404, get("workflow/" + workflows.size() + ".json").statusCode());
        assertEquals(404, get("workflow/x.json").statusCode());
        assertEquals(404, get("workflow/99999999999.json").statusCode());
    }

    @Test
    void rowCountsAndInfo_giveTheSelectedRows_theTablesRows_andEachViewsTitleAndUnit() throws Exception {
        server = start();
        Filters filters = FlightsViews.none().with(FlightsViews.DISTANCE, 20, 120).with(FlightsViews.DEP_DELAY, 100, 300);
        long expected = java.util.stream.IntStream.range(0, table.size())
                .filter(r -> filters.accepts(table.row(r), null, null)).count();
        HttpResponse<String> ok = get("count?scope=" + encode("{\"DISTANCE\": [20, 120], \"DEP_DELAY\": [100, 300]}"));
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(expected, JSON.readTree(ok.body()).get("rows").longValue(), "counted row by row in Java");
        assertTrue(expected > 0 && expected < table.size(), "the brushes select some rows: " + expected);
        assertEquals(table.size(), JSON.readTree(get("count?scope=" + encode("{}")).body()).get("rows").longValue());
        assertEquals(400, get("count?scope=" + encode("{\"NOPE\": [0, 1]}")).statusCode());
        assertEquals(400, get("count").statusCode(), "scope is required");

        JsonNode info = JSON.readTree(get("info.json").body());
        assertEquals(table.size(), info.get("rows").longValue());
        for (View v : FlightsViews.values()) {
            JsonNode view = info.get("views").get(v.index());
            assertEquals(List.of(v.name(), v.title(), v.unit()), List.of(view.get("name").asText(),
                    view.get("title").asText(), view.get("unit").asText()));
        }
        assertEquals("Departure delay (min)", FlightsViews.DEP_DELAY.label());
    }

    @Test
    void onDemandHistograms_whenTheQueryQueueIsFull_are503() throws Exception {
        TileCacheTest.GatedBackend gated = new TileCacheTest.GatedBackend();
        try (TileCache small = TileCache.create(gated, 1, 4, 1)) {
            server = CrossfilterServer.start(small, TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE), model,
                    workflows, 0, 64);
            // Six queries: one runs, one waits, the third does not fit.
            HttpResponse<String> full = get("histograms?active=&scope=" + encode("{}"));
            assertEquals(503, full.statusCode(), full.body());
            assertTrue(full.body().contains("queue full"), full.body());
            gated.release.countDown();
        }
    }

    @Test
    void aHoveredView_getsTheTileOfTheCurrentBrushes_andTheNewOneAfterTheBrushMoves() throws Exception {
        server = start();
        LinkedBlockingQueue<int[]> rebinds = new LinkedBlockingQueue<>();
        client = KhameleonClient.builder().predictor(new Hover()).uri(server.onHoverWebSocketUri())
                .application(CrossfilterServer.ON_HOVER_APPLICATION).cacheBlocks(256).reconnect(false)
                .listener(new ClientListener() {
                    @Override
                    public void onRebind(int[] requestIds) {
                        rebinds.add(requestIds.clone());
                    }
                })
                .build();
        client.connect().get(30, TimeUnit.SECONDS);

        Tile tileBefore = brushDistanceAndReadArrDelay(rebinds, 0, 100);
        Tile tileAfter = brushDistanceAndReadArrDelay(rebinds, 100, 200);
        assertNotEquals(tileBefore, tileAfter, "the two brushes select different flights");
    }

    /**
     * Brushes DISTANCE over {@code [from, to)}; asserts the other five views are rebound and that
     * ARR_DELAY's pushed tile is exactly the database's for that brush; returns that tile.
     */
    private Tile brushDistanceAndReadArrDelay(LinkedBlockingQueue<int[]> rebinds, int from, int to) throws Exception {
        client.scope(JSON.readTree("{\"DISTANCE\": [" + from + ", " + to + "]}"));
        int[] rebound = rebinds.poll(30, TimeUnit.SECONDS);
        assertNotNull(rebound, "the brush " + from + ".." + to + " rebinds the other views");
        assertArrayEquals(Arrays.stream(FlightsViews.values()).filter(v -> v != FlightsViews.DISTANCE).mapToInt(View::index)
                .toArray(), rebound);
        TileKey key = new TileKey(FlightsViews.ARR_DELAY, FlightsViews.none().with(FlightsViews.DISTANCE, from, to));
        Tile tile = hoverAndRead(FlightsViews.ARR_DELAY, key);
        assertEquals(expected(key), tile);
        return tile;
    }
}
