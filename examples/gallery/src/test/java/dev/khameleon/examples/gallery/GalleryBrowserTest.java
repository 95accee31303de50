package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.PointerInput;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.interactions.Sequence;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gallery end to end in a real browser: headless Chromium (Debian's package, driven by its
 * chromedriver) replays a real pointer trace over the mosaic with real mouse moves.
 */
@Timeout(300)
class GalleryBrowserTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long REPLAY_MILLIS = 20_000;

    @Test
    void replayedPointerTrace_showsTheHoveredPicturesMostlyFromTheCache(@TempDir Path profile) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(BrowserSession.CHROMIUM),
                "Chromium absent: " + BrowserSession.CHROMIUM + " (CI installs it: apt-get install chromium chromium-driver)");
        Path trace = SharedData.requireFile("pointer/gallery/1M-30s.json", "pointer trace");
        // The first 20 s of the trace: enough hovers, a bounded test time.
        PointerTrace replayed = PointerTrace.read(trace).first(REPLAY_MILLIS);

        try (GalleryServer gallery = GalleryServer.builder().port(0).grid(16, 24).cacheBlocks(600)
                .linkBytesPerSecond(1.5e6).latencyMillis(60).start()) {
            try (BrowserSession browser = BrowserSession.start(profile)) {
                ChromeDriver driver = browser.driver();
                driver.get(gallery.pageUri().toString());
                new WebDriverWait(driver, Duration.ofSeconds(60)).until(d -> Boolean.TRUE.equals(
                        ((JavascriptExecutor) d).executeScript("return !!(window.gallery && window.gallery.ready)")));
                checkIconAndTooltips(driver);
                WebElement mosaic = driver.findElement(By.id("mosaic"));
                Rectangle area = mosaic.getRect();
                replay(driver, area, replayed.scaledTo(area.getWidth(), area.getHeight()));
                // The last hovers' answers may still be decoding: wait for the log to settle.
                new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> {
                    Object n = ((JavascriptExecutor) d).executeScript("return window.gallery.log.length");
                    return ((Number) n).intValue() > 0;
                });
                Path shot = Path.of("target", "gallery-browser-test.png");
                Files.createDirectories(shot.getParent());
                File png = driver.getScreenshotAs(OutputType.FILE);
                Files.copy(png.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);

                @SuppressWarnings("unchecked")
                Map<String, Object> result = (Map<String, Object>) driver.executeScript(
                        "return {log: window.gallery.log, metrics: window.gallery.metrics(),"
                                + " panel: document.getElementById('m-latency').textContent}");
                JsonNode r = JSON.valueToTree(result);
                check(r);
                checkPlainMode(driver, area, PointerTrace.read(trace).first(4_000));
                List<String> notFound = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                        .map(LogEntry::getMessage).filter(m -> m.contains("404")).toList();
                assertEquals(List.of(), notFound, "requests answered 404, from the browser console");
            }
        }
    }

    /**
     * At a 1,366 × 768 window nothing is cut: the page does not scroll sideways and the picture's column ends
     * inside the window, beside a mosaic of the default width (40 columns, 960 px) and below a wider one
     * (50 columns); the hovered tile's label is legible (at least 12 px, light on a nearly opaque dark
     * ground) and does not cover its tile.
     */
    @Test
    void at1366x768_nothingIsCutAndTheTileLabelIsLegible(@TempDir Path profile) throws Exception {
        try (BrowserSession browser = BrowserSession.start(profile)) {
            ChromeDriver driver = browser.driver();
            driver.manage().window().setSize(new Dimension(1366, 768));
            for (int cols : new int[] {40, 50}) {
                try (GalleryServer gallery = GalleryServer.builder().port(0).grid(3, cols).linkBytesPerSecond(0)
                        .latencyMillis(0).start()) {
                    driver.get(gallery.pageUri().toString());
                    new WebDriverWait(driver, Duration.ofSeconds(60)).until(d -> Boolean.TRUE.equals(
                            ((JavascriptExecutor) d).executeScript("return !!(window.gallery && window.gallery.ready)")));
                    checkLayout(driver, cols);
                    Path shot = Path.of("target", "gallery-1366x768-" + cols + "-columns.png");
                    Files.createDirectories(shot.getParent());
                    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void checkLayout(ChromeDriver driver, int cols) {
        @SuppressWarnings("unchecked")
        Map<String, Object> page = (Map<String, Object>) driver.executeScript("""
                const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();
                const cut = ['side', 'caption', 'panel', 'guide', 'status', 'link']
                    .map((id) => document.getElementById(id))
                    .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.id);
                return {innerWidth: window.innerWidth, innerHeight: window.innerHeight,
                        clientWidth: document.documentElement.clientWidth,
                        scrollWidth: document.documentElement.scrollWidth,
                        side: box('side'), mosaic: box('mosaic'), view: box('view'), cut,
                        fontSizes: ['caption', 'panel', 'guide'].map((id) =>
                            parseFloat(getComputedStyle(document.getElementById(id)).fontSize))};
                """);
        JsonNode r = JSON.valueToTree(page);
        String where = cols + " columns: " + r;
        assertEquals(1366, r.get("innerWidth").asInt(), where);
        int innerWidth = r.get("innerWidth").asInt();
        assertTrue(r.get("scrollWidth").asInt() <= innerWidth, "the page scrolls sideways, " + where);
        assertTrue(r.get("scrollWidth").asInt() <= r.get("clientWidth").asInt(), "the page scrolls sideways, " + where);
        assertTrue(r.get("side").get("right").asDouble() <= innerWidth, "the right column is cut, " + where);
        assertTrue(r.get("side").get("right").asDouble() <= r.get("clientWidth").asInt(), "the right column is cut, " + where);
        assertEquals(0, r.get("cut").size(), "text cut inside " + r.get("cut") + ", " + where);
        assertTrue(r.get("view").get("width").asDouble() >= 320, "the picture is at least 320 px wide, " + where);
        for (JsonNode size : r.get("fontSizes")) {
            assertTrue(size.asDouble() >= 12, "text under 12 px, " + where);
        }
        if (cols == 40) {
            assertTrue(r.get("side").get("left").asDouble() >= r.get("mosaic").get("right").asDouble()
                    && r.get("side").get("top").asDouble() < r.get("mosaic").get("bottom").asDouble(),
                    "the picture beside the default mosaic, " + where);
        } else {
            assertTrue(r.get("side").get("top").asDouble() >= r.get("mosaic").get("bottom").asDouble(),
                    "the picture below a mosaic too wide for both, " + where);
        }

        // Hover a tile of the last row (its label goes above it) and one of the first row (below it).
        WebElement mosaic = driver.findElement(By.id("mosaic"));
        Rectangle area = mosaic.getRect();
        for (int tile : new int[] {2 * cols + cols / 2, cols - 1}) {
            int x = (tile % cols) * GalleryServer.Config.THUMB_WIDTH + GalleryServer.Config.THUMB_WIDTH / 2;
            int y = (tile / cols) * GalleryServer.Config.THUMB_HEIGHT + GalleryServer.Config.THUMB_HEIGHT / 2;
            PointerInput mouse = new PointerInput(PointerInput.Kind.MOUSE, "mouse");
            driver.perform(List.of(new Sequence(mouse, 0).addAction(mouse.createPointerMove(Duration.ofMillis(50),
                    PointerInput.Origin.viewport(), area.getX() + x, area.getY() + y))));
            String text = "#" + tile;
            new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> text.equals(
                    ((JavascriptExecutor) d).executeScript("return document.getElementById('tile-label').textContent")));
            @SuppressWarnings("unchecked")
            Map<String, Object> label = (Map<String, Object>) driver.executeScript("""
                    const label = document.getElementById('tile-label');
                    const style = getComputedStyle(label);
                    return {box: label.getBoundingClientRect().toJSON(),
                            tile: document.getElementById('cursor-tile').getBoundingClientRect().toJSON(),
                            fontSize: parseFloat(style.fontSize), color: style.color, background: style.backgroundColor,
                            display: style.display, innerWidth: window.innerWidth};
                    """);
            JsonNode l = JSON.valueToTree(label);
            String about = "label of tile " + tile + " at " + cols + " columns: " + l;
            assertEquals("block", l.get("display").asText(), about);
            assertTrue(l.get("fontSize").asDouble() >= 12, about);
            JsonNode box = l.get("box");
            JsonNode hovered = l.get("tile");
            assertTrue(box.get("left").asDouble() >= 0 && box.get("right").asDouble() <= l.get("innerWidth").asInt(),
                    "label inside the window, " + about);
            boolean overlaps = box.get("left").asDouble() < hovered.get("right").asDouble()
                    && hovered.get("left").asDouble() < box.get("right").asDouble()
                    && box.get("top").asDouble() < hovered.get("bottom").asDouble()
                    && hovered.get("top").asDouble() < box.get("bottom").asDouble();
            assertTrue(!overlaps, "the label covers its tile, " + about);
            double[] fg = rgba(l.get("color").asText());
            double[] bg = rgba(l.get("background").asText());
            assertTrue(bg[3] >= 0.8, "the label's ground is nearly opaque, " + about);
            assertTrue(contrast(fg, bg) >= 4.5, "label contrast " + contrast(fg, bg) + ", " + about);
        }
    }

    /** {@code rgb(r, g, b)} or {@code rgba(r, g, b, a)} as {r, g, b, a}. */
    private static double[] rgba(String css) {
        String[] parts = css.replaceAll("[^0-9.,]", "").split(",");
        return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2]),
            parts.length > 3 ? Double.parseDouble(parts[3]) : 1};
    }

    /** The WCAG contrast ratio of two colours (alpha ignored). */
    private static double contrast(double[] a, double[] b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(double[] rgb) {
        double[] c = new double[3];
        for (int i = 0; i < 3; i++) {
            double s = rgb[i] / 255;
            c[i] = s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    }

    /**
     * The page's icon (the one it names, and /favicon.ico that browsers ask for otherwise) is served, and
     * every panel figure explains itself in a tooltip.
     */
    private static void checkIconAndTooltips(ChromeDriver driver) {
        @SuppressWarnings("unchecked")
        Map<String, Object> page = (Map<String, Object>) driver.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const icon = document.querySelector('link[rel=icon]');
                const probe = async (url) => {
                  const r = await fetch(url);
                  return {status: r.status, type: r.headers.get('Content-Type'), body: await r.text()};
                };
                Promise.all([probe(icon.href), probe('/favicon.ico')]).then(([named, ico]) => done({
                  named, ico,
                  titles: Array.from(document.querySelectorAll('#panel td')).map((td) => [td.id, td.title]),
                  guide: document.getElementById('guide').textContent,
                }), (e) => done({error: String(e)}));
                """);
        JsonNode r = JSON.valueToTree(page);
        assertTrue(r.get("error") == null, () -> "fetching the icon failed: " + r.get("error"));
        for (String which : List.of("named", "ico")) {
            JsonNode icon = r.get(which);
            assertEquals(200, icon.get("status").asInt(), which + " icon: " + icon);
            assertEquals("image/svg+xml", icon.get("type").asText(), which + " icon: " + icon);
            assertTrue(icon.get("body").asText().startsWith("<svg"), which + " icon: " + icon);
        }
        JsonNode titles = r.get("titles");
        assertEquals(6, titles.size(), "panel figures: " + titles);
        for (JsonNode t : titles) {
            assertTrue(t.get(0).asText().startsWith("m-"), "panel figure without an id: " + t);
            assertTrue(!t.get(1).asText().isBlank(), "panel figure " + t.get(0) + " has no tooltip");
        }
        for (String figure : List.of("hit rate", "response latency", "utility")) {
            assertTrue(r.get("guide").asText().contains(figure), "the guide explains " + figure + ": " + r.get("guide"));
        }
    }

    /** Moves the real mouse through the trace (in mosaic coordinates) at the trace's own pace. */
    private static void replay(ChromeDriver driver, Rectangle mosaic, PointerTrace trace) {
        PointerInput mouse = new PointerInput(PointerInput.Kind.MOUSE, "mouse");
        Sequence moves = new Sequence(mouse, 0);
        long previous = trace.samples().get(0).timeMillis();
        for (PointerTrace.Sample s : trace.samples()) {
            long dt = Math.max(0, Math.min(1000, s.timeMillis() - previous));
            previous = s.timeMillis();
            moves.addAction(mouse.createPointerMove(Duration.ofMillis(dt), PointerInput.Origin.viewport(),
                    mosaic.getX() + (int) s.x(), mosaic.getY() + (int) s.y()));
        }
        driver.perform(List.of(moves));
    }

    /** The toggle: in plain request/response mode the same gestures fetch and show whole pictures. */
    private static void checkPlainMode(ChromeDriver driver, Rectangle area, PointerTrace gestures) {
        driver.findElement(By.cssSelector("input[name=mode][value=plain]")).click();
        replay(driver, area, gestures.scaledTo(area.getWidth(), area.getHeight()));
        new WebDriverWait(driver, Duration.ofSeconds(60)).until(d -> ((Number) driver.executeScript(
                "return window.gallery.log.filter((e) => e.mode === 'plain').length")).intValue() > 0);
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) driver.executeScript(
                "return {log: window.gallery.log.filter((e) => e.mode === 'plain'), metrics: window.gallery.metrics()}");
        JsonNode r = JSON.valueToTree(result);
        assertEquals("plain", r.get("metrics").get("mode").asText());
        for (JsonNode entry : r.get("log")) {
            assertEquals(entry.get("tile").asInt(), entry.get("hovered").asInt(), "drew a tile that was not hovered");
            assertEquals(entry.get("blockCount").asInt(), entry.get("blocks").asInt(), "plain mode shows whole pictures");
            assertTrue(entry.get("thumbDiff").asDouble() < entry.get("neighbourDiff").asDouble(),
                    "plain picture looks like its thumbnail: " + entry);
        }
        System.out.printf("gallery browser test, plain mode: %d hovers, %d answered, mean latency %.1f ms%n",
                r.get("metrics").get("registrations").asInt(), r.get("metrics").get("answered").asInt(),
                r.get("metrics").get("meanLatencyMs").asDouble());
    }

    private static void check(JsonNode r) {
        JsonNode metrics = r.get("metrics");
        JsonNode log = r.get("log");
        int registrations = metrics.get("registrations").asInt();
        double hitRate = metrics.get("hitRate").asDouble();
        System.out.printf("gallery browser test: %d hovers, hit rate %.2f, mean latency %.1f ms, p95 %.1f ms,"
                        + " mean utility %.2f, %d pictures drawn, %d blocks received, %d used, %.2f MB/s%n",
                registrations, hitRate, metrics.get("meanLatencyMs").asDouble(), metrics.get("p95LatencyMs").asDouble(),
                metrics.get("meanUtility").asDouble(), log.size(), metrics.get("blocksReceived").asInt(),
                metrics.get("blocksUsed").asInt(), metrics.get("bytesPerSecond").asDouble() / 1e6);
        assertTrue(registrations >= 20, "the trace hovered many tiles: " + registrations);
        assertTrue(hitRate > 0.5, "most hovers answered from the cache: hit rate " + hitRate);

        int drawn = log.size();
        assertTrue(drawn >= registrations / 2, drawn + " pictures drawn for " + registrations + " hovers");
        int nonBlank = 0;
        int matching = 0;
        for (JsonNode entry : log) {
            assertEquals(entry.get("tile").asInt(), entry.get("hovered").asInt(), "drew a tile that was not hovered");
            if (entry.get("lumaStd").asDouble() > 4) {
                nonBlank++;
            }
            if (entry.get("thumbDiff").asDouble() < entry.get("neighbourDiff").asDouble()
                    && entry.get("thumbDiff").asDouble() < 30) {
                matching++;
            }
        }
        assertTrue(nonBlank >= drawn * 0.95, nonBlank + " of " + drawn + " drawn pictures are not blank");
        assertTrue(matching >= drawn * 0.9, matching + " of " + drawn + " drawn pictures look like their thumbnail");

        JsonNode latencies = metrics.get("recentLatenciesMs");
        assertTrue(latencies.size() > 0 && metrics.get("answered").asInt() > 0, "latencies recorded");
        for (JsonNode l : latencies) {
            assertTrue(l.asDouble() >= 0 && Double.isFinite(l.asDouble()), "latency " + l);
        }
        assertTrue(r.get("panel").asText().matches("mean \\d+ ms, p95 \\d+ ms"), "panel shows " + r.get("panel"));
    }
}
