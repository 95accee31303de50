package dev.khameleon.examples.crossfilter;

import java.sql.SQLException;

/**
 * A database holding the table of a {@link Views} configuration that answers the crossfilter's two kinds of query, each
 * with one SQL {@code GROUP BY}: a {@link Slice} of a tile (Falcon) and a single histogram
 * (on-demand).
 *
 * <p>Implementations are thread-safe and hold a fixed pool of connections; a call blocks (off
 * any event loop) until a connection is free, so at most {@link #connections()} queries run at
 * once. Callers that need a tighter bound (the {@link TileCache}) impose it themselves.
 */
public interface TileBackend extends AutoCloseable {

    /**
     * An embedded, in-memory DuckDB database holding the table of the flights views
     * ({@link Views#flights()}) that {@code sample} (row numbers of {@code table}, see
     * {@link FlightsTable#sample}) makes, with {@code connections} connections. Needs no set-up;
     * the database disappears on {@link #close()}.
     *
     * @throws IllegalArgumentException if {@code connections < 1}
     * @throws SQLException if loading fails
     */
    static TileBackend duckDb(FlightsTable table, int[] sample, int connections) throws SQLException {
        return duckDb(Views.flights(), table, sample, connections);
    }

    /**
     * As {@link #duckDb(FlightsTable, int[], int)}, the table of {@code views} (whose columns are
     * flights columns, {@link Views.Reader#FLIGHTS}); top-K categories are resolved against the
     * 10,000 base rows ({@link #views()}).
     *
     * @throws IllegalArgumentException if {@code connections < 1}
     * @throws SQLException if loading fails
     */
    static TileBackend duckDb(Views views, FlightsTable table, int[] sample, int connections) throws SQLException {
        return TableLoader.duckDb(views, table, sample, connections);
    }

    /**
     * An embedded, in-memory DuckDB database holding the table of {@code views} read from
     * {@code csv} by DuckDB's CSV reader ({@link Views.Reader#CSV}: each view's column typed by its
     * bins, numbers as {@code DOUBLE}, dates as {@code DATE} or {@code TIMESTAMP}, categories as
     * {@code VARCHAR}; the source's date and timestamp formats), resampled to {@code rows} rows
     * with {@code seed} as {@link FlightsTable#sample(int, int, long)} does. Top-K categories are
     * resolved against the file's rows ({@link #views()}).
     *
     * @throws IllegalArgumentException if {@code connections < 1}, {@code rows < 1}, the file is
     *     missing or {@code views} has no source
     * @throws SQLException if reading or loading fails (e.g. a value that is not of its type)
     */
    static TileBackend duckDbCsv(Views views, java.nio.file.Path csv, int rows, long seed, int connections)
            throws SQLException {
        return TableLoader.duckDbCsv(views, csv, rows, seed, connections);
    }

    /**
     * A PostgreSQL database at {@code jdbcUrl} (e.g. a {@link PostgresCluster}) into which the
     * table is loaded, replacing tables named {@code flights}, {@code flights_base} and
     * {@code flights_sample}; {@code connections} connections as {@code user} without password.
     *
     * @throws IllegalArgumentException if {@code connections < 1}
     * @throws SQLException if connecting or loading fails
     */
    static TileBackend postgres(String jdbcUrl, String user, FlightsTable table, int[] sample, int connections)
            throws SQLException {
        return postgres(jdbcUrl, user, Views.flights(), table, sample, connections);
    }

    /**
     * As {@link #postgres(String, String, FlightsTable, int[], int)}, the table of {@code views}
     * (flights columns), replacing tables named after {@code views.table()}.
     *
     * @throws IllegalArgumentException if {@code connections < 1}
     * @throws SQLException if connecting or loading fails
     */
    static TileBackend postgres(String jdbcUrl, String user, Views views, FlightsTable table, int[] sample,
            int connections) throws SQLException {
        return TableLoader.postgres(jdbcUrl, user, views, table, sample, connections);
    }

    /** A short name for reports ("duckdb", "postgresql"). */
    String name();

    /**
     * The configuration of the table this backend holds, resolved: its top-K categories are the
     * loaded data's. Tiles, filters and sessions are over these views.
     */
    Views views();

    /** Number of rows in the table. */
    long rows();

    /** Size of the connection pool: the most queries this backend runs at once. */
    int connections();

    /**
     * The concurrency this kind of database sustains before its queries slow each other down,
     * the default bound of a {@link TileCache} over it: 4 for DuckDB (it already parallelises
     * one query over the cores), 15 for PostgreSQL (the Khameleon paper's measurement).
     */
    int defaultConcurrency();

    /**
     * Computes the slice of passive view {@code passive} for the tile {@code key}: one query
     * grouping by (active pixel, passive bin) over the rows that pass every brush except those
     * of the active and the passive view.
     *
     * @throws IllegalArgumentException if {@code passive} is the active view
     * @throws SQLException on a database error
     */
    Slice slice(TileKey key, View passive) throws SQLException;

    /**
     * As {@link #slice(TileKey, View)}, cancellable through {@code cancel} from any thread: once it
     * is cancelled the call throws {@link QueryCancel#cancelled}'s exception (SQLState
     * {@value QueryCancel#SQL_STATE}) and returns no slice; cancelled before it starts, the query
     * never runs. A backend that can stop a running query overrides this and stops it, leaving
     * its connection usable for the next query. The default cannot: it runs the query to its end.
     *
     * @throws IllegalArgumentException if {@code passive} is the active view
     * @throws SQLException on a database error or when cancelled
     */
    default Slice slice(TileKey key, View passive, QueryCancel cancel) throws SQLException {
        if (!cancel.start(() -> { })) {
            throw QueryCancel.cancelled("slice " + passive + " of " + key, null);
        }
        Slice s;
        try {
            s = slice(key, passive);
        } finally {
            cancel.end();
        }
        if (cancel.isCancelled()) {
            throw QueryCancel.cancelled("slice " + passive + " of " + key, null);
        }
        return s;
    }

    /**
     * The histogram {@code passive} shows under {@code filters}: counts per bin of the rows that
     * pass every brush except {@code passive}'s own (the on-demand query).
     *
     * @throws SQLException on a database error
     */
    int[] histogram(View passive, Filters filters) throws SQLException;

    /**
     * How many rows pass every brush of {@code filters} (the page's "N of M rows selected" when no
     * chart's bars can give it).
     *
     * @throws SQLException on a database error
     */
    long count(Filters filters) throws SQLException;

    /** Closes every connection (and, for an embedded database, drops it). */
    @Override
    void close() throws SQLException;
}
