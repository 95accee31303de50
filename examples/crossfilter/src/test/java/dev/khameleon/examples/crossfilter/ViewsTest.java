package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The views configuration: the flights views it makes, and what it refuses. */
class ViewsTest {

    /** One flights view as the enum of the six views defined it before the configuration. */
    private record Old(String name, int start, int stop, int step, String title, String unit) {
    }

    private static final List<Old> ENUM = List.of(
            new Old("DISTANCE", 0, 5000, 200, "Distance", "mi"),
            new Old("ARR_TIME", 0, 24, 1, "Arrival time", "hour of day"),
            new Old("DEP_TIME", 0, 24, 1, "Departure time", "hour of day"),
            new Old("DEP_DELAY", -20, 60, 5, "Departure delay", "min"),
            new Old("ARR_DELAY", -20, 60, 5, "Arrival delay", "min"),
            new Old("AIR_TIME", 0, 500, 20, "Air time", "min"));

    @Test
    void flights_makesExactlyTheSixViewsOfTheEnum() {
        Views views = Views.flights();
        assertSame(views, Views.flights());
        assertEquals("flights", views.table());
        assertEquals(Views.Reader.FLIGHTS, views.source().orElseThrow().reader());
        assertEquals("datasets/flights/flights-10k.csv", views.source().orElseThrow().csv());
        assertEquals(ENUM.size(), views.size());
        for (int i = 0; i < ENUM.size(); i++) {
            Old o = ENUM.get(i);
            View v = views.get(i);
            assertEquals(i, v.index());
            assertEquals(o.name(), v.name());
            assertEquals(o.name(), v.toString());
            assertEquals(o.name().toLowerCase(java.util.Locale.ROOT), v.column());
            assertEquals(List.of(o.title(), o.unit(), o.title() + " (" + o.unit() + ")"),
                    List.of(v.title(), v.unit(), v.label()));
            assertEquals(List.of((double) o.start(), (double) o.stop(), (double) o.step()),
                    List.of(v.start(), v.stop(), v.step()));
            assertEquals((o.stop() - o.start()) / o.step(), v.bins());
            // The SQL as the enum wrote it, character for character.
            String col = "b." + v.column();
            assertEquals("FLOOR((" + col + " - (" + o.start() + ")) * 350.0 / " + (o.stop() - o.start()) + ".0)",
                    v.pixelSql("b."));
            assertEquals("FLOOR((" + col + " - (" + o.start() + ")) / " + o.step() + ".0)", v.binSql("b."));
            for (int k = 0; k <= v.bins(); k++) {
                assertEquals((int) Math.round((double) k * o.step() * View.PIXELS / (o.stop() - o.start())),
                        v.binEdgePixel(k));
            }
        }
        assertEquals(70, views.view("DISTANCE").pixelOf(1000), "1000 miles is the edge of pixel 70");
        assertEquals(-1, views.view("DEP_DELAY").binOf(60));
        assertEquals(0, views.view("DEP_DELAY").binOf(-20));
    }

    @Test
    void builder_makesWhatTheFileMakes() {
        Views built = Views.builder("t")
                .view("A", "A", "u", new Bins.Range(0, 10, 1))
                .view("B", "B", "", new Bins.Categories(List.of("x", "y")))
                .build();
        Views read = ViewsFile.parse(("{\"table\": \"t\", \"views\": [{\"column\": \"A\", \"unit\": \"u\", \"bins\":"
                + " {\"kind\": \"range\", \"start\": 0, \"stop\": 10, \"step\": 1}}, {\"column\": \"B\", \"bins\":"
                + " {\"kind\": \"categories\", \"values\": [\"x\", \"y\"]}}]}").getBytes(StandardCharsets.UTF_8), "t.json");
        assertEquals(built.specs(), read.specs());
        assertTrue(read.source().isEmpty());
    }

    @Test
    void categories_oneBandOfPixelsPerCategory_aRowAtItsMiddle() {
        Views views = Views.builder("t").view("A", "A", "", new Bins.Range(0, 1, 1))
                .view("C", "C", "", new Bins.Categories(List.of("p", "q", "r", "s", "t"))).build();
        View c = views.view("C");
        assertEquals(List.of(0.0, 5.0, 1.0, 5), List.of(c.start(), c.stop(), c.step(), c.bins()));
        // five bands of 70 pixels; category i lies in pixel floor((i + 0.5) * 70)
        assertEquals(List.of(35, 105, 175, 245, 315), List.of(c.pixelOf(0.5), c.pixelOf(1.5), c.pixelOf(2.5),
                c.pixelOf(3.5), c.pixelOf(4.5)));
        assertEquals(List.of(0, 4), List.of(c.binOf(0.5), c.binOf(4.5)));
        assertEquals("q", c.binLabel(1));
        assertEquals("CASE CAST(b.c AS VARCHAR) WHEN 'p' THEN 0.5 WHEN 'q' THEN 1.5 WHEN 'r' THEN 2.5 WHEN 's' THEN 3.5"
                + " WHEN 't' THEN 4.5 END", c.valueSql("b."));
    }

    @Test
    void dates_dayOrHourSince1970_aDateAtItsMidnight() {
        Bins.Dates days = new Bins.Dates(Bins.DateUnit.DAY, LocalDate.of(2016, 11, 28).atStartOfDay(),
                LocalDate.of(2016, 12, 5).atStartOfDay());
        Bins.Dates hours = new Bins.Dates(Bins.DateUnit.HOUR, LocalDate.of(2016, 12, 1).atTime(5, 0),
                LocalDate.of(2016, 12, 1).atTime(19, 0));
        Views views = Views.builder("t").view("D", "D", "day", days).view("H", "H", "h", hours).build();
        View d = views.view("D");
        long first = LocalDate.of(2016, 11, 28).toEpochDay();
        assertEquals(List.of((double) first, first + 7.0, 7), List.of(d.start(), d.stop(), d.bins()));
        assertEquals(150, d.pixelOf(first + 3), "7 days of 50 pixels");
        assertEquals("2016-12-01", d.binLabel(3));
        assertEquals("(EXTRACT(EPOCH FROM b.d) / 86400.0)", d.valueSql("b."));
        View h = views.view("H");
        assertEquals(14, h.bins());
        assertEquals(25, h.pixelOf(h.start() + 1), "14 hours of 25 pixels");
        assertEquals("2016-12-01T06:00", h.binLabel(1));
    }

    @Test
    void resolve_takesTheTopValuesOfTopK() {
        Views views = Views.builder("t").view("A", "A", "", new Bins.Range(0, 1, 1))
                .view("C", "C", "", new Bins.TopCategories(2)).build();
        assertFalse(views.isResolved());
        assertThrows(IllegalStateException.class, views::list);
        Views resolved = views.resolve(Map.of("C", List.of("z", "y", "x")));
        assertTrue(resolved.isResolved());
        assertEquals(new Bins.Categories(List.of("z", "y")), resolved.view("C").binning());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> views.resolve(Map.of()));
        assertEquals("views[1] (C): top-2 categories: the column has no values", e.getMessage());
    }

    /** A file whose views are {@code views} (JSON array elements) over table {@code t}. */
    private static String file(String views) {
        return "{\"table\": \"t\", \"views\": [" + views + "]}";
    }

    private static final String A = "{\"column\": \"A\", \"bins\": {\"kind\": \"range\", \"start\": 0, \"stop\": 10,"
            + " \"step\": 1}}";

    private static void assertRefused(String expected, String json) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ViewsFile.parse(json.getBytes(StandardCharsets.UTF_8), "bad.json"));
        assertEquals(expected, e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line");
    }

    @Test
    void parse_refusesBadInput_inOneLineNamingFileAndField() {
        assertRefused("bad.json: views[1].bins.kind: unknown bin kind 'ranges' (range, dates or categories)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"ranges\"}}"));
        assertRefused("bad.json: views[1].bins: stop (0) must be greater than start (10)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"range\", \"start\": 10, \"stop\": 0, \"step\": 1}}"));
        assertRefused("bad.json: views[1].bins: step 3 does not divide the range [0, 10)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"range\", \"start\": 0, \"stop\": 10, \"step\": 3}}"));
        assertRefused("bad.json: views: the list is empty", file(""));
        assertRefused("bad.json: views: a crossfilter needs 2 to 32 views, found 1", file(A));
        assertRefused("bad.json: views[1].column: duplicate column a (also views[0])",
                file(A + ", " + A.replace("\"A\"", "\"a\"")));
        assertRefused("bad.json: views[0]: unknown key 'colour' (allowed: bins, column, title, unit)",
                file(A.replace("{\"column\"", "{\"colour\": \"red\", \"column\"")));
        assertRefused("bad.json: unknown key 'view' (allowed: source, table, views)",
                "{\"table\": \"t\", \"view\": []}");
        assertRefused("bad.json: views[1].bins: unknown key 'stride' (allowed: kind, start, step, stop)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"range\", \"stride\": 1}}"));
        assertRefused("bad.json: views[1].bins.step: required",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"range\", \"start\": 0, \"stop\": 1}}"));
        assertRefused("bad.json: views[1].bins: categories need exactly one of values (a list) or top (a count)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"categories\", \"values\": [\"x\"], \"top\": 3}}"));
        assertRefused("bad.json: views[1].bins: values must list at least one category",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"categories\", \"values\": []}}"));
        assertRefused("bad.json: views[1].bins: values lists 'x' twice",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"categories\", \"values\": [\"x\", \"x\"]}}"));
        assertRefused("bad.json: views[1].bins.by: unknown unit 'week' (day or hour)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"dates\", \"by\": \"week\", \"from\": \"2016-12-01\","
                        + " \"to\": \"2016-12-02\"}}"));
        assertRefused("bad.json: views[1].bins: to (2016-12-01T00:00) must be after from (2016-12-02T00:00)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"dates\", \"by\": \"day\", \"from\": \"2016-12-02\","
                        + " \"to\": \"2016-12-01\"}}"));
        assertRefused("bad.json: views[1].bins: from (2016-12-01T05:30) must be on a whole hour",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"dates\", \"by\": \"hour\", \"from\": \"2016-12-01T05:30\","
                        + " \"to\": \"2016-12-02\"}}"));
        assertRefused("bad.json: views[1].bins: 400 bins do not fit the 350-pixel brush axis (at most one bin per pixel)",
                file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"range\", \"start\": 0, \"stop\": 400, \"step\": 1}}"));
        assertRefused("bad.json: views[1].column: must be an SQL identifier ([A-Za-z_][A-Za-z0-9_]*), was 'B; DROP'",
                file(A + ", " + A.replace("\"A\"", "\"B; DROP\"")));
        assertRefused("bad.json: table: required", "{\"views\": [" + A + "]}");
        assertRefused("bad.json: source.reader: unknown reader 'xls' (csv or flights)",
                "{\"table\": \"t\", \"source\": {\"reader\": \"xls\", \"csv\": \"x\"}, \"views\": [" + A + "]}");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ViewsFile.parse("{\"table\": ".getBytes(
                StandardCharsets.UTF_8), "bad.json")).getMessage().startsWith("bad.json: not valid JSON at line 1"));
    }

    @Test
    void read_namesTheFile(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path f = dir.resolve("v.json");
        Files.writeString(f, file(A + ", {\"column\": \"B\", \"bins\": {\"kind\": \"nope\"}}"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Views.read(f));
        assertTrue(e.getMessage().startsWith(f + ": views[1].bins.kind: unknown bin kind 'nope'"), e.getMessage());
    }

    @Test
    void flightsReader_refusesColumnsItDoesNotHave() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Views.builder("t")
                .source(new Views.Source(Views.Reader.FLIGHTS, "x.csv", null, null))
                .view("DISTANCE", "d", "", new Bins.Range(0, 10, 1)).view("SPEED", "s", "", new Bins.Range(0, 10, 1))
                .build());
        assertTrue(e.getMessage().startsWith("views[1].column: the flights reader has the columns"), e.getMessage());
    }

    @Test
    void routesFile_isAValidConfiguration() throws Exception {
        Views routes = Views.read(Path.of("views/flights-routes.json"));
        assertEquals("flights_routes", routes.table());
        assertEquals(List.of("DISTANCE", "ORIGIN", "DEST", "DEP_DELAY", "ARR_DELAY", "FL_DATE"),
                routes.specs().stream().map(Views.Spec::column).toList());
        assertFalse(routes.isResolved(), "ORIGIN is top-12");
    }
}
