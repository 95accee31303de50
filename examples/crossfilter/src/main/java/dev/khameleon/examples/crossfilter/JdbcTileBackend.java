package dev.khameleon.examples.crossfilter;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link TileBackend} over JDBC: the same SQL on DuckDB (embedded, in memory) and PostgreSQL,
 * over the table of a {@link Views} configuration that {@link TableLoader} built.
 *
 * <p>A slice query is cancelled with {@code Statement.cancel()}, which both drivers accept from
 * another thread while the statement executes (DuckDB interrupts the connection's query, and only
 * while that statement runs one; PostgreSQL's driver sends a cancel request on a new connection).
 * The cancel runs on this backend's own canceller thread, never on the caller's. The cancelled
 * query fails, its statement is closed and its connection returns to the pool ready for the next
 * query (queries run in autocommit mode, so no transaction is left aborted).
 */
final class JdbcTileBackend implements TileBackend {
    /** How often a cancelled query's {@code Statement.cancel()} is repeated until the query is back. */
    static final long CANCEL_RETRY_MILLIS = 20;

    private final String name;
    private final int defaultConcurrency;
    private final BlockingQueue<Connection> pool;
    private final List<Connection> all;
    private final long rows;
    private final Views views;
    /** Runs {@code Statement.cancel()}, which may be slow (PostgreSQL's opens a connection), off the caller's thread. */
    private final ScheduledThreadPoolExecutor canceller;

    /**
     * A backend over {@code connections} to a database that already holds the table of
     * {@code views} (resolved), with its pixel and bin columns; it owns them from now on.
     * {@link TableLoader} builds that table; tests pass a database of their own.
     */
    JdbcTileBackend(String name, int defaultConcurrency, List<Connection> connections, long rows, Views views) {
        if (!views.isResolved()) {
            throw new IllegalArgumentException("views of " + views.table() + " are not resolved");
        }
        this.views = views;
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

    @Override
    public Views views() {
        return views;
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
                + " ELSE -1 END AS p, " + bin + " AS b, COUNT(*) AS n FROM " + a.views().table() + " WHERE " + bin + " >= 0 AND "
                + bin + " < " + passive.bins() + " AND " + key.filters().sqlExcept(a, passive) + " GROUP BY 1, 2";
    }

    /** SQL of the on-demand histogram query. */
    static String histogramSql(View passive, Filters filters) {
        String bin = passive.binColumn();
        return "SELECT " + bin + " AS b, COUNT(*) AS n FROM " + passive.views().table() + " WHERE " + bin + " >= 0 AND " + bin + " < "
                + passive.bins() + " AND " + filters.sqlExcept(passive, passive) + " GROUP BY 1";
    }

    /** SQL of the count query: the rows passing every brush. */
    static String countSql(Filters filters) {
        return "SELECT COUNT(*) FROM " + filters.views().table() + " WHERE " + filters.sqlExcept(null, null);
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
