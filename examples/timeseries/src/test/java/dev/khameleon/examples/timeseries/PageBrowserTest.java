package dev.khameleon.examples.timeseries;

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
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The page in headless Chromium: hovering a bar draws that window, exactly once every block is in. */
@Timeout(120)
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

    @Test
    void hoveringABar_drawsThatWindowsSeriesExactly() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Chromium or chromedriver absent: " + CHROMIUM + ", " + CHROMEDRIVER);
        int bar = 37;
        try (TimeseriesApp app = TimeseriesApp.start(TraceData.trace(), 0)) {
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + profile);
            ChromeDriver driver = new ChromeDriver(service, options);
            try {
                driver.get(app.pageUri().toString());
                WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60));
                wait.until(d -> Boolean.TRUE.equals(driver.executeScript("return window.timeseries?.ready === true")));
                WebElement overview = driver.findElement(By.id("overview"));
                int width = overview.getSize().getWidth();
                // Offsets are from the element's centre: sweep towards the bar's centre and rest there.
                Actions actions = new Actions(driver);
                for (int x = 0; x <= bar; x += 4) {
                    actions.moveToElement(overview, x * TimeseriesApp.BAR_WIDTH + 4 - width / 2, 0);
                }
                actions.moveToElement(overview, bar * TimeseriesApp.BAR_WIDTH + 4 - width / 2, 0).perform();
                wait.until(d -> Boolean.TRUE.equals(driver.executeScript("const s = window.timeseries.shown;"
                        + " return s !== null && s.id === " + bar + " && s.blocks === s.blockCount")));
                @SuppressWarnings("unchecked")
                List<Number> series = (List<Number>) ((Map<String, Object>) driver.executeScript(
                        "return window.timeseries.shown")).get("series");
                int[] expected = app.windows().get(bar);
                assertEquals(expected.length, series.size());
                for (int i = 0; i < expected.length; i++) {
                    assertEquals(expected[i], series.get(i).doubleValue(), "point " + i);
                }
            } finally {
                driver.quit();
                service.stop();
            }
        }
    }
}
