package dev.khameleon.examples.crossfilter;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link TileBackend} over JDBC: the same SQL on DuckDB (embedded, in memory) and PostgreSQL.
 * The flights table is built in the database from the base rows and a list of sampled row
 * numbers ({@link FlightsTable#sample}), so both databases hold exactly the same rows.
 *
 * <p>A slice query is cancelled with {@code Statement.cancel()}, which both drivers accept from
 * another thread while the statement executes (DuckDB interrupts the connection's query, and only
 * while that statement runs one; PostgreSQL's driver sends a cancel request on a new connection).
 * The cancel runs on this backend's own canceller thread, never on the caller's. The cancelled
 * query fails, its statement is closed and its connection returns to the pool ready for the next
 * query (queries run in autocommit mode, so no transaction is left aborted).
 */
final class JdbcTileBackend implements TileBackend {
    private static final String COLUMNS = "fl_date, origin, dest, dep_time, dep_delay, arr_time, arr_delay, air_time, distance";

    /** The numeric columns in the order of {@link #COLUMNS}. */
    private static final View[] COLUMN_ORDER =
            {View.DEP_TIME, View.DEP_DELAY, View.ARR_TIME, View.ARR_DELAY, View.AIR_TIME, View.DISTANCE};

    /** How often a cancelled query's {@code Statement.cancel()} is repeated until the query is back. */
    static final long CANCEL_RETRY_MILLIS = 20;

    private final String name;
    private final int defaultConcurrency;
    private final BlockingQueue<Connection> pool;
    private final List<Connection> all;
    private final long rows;
    /** Runs {@code Statement.cancel()}, which may be slow (PostgreSQL's opens a connection), off the caller's thread. */
    private final ScheduledThreadPoolExecutor canceller;

    /**
     * A backend over {@code connections} to a database that already holds the flights table, with
     * its pixel and bin columns; it owns them from now on. The factories below build that table;
     * tests pass a database of their own.
     */
    JdbcTileBackend(String name, int defaultConcurrency, List<Connection> connections, long rows) {
        this.name = name;
        this.defaultConcurrency = defaultConcurrency;
        this.all = List.copyOf(connections);
        this.pool = new ArrayBlockingQueue<>(connections.size(), false, connections);
        this.rows = rows;
        this.canceller = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jdbc-cancel-" + name);
            t.setDaemon(true);
            return t;
        });
        canceller.setRemoveOnCancelPolicy(true);
        // No thread lingers while nothing is cancelled; a task's delay (the retry interval) is far
        // below the keep-alive, and scheduling one starts a thread if none is left.
        canceller.setKeepAliveTime(30, TimeUnit.SECONDS);
        canceller.allowCoreThreadTimeOut(true);
    }

    /** An in-memory DuckDB database with the table {@code sample} makes of {@code table}. */
    static JdbcTileBackend duckDb(FlightsTable table, int[] sample, int connections) throws SQLException {
        checkConnections(connections);
        Connection first = DriverManager.getConnection("jdbc:duckdb:");
        List<Connection> conns = new ArrayList<>();
        conns.add(first);
        try {
            DuckDBConnection duck = first.unwrap(DuckDBConnection.class);
            createBase(first, "DOUBLE");
            try (Statement st = first.createStatement()) {
                st.execute("CREATE TABLE flights_sample (rid INTEGER)");
            }
            // Row-by-row INSERTs take DuckDB seconds for 10k rows; the appender takes milliseconds.
            try (DuckDBAppender appender = duck.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "flights_base")) {
                for (int r = 0; r < table.size(); r++) {
                    appender.beginRow();
                    appender.append(r).append(table.date(r)).append(table.origin(r)).append(table.destination(r));
                    for (View v : COLUMN_ORDER) {
                        double x = table.value(v, r);
                        if (Double.isNaN(x)) {
                            appender.appendNull();
                        } else {
                            appender.append(x);
                        }
                    }
                    appender.endRow();
                }
            }
            try (DuckDBAppender appender = duck.createAppender(DuckDBConnection.DEFAULT_SCHEMA, "flights_sample")) {
                for (int rid : sample) {
                    appender.beginRow();
                    appender.append(rid);
                    appender.endRow();
                }
            }
            long rows = buildFlights(first);
            for (int i = 1; i < connections; i++) {
                conns.add(duck.duplicate());
            }
            return new JdbcTileBackend("duckdb", 4, conns, rows);
        } catch (SQLException | RuntimeException e) {
            closeAll(conns, e);
            throw e;
        }
    }

    /** A PostgreSQL database at {@code url} into which the table is loaded (replacing any earlier one). */
    static JdbcTileBackend postgres(String url, String user, FlightsTable table, int[] sample, int connections)
            throws SQLException {
        checkConnections(connections);
        List<Connection> conns = new ArrayList<>();
        try {
            Connection first = DriverManager.getConnection(url, user, "");
            conns.add(first);
            try (Statement st = first.createStatement()) {
                st.execute("DROP TABLE IF EXISTS flights");
                st.execute("DROP TABLE IF EXISTS flights_sample");
                st.execute("DROP TABLE IF EXISTS flights_base");
            }
            createBase(first, "DOUBLE PRECISION");
            insertBase(first, table);
            try (Statement st = first.createStatement()) {
                st.execute("CREATE TABLE flights_sample (rid INTEGER)");
            }
            StringBuilder text = new StringBuilder(sample.length * 5);
            for (int rid : sample) {
                text.append(rid).append('\n');
            }
            try {
                first.unwrap(PGConnection.class).getCopyAPI()
                        .copyIn("COPY flights_sample FROM STDIN", new StringReader(text.toString()));
            } catch (IOException e) {
                throw new SQLException("copying the sample into PostgreSQL failed", e);
            }
            long rows = buildFlights(first);
            try (Statement st = first.createStatement()) {
                st.execute("ANALYZE flights");
            }
            for (int i = 1; i < connections; i++) {
                conns.add(DriverManager.getConnection(url, user, ""));
            }
            return new JdbcTileBackend("postgresql", 15, conns, rows);
        } catch (SQLException | RuntimeException e) {
            closeAll(conns, e);
            throw e;
        }
    }

    private static void checkConnections(int connections) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, was " + connections);
        }
    }

    private static void createBase(Connection c, String doubleType) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE flights_base (rid INTEGER, fl_date INTEGER, origin VARCHAR(8), dest VARCHAR(8), "
                    + "dep_time " + doubleType + ", dep_delay " + doubleType + ", arr_time " + doubleType
                    + ", arr_delay " + doubleType + ", air_time " + doubleType + ", distance " + doubleType + ")");
        }
    }

    private static void insertBase(Connection c, FlightsTable table) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO flights_base (rid, " + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int r = 0; r < table.size(); r++) {
                ps.setInt(1, r);
                ps.setInt(2, table.date(r));
                ps.setString(3, table.origin(r));
                ps.setString(4, table.destination(r));
                for (int i = 0; i < COLUMN_ORDER.length; i++) {
                    double x = table.value(COLUMN_ORDER[i], r);
                    if (Double.isNaN(x)) {
                        ps.setNull(5 + i, Types.DOUBLE);
                    } else {
                        ps.setDouble(5 + i, x);
                    }
                }
                ps.addBatch();
                if (r % 1000 == 999) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
            c.commit();
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static long buildFlights(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            // Each view's pixel and bin are computed once here, so that filters and groups in the
            // queries compare small integers instead of evaluating FLOOR on every row again.
            StringBuilder derived = new StringBuilder();
            for (View v : View.values()) {
                derived.append(", CAST(").append(v.pixelSql().replace(v.column(), "b." + v.column()))
                        .append(" AS INTEGER) AS ").append(v.pixelColumn()).append(", CAST(")
                        .append(v.binSql().replace(v.column(), "b." + v.column())).append(" AS INTEGER) AS ")
                        .append(v.binColumn());
            }
            st.execute("CREATE TABLE flights AS SELECT " + prefixed("b.") + derived + " FROM flights_sample s "
                    + "JOIN flights_base b ON s.rid = b.rid");
            try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM flights")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String prefixed(String prefix) {
        return prefix + COLUMNS.replace(", ", ", " + prefix);
    }

    private static void closeAll(List<Connection> conns, Exception cause) {
        for (Connection c : conns) {
            try {
                c.close();
            } catch (SQLException e) {
                cause.addSuppressed(e);
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public int connections() {
        return all.size();
    }

    @Override
    public int defaultConcurrency() {
        return defaultConcurrency;
    }

    /** SQL of the slice query; package-private so tests can read it. */
    static String sliceSql(TileKey key, View passive) {
        View a = key.active();
        if (passive == a) {
            throw new IllegalArgumentException(passive + " is the active view of the tile, not a passive one");
        }
        String pixel = a.pixelColumn();
        String bin = passive.binColumn();
        return "SELECT CASE WHEN " + pixel + " >= 0 AND " + pixel + " < " + View.PIXELS + " THEN " + pixel
                + " ELSE -1 END AS p, " + bin + " AS b, COUNT(*) AS n FROM flights WHERE " + bin + " >= 0 AND "
                + bin + " < " + passive.bins() + " AND " + key.filters().sqlExcept(a, passive) + " GROUP BY 1, 2";
    }

    /** SQL of the on-demand histogram query. */
    static String histogramSql(View passive, Filters filters) {
        String bin = passive.binColumn();
        return "SELECT " + bin + " AS b, COUNT(*) AS n FROM flights WHERE " + bin + " >= 0 AND " + bin + " < "
                + passive.bins() + " AND " + filters.sqlExcept(passive, passive) + " GROUP BY 1";
    }

    /** SQL of the count query: the rows passing every brush. */
    static String countSql(Filters filters) {
        return "SELECT COUNT(*) FROM flights WHERE " + filters.sqlExcept(null, null);
    }

    @Override
    public Slice slice(TileKey key, View passive) throws SQLException {
        return slice(key, passive, new QueryCancel());
    }

    @Override
    public Slice slice(TileKey key, View passive, QueryCancel cancel) throws SQLException {
        String sql = sliceSql(key, passive);
        String what = "slice " + passive + " of " + key;
        if (cancel.isCancelled()) {
            throw QueryCancel.cancelled(what, null); // not even a wait for a connection
        }
        long[][] counts = new long[View.PIXELS][passive.bins()];
        long[] outside = new long[passive.bins()];
        Connection c = borrow();
        try (Statement st = c.createStatement()) {
            RunningQuery running = new RunningQuery(st);
            if (!cancel.start(running::stop)) {
                throw QueryCancel.cancelled(what, null);
            }
            try (ResultSet rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    int p = rs.getInt(1);
                    int b = rs.getInt(2);
                    long n = rs.getLong(3);
                    if (p < 0) {
                        outside[b] += n;
                    } else {
                        counts[p][b] += n;
                    }
                }
            } catch (SQLException e) {
                if (cancel.isCancelled()) {
                    throw QueryCancel.cancelled(what, e); // the driver's own words differ: DuckDB's is a timeout
                }
                throw e;
            } finally {
                cancel.end();
                running.end();
            }
        } finally {
            pool.add(c); // after running.end(): no cancel of this query can reach the next one
        }
        if (cancel.isCancelled()) {
            throw QueryCancel.cancelled(what, null); // it finished first, but nobody wants it: say so, always
        }
        return Slice.fromPixelCounts(passive, counts, outside);
    }

    /**
     * One running query's statement, stopped through its {@link QueryCancel}. {@link #stop} hands
     * {@code Statement.cancel()} to the canceller thread and repeats it every
     * {@value #CANCEL_RETRY_MILLIS} ms until the query is back: a cancel that reaches a driver
     * before the statement executes does nothing there (both drivers cancel only a statement
     * under way), so a single one could be lost. {@link #end} waits for an attempt under way,
     * so that none reaches the connection once the query has returned it to the pool.
     */
    private final class RunningQuery {
        private final Statement statement;
        private final AtomicBoolean stopping = new AtomicBoolean();
        private volatile ScheduledFuture<?> attempts;
        /** The query is back; guarded by {@code this}. */
        private boolean ended;

        RunningQuery(Statement statement) {
            this.statement = statement;
        }

        /** The query's stopper: never blocks. */
        void stop() {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            try {
                attempts = canceller.scheduleWithFixedDelay(this::attempt, 0, CANCEL_RETRY_MILLIS,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // The backend is closing: closing its connections ends the query.
            }
        }

        private synchronized void attempt() {
            if (ended) {
                stopAttempts(); // an attempt that ran before attempts was set ends it here
                return;
            }
            try {
                statement.cancel();
            } catch (SQLException | RuntimeException e) {
                // DuckDB closes a statement it interrupted: the query is ending, and end() stops the attempts.
            }
        }

        /** The query is back, on its own thread: waits for an attempt under way, then allows no more. */
        void end() {
            synchronized (this) {
                ended = true;
            }
            stopAttempts();
        }

        private void stopAttempts() {
            ScheduledFuture<?> a = attempts;
            if (a != null) {
                a.cancel(false);
            }
        }
    }

    @Override
    public int[] histogram(View passive, Filters filters) throws SQLException {
        String sql = histogramSql(passive, filters);
        int[] h = new int[passive.bins()];
        Connection c = borrow();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                h[rs.getInt(1)] = Math.toIntExact(rs.getLong(2));
            }
        } finally {
            pool.add(c);
        }
        return h;
    }

    @Override
    public long count(Filters filters) throws SQLException {
        Connection c = borrow();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(countSql(filters))) {
            rs.next();
            return rs.getLong(1);
        } finally {
            pool.add(c);
        }
    }

    private Connection borrow() throws SQLException {
        try {
            return pool.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a " + name + " connection", e);
        }
    }

    @Override
    public void close() throws SQLException {
        canceller.shutdownNow();
        SQLException first = null;
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (SQLException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
