package dev.khameleon.examples.crossfilter;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.postgresql.PGConnection;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads a configuration's table into a database for a {@link JdbcTileBackend}: the base rows
 * ({@code T_base}, with a row number {@code rid}), the list of sampled row numbers
 * ({@code T_sample}, {@link FlightsTable#sample}) and the table {@code T} built from them with a
 * join, plus an integer pixel and bin column per view computed once, so every database holds
 * exactly the same rows. Top-K categories are resolved against the base rows
 * ({@link #resolveTop}) before the table is built. Stateless.
 */
final class TableLoader {
    private static final String COLUMNS = "fl_date, origin, dest, dep_time, dep_delay, arr_time, arr_delay, air_time, distance";

    /** The numeric flights columns in the order of {@link #COLUMNS}. */
    private static final List<String> COLUMN_ORDER =
            List.of("DEP_TIME", "DEP_DELAY", "ARR_TIME", "ARR_DELAY", "AIR_TIME", "DISTANCE");

    private TableLoader() {
    }

    /** An in-memory DuckDB database with the table {@code sample} makes of the flights {@code table}. */
    static JdbcTileBackend duckDb(Views views, FlightsTable table, int[] sample, int connections) throws SQLException {
        checkConnections(connections);
        Connection first = DriverManager.getConnection("jdbc:duckdb:");
        List<Connection> conns = new ArrayList<>();
        conns.add(first);
        try {
            DuckDBConnection duck = first.unwrap(DuckDBConnection.class);
            String t = views.table();
            createBase(first, t, "DOUBLE");
            // Row-by-row INSERTs take DuckDB seconds for 10k rows; the appender takes milliseconds.
            try (DuckDBAppender appender = duck.createAppender(DuckDBConnection.DEFAULT_SCHEMA, t + "_base")) {
                for (int r = 0; r < table.size(); r++) {
                    appender.beginRow();
                    appender.append(r).append(table.date(r)).append(table.origin(r)).append(table.destination(r));
                    for (String column : COLUMN_ORDER) {
                        double x = table.value(column, r);
                        if (Double.isNaN(x)) {
                            appender.appendNull();
                        } else {
                            appender.append(x);
                        }
                    }
                    appender.endRow();
                }
            }
            appendSample(first, t, sample);
            Views resolved = resolveTop(first, views, t + "_base");
            long rows = build(first, resolved, prefixed("b."));
            for (int i = 1; i < connections; i++) {
                conns.add(duck.duplicate());
            }
            return new JdbcTileBackend("duckdb", 4, conns, rows, resolved);
        } catch (SQLException | RuntimeException e) {
            closeAll(conns, e);
            throw e;
        }
    }

    /**
     * An in-memory DuckDB database with the table of {@code views} read from {@code csv} by
     * DuckDB's CSV reader (a view's column typed by its bins: {@code DOUBLE}, {@code DATE},
     * {@code TIMESTAMP} or {@code VARCHAR}; other columns are not loaded), resampled to
     * {@code rows} rows with {@code seed}.
     */
    static JdbcTileBackend duckDbCsv(Views views, Path csv, int rows, long seed, int connections)
            throws SQLException {
        checkConnections(connections);
        if (!Files.isRegularFile(csv)) {
            throw new IllegalArgumentException("no CSV file " + csv + " for table " + views.table());
        }
        Connection first = DriverManager.getConnection("jdbc:duckdb:");
        List<Connection> conns = new ArrayList<>();
        conns.add(first);
        try {
            DuckDBConnection duck = first.unwrap(DuckDBConnection.class);
            String t = views.table();
            Views.Source source = views.source().orElseThrow();
            StringBuilder types = new StringBuilder();
            StringBuilder columns = new StringBuilder();
            List<String> qualified = new ArrayList<>();
            for (Views.Spec s : views.specs()) {
                types.append(types.length() == 0 ? "" : ", ").append(literal(s.column())).append(": ")
                        .append(literal(sqlType(s.bins())));
                columns.append(", ").append(s.column().toLowerCase(java.util.Locale.ROOT));
                qualified.add("b." + s.column().toLowerCase(java.util.Locale.ROOT));
            }
            String options = ", header = true, types = {" + types + "}"
                    + (source.dateFormat() == null ? "" : ", dateformat = " + literal(source.dateFormat()))
                    + (source.timestampFormat() == null ? "" : ", timestampformat = " + literal(source.timestampFormat()));
            int size;
            try (Statement st = first.createStatement()) {
                st.execute("CREATE TABLE " + t + "_csv AS SELECT * FROM read_csv(" + literal(csv.toString()) + options
                        + ")");
                st.execute("CREATE TABLE " + t + "_base AS SELECT CAST(rowid AS INTEGER) AS rid" + columns + " FROM "
                        + t + "_csv");
                st.execute("DROP TABLE " + t + "_csv");
                try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + t + "_base")) {
                    rs.next();
                    size = rs.getInt(1);
                }
            }
            appendSample(first, t, FlightsTable.sample(size, rows, seed));
            Views resolved = resolveTop(first, views, t + "_base");
            long loaded = build(first, resolved, String.join(", ", qualified));
            for (int i = 1; i < connections; i++) {
                conns.add(duck.duplicate());
            }
            return new JdbcTileBackend("duckdb", 4, conns, loaded, resolved);
        } catch (SQLException | RuntimeException e) {
            closeAll(conns, e);
            throw e;
        }
    }

    /** A PostgreSQL database at {@code url} into which the flights table is loaded (replacing any earlier one). */
    static JdbcTileBackend postgres(String url, String user, Views views, FlightsTable table, int[] sample,
            int connections) throws SQLException {
        checkConnections(connections);
        List<Connection> conns = new ArrayList<>();
        try {
            Connection first = DriverManager.getConnection(url, user, "");
            conns.add(first);
            String t = views.table();
            try (Statement st = first.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + t);
                st.execute("DROP TABLE IF EXISTS " + t + "_sample");
                st.execute("DROP TABLE IF EXISTS " + t + "_base");
            }
            createBase(first, t, "DOUBLE PRECISION");
            insertBase(first, t, table);
            try (Statement st = first.createStatement()) {
                st.execute("CREATE TABLE " + t + "_sample (rid INTEGER)");
            }
            StringBuilder text = new StringBuilder(sample.length * 5);
            for (int rid : sample) {
                text.append(rid).append('\n');
            }
            try {
                first.unwrap(PGConnection.class).getCopyAPI()
                        .copyIn("COPY " + t + "_sample FROM STDIN", new StringReader(text.toString()));
            } catch (IOException e) {
                throw new SQLException("copying the sample into PostgreSQL failed", e);
            }
            Views resolved = resolveTop(first, views, t + "_base");
            long rows = build(first, resolved, prefixed("b."));
            try (Statement st = first.createStatement()) {
                st.execute("ANALYZE " + t);
            }
            for (int i = 1; i < connections; i++) {
                conns.add(DriverManager.getConnection(url, user, ""));
            }
            return new JdbcTileBackend("postgresql", 15, conns, rows, resolved);
        } catch (SQLException | RuntimeException e) {
            closeAll(conns, e);
            throw e;
        }
    }

    private static String sqlType(Bins bins) {
        if (bins instanceof Bins.Dates d) {
            return d.by() == Bins.DateUnit.DAY ? "DATE" : "TIMESTAMP";
        }
        return bins instanceof Bins.Range ? "DOUBLE" : "VARCHAR";
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static void checkConnections(int connections) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, was " + connections);
        }
    }

    private static void appendSample(Connection c, String t, int[] sample) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + "_sample (rid INTEGER)");
        }
        try (DuckDBAppender appender = c.unwrap(DuckDBConnection.class)
                .createAppender(DuckDBConnection.DEFAULT_SCHEMA, t + "_sample")) {
            for (int rid : sample) {
                appender.beginRow();
                appender.append(rid);
                appender.endRow();
            }
        }
    }

    /**
     * {@code views} with each top-K view's categories: the K most frequent non-NULL values of its
     * column in {@code base}, ties by value; {@code views} itself when it has none.
     */
    static Views resolveTop(Connection c, Views views, String base) throws SQLException {
        if (views.isResolved()) {
            return views;
        }
        Map<String, List<String>> top = new HashMap<>();
        for (Views.Spec s : views.specs()) {
            if (s.bins() instanceof Bins.TopCategories k) {
                String col = "CAST(" + s.column().toLowerCase(java.util.Locale.ROOT) + " AS VARCHAR)";
                List<String> values = new ArrayList<>();
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT " + col
                        + " AS v, COUNT(*) AS n FROM " + base + " WHERE " + col + " IS NOT NULL GROUP BY 1"
                        + " ORDER BY 2 DESC, 1 LIMIT " + k.k())) {
                    while (rs.next()) {
                        values.add(rs.getString(1));
                    }
                }
                top.put(s.column(), values);
            }
        }
        return views.resolve(top);
    }

    private static void createBase(Connection c, String t, String doubleType) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + t + "_base (rid INTEGER, fl_date INTEGER, origin VARCHAR(8), dest VARCHAR(8), "
                    + "dep_time " + doubleType + ", dep_delay " + doubleType + ", arr_time " + doubleType
                    + ", arr_delay " + doubleType + ", air_time " + doubleType + ", distance " + doubleType + ")");
        }
    }

    private static void insertBase(Connection c, String t, FlightsTable table) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + "_base (rid, " + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int r = 0; r < table.size(); r++) {
                ps.setInt(1, r);
                ps.setInt(2, table.date(r));
                ps.setString(3, table.origin(r));
                ps.setString(4, table.destination(r));
                for (int i = 0; i < COLUMN_ORDER.size(); i++) {
                    double x = table.value(COLUMN_ORDER.get(i), r);
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

    /** Builds the table of {@code views} (resolved) from its base and sample; its number of rows. */
    private static long build(Connection c, Views views, String baseColumns) throws SQLException {
        String t = views.table();
        try (Statement st = c.createStatement()) {
            // Each view's pixel and bin are computed once here, so that filters and groups in the
            // queries compare small integers instead of evaluating FLOOR on every row again.
            StringBuilder derived = new StringBuilder();
            for (View v : views) {
                derived.append(", CAST(").append(v.pixelSql("b.")).append(" AS INTEGER) AS ").append(v.pixelColumn())
                        .append(", CAST(").append(v.binSql("b.")).append(" AS INTEGER) AS ").append(v.binColumn());
            }
            st.execute("CREATE TABLE " + t + " AS SELECT " + baseColumns + derived + " FROM " + t + "_sample s "
                    + "JOIN " + t + "_base b ON s.rid = b.rid");
            try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + t)) {
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
}
