package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page in headless Chromium over DuckDB on the real 10,000 flights: the first draw is every
 * view's unfiltered histogram; brushing DISTANCE redraws ARR_DELAY as exactly the counts the
 * database gives under that brush, from the pushed tile or, in the on-demand mode, from a query;
 * over a slow emulated link a partial tile's bars are marked approximate until the tile is whole;
 * and replaying a recorded session ends on the database's histograms for its last brushes.
 */
@Timeout(600)
class PageBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Selenium has no DevTools bindings for Debian's newer Chromium; the test uses WebDriver only. */
    private static final Logger DEVTOOLS_LOG = Logger.getLogger("org.openqa.selenium.devtools");
    private static final int ARR_DELAY = FlightsViews.ARR_DELAY.index();

    static {
        DEVTOOLS_LOG.setLevel(Level.SEVERE);
    }

    private static Path profile;
    private static FlightsTable table;
    private static TileBackend db;
    private static TileCache cache;
    private static List<Workflow> workflows;
    private static CrossfilterServer server;
    private static ChromeDriverService service;
    private static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Chromium or chromedriver absent: " + CHROMIUM + ", " + CHROMEDRIVER);
        table = FlightsTable.read(FlightsData.flightsCsv());
        workflows = Workflows.readAll(FlightsData.workflows());
        db = TileBackend.duckDb(table, table.sample(table.size(), 42), 2);
        cache = TileCache.create(db);
        TileEncoder encoder = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        server = CrossfilterServer.start(cache, encoder, ServingModel.learn(workflows, cache, encoder, 2, 50, 42, 60),
                workflows, 0, 64);
        profile = Files.createTempDirectory("crossfilter-chromium");
        service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--window-size=1400,1000");
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() throws Exception {
        if (driver != null) {
            driver.quit();
        }
        if (service != null) {
            service.stop();
        }
        if (server != null) {
            server.close();
        }
        if (cache != null) {
            cache.close();
        }
        if (db != null) {
            db.close();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int[] ints(Object list) {
        return ((List<?>) list).stream().mapToInt(n -> (int) Math.round(((Number) n).doubleValue())).toArray();
    }

    private static Object js(String script) {
        return driver.executeScript(script);
    }

    /** Loads the page on an unlimited link with no round trip and waits for its first draw; returns a waiter. */
    private static WebDriverWait load() {
        return load("?rate=0&rtt=0");
    }

    /** Loads the page with {@code query} and waits for its first draw; returns a waiter. */
    private static WebDriverWait load(String query) {
        driver.get(server.pageUri() + query);
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(120));
        wait.until(d -> Boolean.TRUE.equals(js(
                "return window.crossfilter?.ready === true && window.crossfilter.shown.every(h => h !== null)")));
        return wait;
    }

    /** Drags on DISTANCE from about pixel 20 to about pixel 120 (offsets are from the element's centre). */
    private static int[] dragOnDistance() {
        WebElement distance = driver.findElement(By.id("chart-" + FlightsViews.DISTANCE.index()));
        int width = distance.getSize().getWidth();
        new Actions(driver).moveToElement(distance, 20 - width / 2, 0).clickAndHold()
                .moveToElement(distance, 70 - width / 2, 0).moveToElement(distance, 120 - width / 2, 0).release()
                .perform();
        int[] brush = ints(js("return window.crossfilter.brushes.DISTANCE"));
        assertEquals(2, brush.length);
        return brush;
    }

    private static int[] shown(int view) {
        return ints(js("return window.crossfilter.shown[" + view + "]"));
    }

    /** Rows of the table passing every brush of {@code filters}, counted row by row in Java. */
    private static long selectedRows(Filters filters) {
        return IntStream.range(0, table.size()).filter(r -> filters.accepts(table.row(r), null, null)).count();
    }

    /** A count as the page writes it, e.g. "10,000". */
    private static String written(long n) {
        return String.format(Locale.US, "%,d", n);
    }

    /** Waits until the page's rows-selected count is exact; returns its text. */
    private static String exactRowsSelected(WebDriverWait wait) {
        wait.until(d -> Boolean.TRUE.equals(js("return window.crossfilter.count?.exact === true")));
        return (String) js("return document.getElementById('rows-selected').textContent");
    }

    /** The top-left corner of element {@code id} in the page, CSS pixels. */
    private static List<?> corner(String id) {
        return (List<?>) js("const r = document.getElementById('" + id + "').getBoundingClientRect();"
                + " return [r.left, r.top];");
    }

    @Test
    void brushingOneView_redrawsTheOthersWithTheDatabasesCountsUnderTheBrush() throws Exception {
        WebDriverWait wait = load();
        int[] before = shown(ARR_DELAY);
        assertArrayEquals(db.histogram(FlightsViews.ARR_DELAY, FlightsViews.none()), before, "the first draw is unfiltered");
        assertEquals(written(table.size()), exactRowsSelected(wait), "no brush: every row of the table");
        Object scale = js("return window.crossfilter.scale[" + ARR_DELAY + "]");

        WebElement distance = driver.findElement(By.id("chart-" + FlightsViews.DISTANCE.index()));
        new Actions(driver).moveToElement(distance, 20 - distance.getSize().getWidth() / 2, 0).perform();
        wait.until(d -> Boolean.TRUE.equals(js("const t = window.crossfilter.tiles[0];"
                + " return window.crossfilter.active === 0 && t !== undefined && t.blocks === t.blockCount")));
        int[] brush = dragOnDistance();
        int[] expected = db.histogram(FlightsViews.ARR_DELAY, FlightsViews.none().with(FlightsViews.DISTANCE, brush[0], brush[1]));
        assertArrayEquals(expected, shown(ARR_DELAY), "ARR_DELAY under the DISTANCE brush " + brush[0] + ".." + brush[1]);
        assertFalse(Arrays.equals(before, shown(ARR_DELAY)), "brushing DISTANCE changed ARR_DELAY");
        assertEquals(Boolean.FALSE, js("return window.crossfilter.approximate[" + ARR_DELAY + "]"), "a whole tile is exact");
        assertEquals(scale, js("return window.crossfilter.scale[" + ARR_DELAY + "]"), "the scale did not move");

        // DISTANCE is the one view whose bins hold every row: brushed, the count is a query.
        long underDistance = selectedRows(FlightsViews.none().with(FlightsViews.DISTANCE, brush[0], brush[1]));
        assertEquals(written(underDistance), exactRowsSelected(wait), "the rows inside the DISTANCE brush");
        assertEquals("query", js("return window.crossfilter.count.from"));
        assertTrue(Arrays.stream(shown(ARR_DELAY)).sum() < underDistance, "ARR_DELAY's bins leave out delays"
                + " outside [-20, 60): its bars sum to less than the rows selected");

        // Cleared, and AIR_TIME brushed instead: the count is the sum of DISTANCE's bars, at once.
        new Actions(driver).doubleClick(distance).perform();
        wait.until(d -> Boolean.TRUE.equals(js("return window.crossfilter.brushes.DISTANCE === undefined")));
        int airTime = FlightsViews.AIR_TIME.index();
        new Actions(driver).moveToElement(driver.findElement(By.id("chart-" + airTime))).perform();
        wait.until(d -> Boolean.TRUE.equals(js("const c = window.crossfilter, t = c.tiles[" + airTime + "];"
                + " return c.active === " + airTime + " && t !== undefined && t.blocks === t.blockCount"
                + " && t.key.every(([from]) => from === -1)")));
        @SuppressWarnings("unchecked")
        Map<String, Object> now = (Map<String, Object>) js("const c = window.crossfilter; c.brush(" + airTime
                + ", 50, 150); return {text: document.getElementById('rows-selected').textContent,"
                + " from: c.count.from, exact: c.count.exact, distance: c.shown[0].reduce((a, b) => a + b, 0)};");
        long underAirTime = selectedRows(FlightsViews.none().with(FlightsViews.AIR_TIME, 50, 150));
        assertEquals("view DISTANCE", now.get("from"), "answered from the chart at once: " + now);
        assertEquals(Boolean.TRUE, now.get("exact"), now.toString());
        assertEquals(underAirTime, ((Number) now.get("distance")).longValue(), "DISTANCE's bars sum to the selection");
        assertEquals(written(underAirTime), now.get("text"));
    }

    @Test
    void eachChart_hasItsTitleAndUnitFromInfoJson_valueAndCountAxes_andTheTablesRows() throws Exception {
        WebDriverWait wait = load();
        @SuppressWarnings("unchecked")
        Map<String, Object> info = (Map<String, Object>) driver.executeAsyncScript("const done = arguments[0];"
                + " fetch('info.json').then(r => r.json()).then(done);");
        assertEquals((long) table.size(), ((Number) info.get("rows")).longValue());
        List<?> infoViews = (List<?>) info.get("views");
        for (View v : FlightsViews.values()) {
            int i = v.index();
            Map<?, ?> sent = (Map<?, ?>) infoViews.get(i);
            assertEquals(List.of(v.title(), v.unit()), List.of(sent.get("title"), sent.get("unit")), v.name());
            assertEquals(v.label(), driver.findElement(By.id("title-" + i)).getText(), "the chart's title");
            List<WebElement> ticks = driver.findElements(By.cssSelector("#xaxis-" + i + " text.tick"));
            assertTrue(ticks.size() >= 4, v + " has value ticks: " + ticks.size());
            assertEquals(written((long) v.start()), ticks.get(0).getText(), v + "'s first tick");
            assertEquals(written((long) v.stop()), ticks.get(ticks.size() - 1).getText(), v + "'s last tick");
            List<WebElement> counts = driver.findElements(By.cssSelector("#yaxis-" + i + " text.tick"));
            assertTrue(counts.size() >= 2, v + " has a count axis: " + counts.size());
            assertEquals("0", counts.get(0).getText());
            int max = Arrays.stream(db.histogram(v, FlightsViews.none())).max().orElseThrow();
            assertEquals(max, ((Number) js("return window.crossfilter.scale[" + i + "]")).intValue(),
                    v + " is scaled to its unfiltered maximum");
        }
        assertEquals(written(table.size()), driver.findElement(By.id("rows-total")).getText());
        assertEquals(written(table.size()), exactRowsSelected(wait));
        assertTrue(driver.findElement(By.cssSelector("link[rel=icon]")).getAttribute("href")
                .startsWith("data:image/svg+xml"), "an inline favicon");
    }

    @Test
    void theLinkStartsAt1point5MBpsAnd100ms_unlessTheAddressAsksForAListedOne() {
        load("");
        assertEquals(List.of(1_500_000L, 100L), js("return [window.crossfilter.link.bytesPerSecond,"
                + " window.crossfilter.link.rttMs]"), "the default emulated link");
        load("?rate=100000&rtt=50");
        assertEquals(List.of(100_000L, 50L), js("return [window.crossfilter.link.bytesPerSecond,"
                + " window.crossfilter.link.rttMs]"));
        assertEquals("100000", js("return document.getElementById('link-rate').value"), "the control shows it");
        load("?rate=7&rtt=x");
        assertEquals(List.of(1_500_000L, 100L), js("return [window.crossfilter.link.bytesPerSecond,"
                + " window.crossfilter.link.rttMs]"), "a value not listed leaves the default");
    }

    @Test
    void onDemand_queriesTheDatabaseForEveryBrush() throws Exception {
        WebDriverWait wait = load();
        driver.findElement(By.cssSelector("input[name=mode][value=ondemand]")).click();
        wait.until(d -> Boolean.TRUE.equals(js("return window.crossfilter.mode === 'ondemand'"
                + " && window.crossfilter.onDemandAnswers > 0")));
        int[] brush = dragOnDistance();
        int[] expected = db.histogram(FlightsViews.ARR_DELAY, FlightsViews.none().with(FlightsViews.DISTANCE, brush[0], brush[1]));
        wait.until(d -> Arrays.equals(expected, shown(ARR_DELAY)));
        assertEquals(Boolean.FALSE, js("return window.crossfilter.approximate[" + ARR_DELAY + "]"));
    }

    @Test
    void overASlowLink_aPartialTilesBarsAreMarkedApproximate_untilTheTileIsWhole() throws Exception {
        WebDriverWait wait = load();
        List<?> title = corner("title-" + ARR_DELAY);
        List<?> chart = corner("chart-" + ARR_DELAY);
        // A fresh on-hover session over 100 kB/s: DISTANCE's tile (14 blocks of 12 KiB) takes about 2 s.
        js("window.crossfilter.link.bytesPerSecond = 100000; window.crossfilter.connect('hover');"
                + " window.crossfilter.activate(0);");
        // Brush off the bin-edge rows (DISTANCE's edges are every 14 px) as soon as the first block is in.
        wait.until(d -> Boolean.TRUE.equals(js("const t = window.crossfilter.tiles[0];"
                + " return t !== undefined && t.blocks >= 1")));
        @SuppressWarnings("unchecked")
        Map<String, Object> partial = (Map<String, Object>) js("const c = window.crossfilter, t = c.tiles[0];"
                + " c.brush(0, 21, 117); return {blocks: t.blocks, count: t.blockCount,"
                + " approximate: c.approximate[" + ARR_DELAY + "],"
                + " marked: document.getElementById('approx-" + ARR_DELAY + "').textContent};");
        assertTrue(((Number) partial.get("blocks")).intValue() < ((Number) partial.get("count")).intValue(),
                "the tile was partial: " + partial);
        assertEquals(Boolean.TRUE, partial.get("approximate"), "interpolated rows: " + partial);
        assertTrue(((String) partial.get("marked")).contains("approximate"), "the chart says so: " + partial);
        assertTrue(((String) js("return document.getElementById('approx-all').textContent")).contains("approximate"),
                "so does the page");
        assertEquals(title, corner("title-" + ARR_DELAY), "the mark takes no room from the title");
        assertEquals(chart, corner("chart-" + ARR_DELAY), "the charts do not move");

        wait.until(d -> Boolean.TRUE.equals(js("const t = window.crossfilter.tiles[0];"
                + " return t.blocks === t.blockCount")));
        js("window.crossfilter.brush(0, 21, 117)");
        assertEquals(Boolean.FALSE, js("return window.crossfilter.approximate[" + ARR_DELAY + "]"));
        assertEquals("", js("return document.getElementById('approx-" + ARR_DELAY + "').textContent"));
        assertEquals("", js("return document.getElementById('approx-all').textContent"));
        assertArrayEquals(db.histogram(FlightsViews.ARR_DELAY, FlightsViews.none().with(FlightsViews.DISTANCE, 21, 117)), shown(ARR_DELAY));
    }

    @Test
    void aSessionsFirstBrush_aSecondAfterThePageLoaded_findsItsViewsTileCached() throws Exception {
        // Sessions that brush the most and the least likely first view first: the page's first push
        // holds every view's unfiltered tile, computed when the server started.
        for (View firstView : List.of(FlightsViews.AIR_TIME, FlightsViews.ARR_TIME)) {
            int index = 0;
            while (workflows.get(index).events().get(0).view() != firstView) {
                index++;
            }
            load();
            Thread.sleep(1000); // the user looks at the charts before brushing one
            @SuppressWarnings("unchecked")
            Map<String, Object> run = (Map<String, Object>) driver.executeAsyncScript("const done = arguments[0];"
                    + " window.crossfilter.replayWorkflow(" + index + ", {speed: 1, limit: 1}).then(r => done({"
                    + " switches: r.switches, switchHits: r.switchHits, answeredAtOnce: r.answeredAtOnce}));");
            assertEquals(1, ((Number) run.get("switches")).intValue(), firstView + ": " + run);
            assertEquals(1, ((Number) run.get("switchHits")).intValue(), firstView + "'s tile was cached: " + run);
            assertEquals(1, ((Number) run.get("answeredAtOnce")).intValue(), firstView + ": " + run);
        }
    }

    @Test
    void replayingARecordedSession_endsOnTheDatabasesHistogramsForItsLastBrushes() throws Exception {
        WebDriverWait wait = load();
        List<?> chart = corner("chart-0");
        Workflow w = workflows.get(0);
        int limit = Math.min(300, w.events().size());
        @SuppressWarnings("unchecked")
        Map<String, Object> run = (Map<String, Object>) driver.executeAsyncScript("const done = arguments[0];"
                + " window.crossfilter.replayWorkflow(0, {speed: 50, limit: " + limit + "}).then(r => done({"
                + " done: r.done, switches: r.switches, name: r.name,"
                + " timed: r.withinMs.length + r.switchMs.length + r.unanswered,"
                + " settled: r.exactMs.length + r.superseded + r.notExact + r.unanswered, exact: r.exactMs.length}));");
        assertEquals(limit, ((Number) run.get("done")).intValue());
        assertEquals(limit, ((Number) run.get("timed")).intValue(), "every event is answered or counted unanswered");
        assertEquals(limit, ((Number) run.get("settled")).intValue(),
                "every event gets exact bars, is superseded, is not exact at the end or is unanswered");
        assertTrue(((Number) run.get("exact")).intValue() > 0, "some events get exact bars");
        assertEquals(w.name(), run.get("name"));
        long switches = java.util.stream.IntStream.range(0, limit).filter(w::isViewSwitch).count();
        assertEquals(switches, ((Number) run.get("switches")).longValue());

        Filters last = w.filtersAfter().get(limit - 1);
        View active = w.events().get(limit - 1).view();
        View passive = active == FlightsViews.ARR_DELAY ? FlightsViews.DEP_DELAY : FlightsViews.ARR_DELAY;
        int[] expected = db.histogram(passive, last);
        assertFalse(Arrays.equals(expected, db.histogram(passive, FlightsViews.none())), "the session brushed by then");
        wait.until(d -> Arrays.equals(expected, shown(passive.index()))
                && Boolean.FALSE.equals(js("return window.crossfilter.approximate[" + passive.index() + "]")));
        assertEquals((long) active.index(), ((Number) js("return window.crossfilter.active")).longValue());
        assertEquals(written(selectedRows(last)), exactRowsSelected(wait), "the rows selected by its last brushes");
        assertTrue(driver.findElement(By.id("replay-stats")).getText().contains(w.name()), "the replay's statistics");
        assertEquals(chart, corner("chart-0"), "statistics and captions do not move the charts");
    }
}
