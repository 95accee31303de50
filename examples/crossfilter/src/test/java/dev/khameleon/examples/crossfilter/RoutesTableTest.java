package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.spi.ClientPredictor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The second table, {@code views/flights-routes.json} (configuration only: the flights file's
 * date, airports and delays), through the same backend, replay and live server as the flights
 * views: its tiles against plain SQL over the CSV, the evaluation over the recorded sessions
 * replayed by view position, and a fresh session pushed every unfiltered tile.
 */
@Timeout(180)
class RoutesTableTest {
    private static Path csv;
    private static TileBackend db;
    private static TileCache cache;

    @BeforeAll
    static void load() throws Exception {
        csv = FlightsData.flightsCsv();
        db = TileBackend.duckDbCsv(Views.read(Path.of("views/flights-routes.json")), csv, 10_000, 1, 1);
        cache = TileCache.create(db);
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

    @Test
    void tiles_equalPlainGroupBysOverTheCsv() throws Exception {
        Views v = db.views();
        assertEquals(10_000, db.rows());
        // ORIGIN's top 12 in the file (ATL 1,007 ... MSP 213), most frequent first.
        assertEquals(List.of("ATL", "DFW", "CLT", "DEN", "BOS", "ORD", "DTW", "BWI", "SEA", "JFK", "LAX", "MSP"),
                ((Bins.Categories) v.view("ORIGIN").binning()).values());
        // DEP_DELAY brushed on [0, 30) min: pixels (0 + 30) * 350 / 120 = 87.5 .. 175, so [88, 175).
        // DISTANCE active, brushed on [500, 1000) mi: pixels 500 * 350 / 3000 = 58.3 .. 116.7, so [59, 117).
        // The pixel edges are at fractional values, so the SQL below uses the pixels' value edges.
        TileKey key = new TileKey(v.view("DISTANCE"), Filters.none(v).with(v.view("DEP_DELAY"), 88, 175));
        Slice origin = db.slice(key, v.view("ORIGIN"));
        int[] expected = new int[12];
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT ORIGIN, COUNT(*) FROM read_csv('" + csv + "', header = true)"
                        + " WHERE DEP_DELAY >= " + (-30 + 88 * 120.0 / 350) + " AND DEP_DELAY < " + (-30 + 175 * 120.0
                        / 350) + " AND DISTANCE >= " + 59 * 3000.0 / 350 + " AND DISTANCE < " + 117 * 3000.0 / 350
                        + " GROUP BY ORIGIN")) {
            List<String> top = ((Bins.Categories) v.view("ORIGIN").binning()).values();
            while (rs.next()) {
                int b = top.indexOf(rs.getString(1));
                if (b >= 0) {
                    expected[b] = rs.getInt(2);
                }
            }
        }
        assertTrue(java.util.Arrays.stream(expected).sum() > 100, "the brushes select rows: "
                + java.util.Arrays.toString(expected));
        assertArrayEquals(expected, origin.histogram(59, 117));
        // Every flight of the file is on 2016-12-01: FL_DATE's fourth day (from 2016-11-28) holds all rows.
        int[] days = db.slice(new TileKey(v.view("ORIGIN"), Filters.none(v)), v.view("FL_DATE")).totals();
        assertArrayEquals(new int[] {0, 0, 0, 10_000, 0, 0, 0}, days);
    }

    @Test
    void evaluation_replaysTheRecordedSessionsByViewPosition() throws Exception {
        List<Workflow> workflows = CrossfilterMain.onto(Workflows.readAll(FlightsData.workflows()), db.views());
        assertEquals(55, workflows.size());
        assertEquals(db.views(), workflows.get(0).events().get(0).view().views());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            new Evaluation(db, workflows, new Evaluation.Settings(2, 2, 5, 4,
                    TileEncoder.fittingBlockSize(db.views()), 1, 1, 100, Evaluation.Push.defaults(),
                    CrossfilterMain.DEFAULT_LEAD_MS, false), out).run();
        }
        String report = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("| On-demand (stale queries dropped) | 73,503 |"), report);
        assertTrue(report.contains("| Khameleon on hover (all mass on the current view) | 235 |"), report);
    }

    @Test
    void aFreshSession_isPushedEveryUnfilteredTile() throws Exception {
        List<Workflow> workflows = CrossfilterMain.onto(Workflows.readAll(FlightsData.workflows()), db.views());
        TileEncoder encoder = TileEncoder.fitting(db.views());
        ServingModel model = ServingModel.learn(workflows, cache, encoder, 2, 20, 42, 60);
        try (CrossfilterServer server = CrossfilterServer.start(cache, encoder, model, workflows, 0, 64);
                KhameleonClient<Integer> client = KhameleonClient.builder().predictor(new ClientPredictor<Integer>() {
                    @Override
                    public void onEvent(Integer event) {
                    }

                    @Override
                    public JsonNode state(long nowMillis) {
                        return JsonNodeFactory.instance.objectNode();
                    }
                }).uri(server.webSocketUri()).application(CrossfilterServer.APPLICATION).cacheBlocks(256)
                        .reconnect(false).build()) {
            client.connect().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (db.views().list().stream().anyMatch(v -> client.cache().prefixLength(v.index())
                    < encoder.blockCount(v)) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            for (View v : db.views()) {
                TileKey key = new TileKey(v, Filters.none(db.views()));
                assertEquals(cache.get(key).get(30, TimeUnit.SECONDS), TileDecoder.decode(db.views(),
                        client.cache().prefix(v.index())).toTile(), v + "'s pushed tile");
            }
        }
    }
}
