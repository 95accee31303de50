package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
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
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The page in headless Chromium over DuckDB on the real 10,000 flights: the first draw is every
 * view's unfiltered histogram, and brushing DISTANCE redraws ARR_DELAY as exactly the counts the
 * database gives under that brush.
 */
@Timeout(180)
class PageBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Selenium has no DevTools bindings for Debian's newer Chromium; the test uses WebDriver only. */
    private static final Logger DEVTOOLS_LOG = Logger.getLogger("org.openqa.selenium.devtools");

    static {
        DEVTOOLS_LOG.setLevel(Level.SEVERE);
    }

    @TempDir
    Path profile;

    private static int[] ints(Object list) {
        return ((List<?>) list).stream().mapToInt(n -> (int) Math.round(((Number) n).doubleValue())).toArray();
    }

    private static ServingModel model(TileCache cache, List<Workflow> workflows) throws Exception {
        return ServingModel.learn(workflows, cache, TileEncoder.withBlockSize(TileEncoder.DEFAULT_BLOCK_SIZE), 2, 50, 42,
                60);
    }

    @Test
    void brushingOneView_redrawsTheOthersWithTheDatabasesCountsUnderTheBrush() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Chromium or chromedriver absent: " + CHROMIUM + ", " + CHROMEDRIVER);
        FlightsTable table = FlightsTable.read(SharedData.flightsCsv());
        List<Workflow> workflows = Workflows.readAll(SharedData.workflows());
        int arrDelay = View.ARR_DELAY.ordinal();
        try (TileBackend db = TileBackend.duckDb(table, table.sample(table.size(), 42), 1);
                TileCache cache = TileCache.create(db);
                CrossfilterServer server = CrossfilterServer.start(cache,
                        TileEncoder.withBlockSize(TileEncoder.DEFAULT_BLOCK_SIZE), model(cache, workflows), workflows, 0,
                        64)) {
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + profile);
            ChromeDriver driver = new ChromeDriver(service, options);
            try {
                driver.get(server.pageUri().toString());
                WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60));
                wait.until(d -> Boolean.TRUE.equals(driver.executeScript(
                        "return window.crossfilter?.ready === true && window.crossfilter.shown.every(h => h !== null)")));
                int[] before = ints(driver.executeScript("return window.crossfilter.shown[" + arrDelay + "]"));
                assertArrayEquals(db.histogram(View.ARR_DELAY, Filters.none()), before, "the first draw is unfiltered");

                WebElement distance = driver.findElement(By.id("chart-" + View.DISTANCE.ordinal()));
                int width = distance.getSize().getWidth();
                new Actions(driver).moveToElement(distance, 20 - width / 2, 0).perform();
                wait.until(d -> Boolean.TRUE.equals(driver.executeScript("const t = window.crossfilter.tiles[0];"
                        + " return window.crossfilter.active === 0 && t !== undefined && t.blocks === t.blockCount")));
                // Offsets are from the element's centre: drag from about pixel 20 to about pixel 120.
                new Actions(driver).clickAndHold().moveToElement(distance, 70 - width / 2, 0)
                        .moveToElement(distance, 120 - width / 2, 0).release().perform();
                int[] brush = ints(driver.executeScript("return window.crossfilter.brushes.DISTANCE"));
                assertEquals(2, brush.length);
                int[] expected = db.histogram(View.ARR_DELAY, Filters.none().with(View.DISTANCE, brush[0], brush[1]));
                int[] shown = ints(driver.executeScript("return window.crossfilter.shown[" + arrDelay + "]"));
                assertArrayEquals(expected, shown, "ARR_DELAY under the DISTANCE brush " + brush[0] + ".." + brush[1]);
                assertFalse(java.util.Arrays.equals(before, shown), "brushing DISTANCE changed ARR_DELAY");
            } finally {
                driver.quit();
                service.stop();
            }
        }
    }
}
