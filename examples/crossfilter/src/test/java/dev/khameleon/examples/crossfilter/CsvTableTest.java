package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A table of another data set through configuration only: a small CSV read by DuckDB's reader
 * with a numeric range, a date by day, a timestamp by hour and top-K categories. Every slice,
 * histogram and count is checked against plain SQL {@code GROUP BY}s over the same rows inserted
 * by hand into a second database, with each brush written as a value range and each bin computed
 * here, not by the views.
 */
class CsvTableTest {
    private static final LocalDate DAY0 = LocalDate.of(2016, 11, 29); // 7 days of 50 pixels
    private static final LocalDateTime HOUR0 = LocalDateTime.of(2016, 12, 1, 5, 0); // 14 hours of 25 pixels
    private static final List<String> TOP = List.of("ATL", "ORD", "DEN"); // 4 : 3 : 2 : 1 with SEA, by construction

    @TempDir
    static Path dir;
    private static Views views;
    private static TileBackend backend;
    private static Connection plain;

    @BeforeAll
    static void load() throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        StringBuilder csv = new StringBuilder("DAY,ORIGIN,DELAY,DEP_AT,NOTE\n");
        plain = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = plain.createStatement()) {
            st.execute("CREATE TABLE raw (day DATE, origin VARCHAR, delay DOUBLE, dep_at TIMESTAMP)");
        }
        try (PreparedStatement ps = plain.prepareStatement("INSERT INTO raw VALUES (?, ?, ?, ?)")) {
            for (int r = 0; r < 400; r++) {
                LocalDate day = DAY0.plusDays(random.nextInt(-1, 9)); // some outside the range
                String origin = r % 37 == 0 ? null : new String[] {"ATL", "ATL", "ATL", "ATL", "ORD", "ORD", "ORD",
                    "DEN", "DEN", "SEA"}[r % 10];
                Double delay = r % 23 == 0 ? null : (double) random.nextInt(-40, 60);
                LocalDateTime at = HOUR0.plusMinutes(random.nextInt(-60, 15 * 60));
                csv.append(day.toString().replace("-", "")).append(',').append(origin == null ? "" : origin).append(',')
                        .append(delay == null ? "" : String.valueOf(delay.intValue())).append(',')
                        .append(at.toString().replace('T', ' ')).append(":00,ignored\n");
                ps.setObject(1, day);
                ps.setString(2, origin);
                ps.setObject(3, delay);
                ps.setObject(4, at);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        Path file = dir.resolve("small.csv");
        Files.writeString(file, csv);
        views = Views.builder("small")
                .source(new Views.Source(Views.Reader.CSV, file.toString(), "%Y%m%d", null))
                .view("DELAY", "Delay", "min", new Bins.Range(-25, 45, 10))
                .view("DAY", "Day", "day", new Bins.Dates(Bins.DateUnit.DAY, DAY0.atStartOfDay(),
                        DAY0.plusDays(7).atStartOfDay()))
                .view("ORIGIN", "Origin", "airport", new Bins.TopCategories(3))
                .view("DEP_AT", "Departure", "hour", new Bins.Dates(Bins.DateUnit.HOUR, HOUR0, HOUR0.plusHours(14)))
                .build();
        backend = TileBackend.duckDbCsv(views, file, 400, 1, 1);
    }

    @AfterAll
    static void close() throws Exception {
        if (backend != null) {
            backend.close();
        }
        if (plain != null) {
            plain.close();
        }
    }

    /** The brush each view gets, in pixels, and the same brush as a condition on its raw values. */
    private record Brush(String view, int from, int to, String sql) {
    }

    private static final List<Brush> BRUSHES = List.of(
            new Brush("DELAY", 125, 200, "delay >= 0 AND delay < 15"), // 5 pixels per minute from -25
            new Brush("DAY", 50, 150, "day >= DATE '2016-11-30' AND day < DATE '2016-12-02'"),
            new Brush("ORIGIN", 150, 300, "origin IN ('ORD', 'DEN')"), // bands of 116.7 px, middles 58, 175, 291
            new Brush("DEP_AT", 25, 100, "dep_at >= TIMESTAMP '2016-12-01 06:00:00' AND dep_at < TIMESTAMP '2016-12-01 09:00:00'"));

    /** The bin of raw value {@code value} of view {@code view}, or -1, by each view's rule written out here. */
    private static int bin(String view, Object value) {
        if (value == null) {
            return -1;
        }
        long b = switch (view) {
            case "DELAY" -> {
                double d = ((Number) value).doubleValue();
                yield d >= -25 && d < 45 ? (long) Math.floor((d + 25) / 10) : -1;
            }
            case "DAY" -> ChronoUnit.DAYS.between(DAY0, value instanceof java.sql.Date d ? d.toLocalDate()
                    : (LocalDate) value);
            case "DEP_AT" -> {
                LocalDateTime t = value instanceof java.sql.Timestamp ts ? ts.toLocalDateTime() : (LocalDateTime) value;
                yield t.isBefore(HOUR0) ? -1 : ChronoUnit.HOURS.between(HOUR0, t);
            }
            default -> TOP.indexOf((String) value);
        };
        int bins = view.equals("DELAY") || view.equals("DAY") ? 7 : view.equals("DEP_AT") ? 14 : 3;
        return b >= 0 && b < bins ? (int) b : -1;
    }

    /** The histogram of {@code passive} over the raw rows satisfying {@code where}: one GROUP BY. */
    private static int[] expected(String passive, String where) throws Exception {
        int bins = backend.views().view(passive).bins();
        int[] h = new int[bins];
        String col = passive.toLowerCase(java.util.Locale.ROOT);
        try (Statement st = plain.createStatement(); ResultSet rs = st.executeQuery("SELECT " + col
                + ", COUNT(*) FROM raw WHERE " + where + " GROUP BY " + col)) {
            while (rs.next()) {
                int b = bin(passive, rs.getObject(1));
                if (b >= 0) {
                    h[b] += rs.getInt(2);
                }
            }
        }
        return h;
    }

    private static String where(List<Brush> brushes) {
        return brushes.isEmpty() ? "TRUE" : String.join(" AND ", brushes.stream().map(b -> "(" + b.sql() + ")")
                .toList());
    }

    @Test
    void topK_isTheMostFrequentValues_andTheBinsFollowTheirKinds() {
        assertEquals(new Bins.Categories(TOP), backend.views().view("ORIGIN").binning());
        assertEquals(List.of(7, 7, 3, 14), backend.views().list().stream().map(View::bins).toList());
        assertEquals(400, backend.rows());
    }

    @Test
    void slices_equalPlainGroupBys() throws Exception {
        Views loaded = backend.views();
        int nonEmpty = 0;
        for (View active : loaded) {
            Brush own = BRUSHES.get(active.index());
            for (int others = 0; others < 2; others++) {
                Filters f = Filters.none(loaded);
                List<Brush> in = new ArrayList<>();
                for (Brush b : BRUSHES) {
                    if (others == 1 && !b.view().equals(active.name())) {
                        f = f.with(loaded.view(b.view()), b.from(), b.to());
                        in.add(b);
                    }
                }
                TileKey key = new TileKey(active, f);
                for (View passive : Tile.passives(active)) {
                    List<Brush> rest = in.stream().filter(b -> !b.view().equals(passive.name())).toList();
                    Slice s = backend.slice(key, passive);
                    String what = key + ", passive " + passive;
                    assertArrayEquals(expected(passive.name(), where(rest)), s.totals(), what + ": totals");
                    List<Brush> withOwn = new ArrayList<>(rest);
                    withOwn.add(own);
                    int[] under = expected(passive.name(), where(withOwn));
                    assertArrayEquals(under, s.histogram(own.from(), own.to()), what + ": under " + own);
                    nonEmpty += others == 1 && java.util.Arrays.stream(under).sum() > 0 ? 1 : 0;
                    assertArrayEquals(s.histogram(own.from(), own.to()), backend.histogram(passive,
                            f.with(active, own.from(), own.to())), what + ": on demand");
                }
            }
        }
        assertEquals(12, nonEmpty, "every slice under all four brushes holds rows");
    }

    @Test
    void count_equalsPlainCount() throws Exception {
        Filters all = Filters.none(backend.views());
        for (Brush b : BRUSHES) {
            all = all.with(backend.views().view(b.view()), b.from(), b.to());
        }
        try (Statement st = plain.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM raw WHERE "
                + where(BRUSHES))) {
            rs.next();
            assertEquals(rs.getLong(1), backend.count(all));
        }
    }
}
