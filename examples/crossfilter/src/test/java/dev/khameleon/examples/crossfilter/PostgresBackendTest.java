package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The same SQL on a throw-away PostgreSQL cluster gives the same slices as the count in Java. */
class PostgresBackendTest {
    private static FlightsTable table;
    private static PostgresCluster cluster;
    private static TileBackend backend;

    @BeforeAll
    static void start() throws Exception {
        table = FlightsTable.read(FlightsData.flightsCsv());
        Assumptions.assumeTrue(PostgresCluster.available(PostgresCluster.DEFAULT_BIN),
                "PostgreSQL binaries absent: " + PostgresCluster.DEFAULT_BIN);
        cluster = PostgresCluster.start(PostgresCluster.DEFAULT_BIN);
        backend = TileBackend.postgres(cluster.jdbcUrl(), PostgresCluster.USER, table, table.sample(table.size(), 1), 2);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (backend != null) {
                backend.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void slicesAndHistograms_equalCountOverRows() throws Exception {
        assertEquals(10_000, backend.rows());
        assertEquals(15, backend.defaultConcurrency());
        Filters f = DuckDbBackendTest.FILTERS.get(2);
        for (View active : List.of(FlightsViews.DISTANCE, FlightsViews.ARR_DELAY)) {
            TileKey key = new TileKey(active, f);
            for (View passive : Tile.passives(active)) {
                Slice expected = JavaCounts.slice(table, key, passive);
                assertEquals(expected, backend.slice(key, passive), key + " passive " + passive);
                assertArrayEquals(expected.histogram(35, 210), backend.histogram(passive, f.with(active, 35, 210)));
            }
            Filters all = f.with(active, 35, 210);
            assertEquals(java.util.stream.IntStream.range(0, table.size()).filter(r -> all.accepts(table.row(r), null,
                    null)).count(), backend.count(all), "rows passing every brush");
        }
    }
}
