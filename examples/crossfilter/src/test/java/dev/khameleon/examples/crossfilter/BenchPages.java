package dev.khameleon.examples.crossfilter;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code n} headless Chromium pages for {@link PageReplayBenchmark}, one ChromeDriver (one browser,
 * its own profile) each, so that no page is a background tab. {@link #replay} drives them at the
 * same time, each from its own thread.
 */
final class BenchPages implements AutoCloseable {
    private final List<ChromeDriverService> services = new ArrayList<>();
    private final List<ChromeDriver> drivers = new ArrayList<>();
    private final List<Path> profiles = new ArrayList<>();

    private BenchPages() {
    }

    static BenchPages start(int n, Path chromium, Path chromedriver) throws IOException {
        BenchPages pages = new BenchPages();
        try {
            for (int i = 0; i < n; i++) {
                Path profile = Files.createTempDirectory("crossfilter-bench-chromium");
                pages.profiles.add(profile);
                ChromeDriverService service = new ChromeDriverService.Builder()
                        .usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort().build();
                pages.services.add(service);
                ChromeDriver driver = new ChromeDriver(service, new ChromeOptions().setBinary(chromium.toFile())
                        .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                "--user-data-dir=" + profile, "--window-size=1400,1000"));
                driver.manage().timeouts().scriptTimeout(Duration.ofHours(1));
                pages.drivers.add(driver);
            }
        } catch (RuntimeException e) {
            pages.close();
            throw e;
        }
        return pages;
    }

    int size() {
        return drivers.size();
    }

    /**
     * Which of {@code workflows} recorded sessions each of {@code pages} pages replays,
     * {@code perPage} each, all different: {@code pages · perPage} sessions evenly spread over the
     * recorded ones ({@code k · workflows / (pages · perPage)}), dealt to the pages in turn.
     *
     * @throws IllegalArgumentException if there are fewer sessions than pages times {@code perPage},
     *     or {@code pages} or {@code perPage} is below 1
     */
    static List<List<Integer>> sessions(int workflows, int pages, int perPage) {
        if (pages < 1 || perPage < 1 || (long) pages * perPage > workflows) {
            throw new IllegalArgumentException(pages + " pages of " + perPage + " sessions need that many of the "
                    + workflows + " recorded sessions");
        }
        int n = pages * perPage;
        List<List<Integer>> out = new ArrayList<>();
        for (int p = 0; p < pages; p++) {
            List<Integer> mine = new ArrayList<>();
            for (int s = 0; s < perPage; s++) {
                mine.add((int) ((long) (s * pages + p) * workflows / n));
            }
            out.add(List.copyOf(mine));
        }
        return List.copyOf(out);
    }

    /**
     * Page {@code i} replays sessions {@code sessions.get(i)} (the first {@code limit} events of each)
     * one after the other, each in a fresh
     * load of {@code page} connected in {@code mode} over an emulated link of {@code rate} bytes/s
     * and {@code rtt} ms, at the session's own pace; every page starts at once. A page is sent to
     * {@code about:blank} after its last session, ending its Khameleon session. Returns when every
     * page is done; each session's measurements go into {@code into}.
     */
    void replay(URI page, String mode, long rate, long rtt, int limit, List<List<Integer>> sessions,
            PageMeasurements into) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(drivers.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < drivers.size(); p++) {
                ChromeDriver driver = drivers.get(p);
                List<Integer> mine = sessions.get(p);
                done.add(threads.submit(() -> {
                    for (int i : mine) {
                        into.add(replayOne(driver, page, mode, rate, rtt, limit, i));
                    }
                    driver.get("about:blank");
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static Map<String, Object> replayOne(ChromeDriver driver, URI page, String mode, long rate, long rtt,
            int limit, int session) {
        driver.get(page.toString());
        new WebDriverWait(driver, Duration.ofSeconds(300)).until(d -> Boolean.TRUE.equals(
                driver.executeScript("return window.crossfilter?.ready === true")));
        driver.executeAsyncScript("const done = arguments[0], c = window.crossfilter;"
                + " c.link.bytesPerSecond = " + rate + "; c.link.rttMs = " + rtt + ";"
                + " c.connect('" + mode + "').then(() => done(true));");
        // A session lasts minutes, longer than one WebDriver call may: start it, then poll.
        driver.executeScript("window.benchRun = null; window.crossfilter.replayWorkflow(" + session
                + ", {speed: 1, limit: " + limit + "}).then(r => { window.benchRun = {within: r.withinMs, switches: r.switchMs,"
                + " exact: r.exactMs, superseded: r.superseded, notExact: r.notExact, atOnce: r.answeredAtOnce,"
                + " unanswered: r.unanswered}; });");
        new WebDriverWait(driver, Duration.ofHours(1), Duration.ofSeconds(2)).until(d -> Boolean.TRUE
                .equals(driver.executeScript("return window.benchRun !== null")));
        @SuppressWarnings("unchecked")
        Map<String, Object> run = (Map<String, Object>) driver.executeScript("return window.benchRun");
        return run;
    }

    @Override
    public void close() throws IOException {
        for (ChromeDriver d : drivers) {
            d.quit();
        }
        for (ChromeDriverService s : services) {
            s.stop();
        }
        for (Path profile : profiles) {
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
