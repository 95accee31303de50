package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A running slice query of {@link JdbcTileBackend} is stopped through its {@link QueryCancel}
 * ({@code Statement.cancel()}), and its connection, the pool's only one, then serves the next
 * query. The {@code flights} table is a view that would take far longer than the test's timeout
 * (a billion-row scan on DuckDB, a long sleep on PostgreSQL), so only the cancel can end it.
 */
@Timeout(120)
class JdbcCancelTest {
    private static final TileKey KEY = new TileKey(FlightsViews.DISTANCE, FlightsViews.none());
    private static final View PASSIVE = FlightsViews.AIR_TIME;

    @Test
    void duckDb_aRunningSliceQueryIsCancelled_andTheConnectionServesTheNextQuery() throws Exception {
        Connection c = DriverManager.getConnection("jdbc:duckdb:");
        try (JdbcTileBackend backend = new JdbcTileBackend("duckdb", 4, List.of(c), 0, FlightsViews.VIEWS)) {
            cancelThenQueryAgain(backend, c,
                    "SELECT CAST(r % 350 AS INTEGER) AS px_distance, CAST(r % 25 AS INTEGER) AS bin_air_time"
                            + " FROM range(1000000000000) t(r)",
                    "SELECT CAST(r % 350 AS INTEGER) AS px_distance, CAST(r % 25 AS INTEGER) AS bin_air_time"
                            + " FROM range(1000) t(r)");
        }
    }

    @Test
    void postgres_aRunningSliceQueryIsCancelled_andTheConnectionServesTheNextQuery() throws Exception {
        Assumptions.assumeTrue(PostgresCluster.available(PostgresCluster.DEFAULT_BIN),
                "PostgreSQL binaries absent: " + PostgresCluster.DEFAULT_BIN);
        try (PostgresCluster cluster = PostgresCluster.start(PostgresCluster.DEFAULT_BIN)) {
            Connection c = DriverManager.getConnection(cluster.jdbcUrl(), PostgresCluster.USER, "");
            try (JdbcTileBackend backend = new JdbcTileBackend("postgresql", 15, List.of(c), 0, FlightsViews.VIEWS)) {
                cancelThenQueryAgain(backend, c,
                        "SELECT 0 AS px_distance, 0 AS bin_air_time FROM pg_sleep(3600)",
                        "SELECT g % 350 AS px_distance, g % 25 AS bin_air_time FROM generate_series(0, 999) g");
            }
        }
    }

    /**
     * With {@code flights} as {@code endless}: a slice query cancelled while it runs fails with
     * SQLState 57014 and the driver's own error as its cause; one cancelled before it starts fails
     * at once. Then, with {@code flights} as {@code small} (1,000 rows, every pixel and bin in
     * range), the next query through the backend counts them all.
     */
    private static void cancelThenQueryAgain(JdbcTileBackend backend, Connection c, String endless, String small)
            throws Exception {
        defineFlights(c, endless);
        QueryCancel cancel = new QueryCancel();
        CompletableFuture<Slice> running = new CompletableFuture<>();
        Thread query = new Thread(() -> {
            try {
                running.complete(backend.slice(KEY, PASSIVE, cancel));
            } catch (Throwable e) {
                running.completeExceptionally(e);
            }
        }, "slice-query");
        query.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cancel.isRunning() && !running.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(cancel.isRunning(), "the query started: " + cancel);
        assertTrue(cancel.cancel());
        ExecutionException e = assertThrows(ExecutionException.class, () -> running.get(60, TimeUnit.SECONDS));
        SQLException cancelled = assertInstanceOf(SQLException.class, e.getCause());
        assertEquals(QueryCancel.SQL_STATE, cancelled.getSQLState());
        assertNotNull(cancelled.getCause(), "stopped by the database, not answered and then refused");
        assertFalse(cancel.isRunning());

        QueryCancel early = new QueryCancel();
        early.cancel();
        SQLException refused = assertThrows(SQLException.class, () -> backend.slice(KEY, PASSIVE, early));
        assertEquals(QueryCancel.SQL_STATE, refused.getSQLState());
        assertNull(refused.getCause(), "never ran");

        defineFlights(c, small); // the pool's connection is idle again: the failed query gave it back
        int[] counts = backend.slice(KEY, PASSIVE).histogram(0, View.PIXELS);
        assertEquals(1000, Arrays.stream(counts).sum(), Arrays.toString(counts));
        assertEquals(1000 / PASSIVE.bins(), counts[0]);
    }

    private static void defineFlights(Connection c, String select) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP VIEW IF EXISTS flights");
            st.execute("CREATE VIEW flights AS " + select);
        }
    }
}
