package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The SQL of the slice and histogram queries, checked against a count over the rows in Java. */
class DuckDbBackendTest {
    private static FlightsTable table;
    private static TileBackend backend;

    @BeforeAll
    static void load() throws Exception {
        table = FlightsTable.read(FlightsData.flightsCsv());
        backend = TileBackend.duckDb(table, table.sample(table.size(), 1), 2);
    }

    @AfterAll
    static void close() throws Exception {
        if (backend != null) {
            backend.close();
        }
    }

    static final List<Filters> FILTERS = List.of(
            FlightsViews.none(),
            FlightsViews.none().with(FlightsViews.DEP_DELAY, 35, 210).with(FlightsViews.DISTANCE, 70, 71),
            FlightsViews.none().with(FlightsViews.ARR_TIME, 100, 300).with(FlightsViews.AIR_TIME, 0, 120).with(FlightsViews.DISTANCE, 14, 140));

    @Test
    void loads_everyRow() {
        assertEquals(10_000, backend.rows());
        assertEquals("duckdb", backend.name());
        assertEquals(4, backend.defaultConcurrency());
    }

    @Test
    void slice_equalsCountOverRows() throws Exception {
        for (Filters f : FILTERS) {
            for (View active : FlightsViews.values()) {
                TileKey key = new TileKey(active, f);
                for (View passive : Tile.passives(active)) {
                    assertEquals(JavaCounts.slice(table, key, passive), backend.slice(key, passive),
                            key + " passive " + passive);
                }
            }
        }
    }

    @Test
    void tileRowsDifference_equalsOnDemandHistogram() throws Exception {
        Filters others = FILTERS.get(2);
        for (View active : List.of(FlightsViews.DISTANCE, FlightsViews.DEP_DELAY)) {
            TileKey key = new TileKey(active, others);
            for (int[] brush : new int[][] {{70, 71}, {0, 350}, {35, 210}, {5, 5}}) {
                Filters all = others.with(active, brush[0], brush[1]);
                for (View passive : Tile.passives(active)) {
                    assertArrayEquals(backend.histogram(passive, all),
                            backend.slice(key, passive).histogram(brush[0], brush[1]),
                            active + " " + brush[0] + ".." + brush[1] + " -> " + passive);
                }
            }
        }
    }

    @Test
    void tileCache_overDuckDb_computesTheTileOfEveryPassiveView() throws Exception {
        TileKey key = new TileKey(FlightsViews.AIR_TIME, FILTERS.get(1));
        try (TileCache cache = TileCache.create(backend)) {
            Tile tile = cache.get(key).get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(JavaCounts.tile(table, key), tile);
            assertEquals(1, cache.computations());
        }
    }

    @Test
    void slice_rejectsActiveAsPassive() {
        assertThrows(IllegalArgumentException.class,
                () -> backend.slice(new TileKey(FlightsViews.DISTANCE, FlightsViews.none()), FlightsViews.DISTANCE));
    }
}
