package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A benchmark, not a unit test (it runs only when named and given {@code -Dcrossfilter.bench=1}):
 * the live app on a resampled table in DuckDB (or PostgreSQL), its page in headless Chromium over
 * an emulated link, replaying recorded sessions at their own pace in each of the page's three
 * modes, each session in a fresh Khameleon session. Prints a Markdown table of what the page
 * measured: for each event, the time until the charts show its state or a newer one.
 *
 * <pre>
 * mvn -B -o -q verify -pl examples/crossfilter -Dtest=PageReplayBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dcrossfilter.bench=1 [-Dcrossfilter.bench.rows=1000000] [-Dcrossfilter.bench.sessions=5] \
 *     [-Dcrossfilter.bench.backend=duckdb|postgresql] [-Dcrossfilter.bench.rate=5625000] [-Dcrossfilter.bench.rtt=100]
 * </pre>
 */
@Timeout(4 * 3600)
class PageReplayBenchmark {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Map<String, String> LABELS = Map.of("khameleon", "Khameleon (predicted push)", "hover",
            "Khameleon on hover", "ondemand", "on demand");

    static {
        Logger.getLogger("org.openqa.selenium.devtools").setLevel(Level.SEVERE);
    }

    @Test
    void replaySessionsInThePage() throws Exception {
        Assumptions.assumeTrue(System.getProperty("crossfilter.bench") != null,
                "a benchmark: run it with -Dcrossfilter.bench=1 (docs/benchmarks.md)");
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Chromium or chromedriver absent: " + CHROMIUM + ", " + CHROMEDRIVER);
        int rows = Integer.getInteger("crossfilter.bench.rows", 1_000_000);
        int sessions = Integer.getInteger("crossfilter.bench.sessions", 5);
        String backend = System.getProperty("crossfilter.bench.backend", "duckdb");
        long rate = Long.getLong("crossfilter.bench.rate", 5_625_000);
        long rtt = Long.getLong("crossfilter.bench.rtt", 100);
        FlightsTable table = FlightsTable.read(FlightsData.flightsCsv());
        List<Workflow> workflows = Workflows.readAll(FlightsData.workflows());
        PostgresCluster cluster = null;
        TileBackend db;
        if (backend.equals("postgresql")) {
            Assumptions.assumeTrue(Files.isExecutable(PostgresCluster.DEFAULT_BIN.resolve("initdb")),
                    "PostgreSQL absent: " + PostgresCluster.DEFAULT_BIN);
            cluster = PostgresCluster.start(PostgresCluster.DEFAULT_BIN);
            db = TileBackend.postgres(cluster.jdbcUrl(), PostgresCluster.USER, table, table.sample(rows, 42), 15);
        } else {
            db = TileBackend.duckDb(table, table.sample(rows, 42), 4);
        }
        Path profile = Files.createTempDirectory("crossfilter-bench-chromium");
        TileEncoder encoder = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        try (db; TileCache cache = TileCache.create(db);
                CrossfilterServer server = CrossfilterServer.start(cache, encoder, ServingModel.learn(workflows, cache,
                        encoder, ServingModel.DEFAULT_UTILITY_TILES, ServingModel.DEFAULT_UTILITY_STATES, 42, 600),
                        workflows, 0, CrossfilterServer.DEFAULT_MAX_KEYS)) {
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, new ChromeOptions().setBinary(CHROMIUM.toFile())
                    .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--user-data-dir=" + profile, "--window-size=1400,1000"));
            driver.manage().timeouts().scriptTimeout(Duration.ofHours(1));
            try {
                System.out.printf(Locale.ROOT, "%s, %,d rows; link %.3f MB/s, round trip %d ms; sessions:", db.name(),
                        db.rows(), rate / 1e6, rtt);
                List<Integer> picked = new ArrayList<>();
                for (int k = 0; k < sessions; k++) {
                    picked.add(k * workflows.size() / sessions);
                    System.out.print(" " + picked.get(k));
                }
                System.out.println();
                System.out.println();
                System.out.println("| answers from | events | answered at once | brush updates within a view: n"
                        + " | p50 ms | p99 ms | view switches: n | tile cached | mean ms | p99 ms"
                        + " | all interactions within 100 ms | unanswered after 10 s |");
                System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
                for (String mode : List.of("khameleon", "hover", "ondemand")) {
                    List<Double> within = new ArrayList<>();
                    List<Double> switches = new ArrayList<>();
                    long atOnce = 0;
                    long hits = 0;
                    long unanswered = 0;
                    for (int i : picked) {
                        driver.get(server.pageUri().toString());
                        new WebDriverWait(driver, Duration.ofSeconds(300)).until(d -> Boolean.TRUE.equals(
                                driver.executeScript("return window.crossfilter?.ready === true")));
                        driver.executeAsyncScript("const done = arguments[0], c = window.crossfilter;"
                                + " c.link.bytesPerSecond = " + rate + "; c.link.rttMs = " + rtt + ";"
                                + " c.connect('" + mode + "').then(() => done(true));");
                        // A session lasts minutes, longer than one WebDriver call may: start it, then poll.
                        driver.executeScript("window.benchRun = null; window.crossfilter.replayWorkflow(" + i
                                + ", {speed: 1}).then(r => { window.benchRun = {within: r.withinMs, switches:"
                                + " r.switchMs, atOnce: r.answeredAtOnce, hits: r.switchHits, unanswered:"
                                + " r.unanswered}; });");
                        new WebDriverWait(driver, Duration.ofHours(1), Duration.ofSeconds(2)).until(d -> Boolean.TRUE
                                .equals(driver.executeScript("return window.benchRun !== null")));
                        @SuppressWarnings("unchecked")
                        Map<String, Object> run = (Map<String, Object>) driver.executeScript("return window.benchRun");
                        ((List<?>) run.get("within")).forEach(x -> within.add(((Number) x).doubleValue()));
                        ((List<?>) run.get("switches")).forEach(x -> switches.add(((Number) x).doubleValue()));
                        atOnce += ((Number) run.get("atOnce")).longValue();
                        hits += ((Number) run.get("hits")).longValue();
                        unanswered += ((Number) run.get("unanswered")).longValue();
                    }
                    LatencyStats w = LatencyStats.of(within.stream().mapToDouble(Double::doubleValue).toArray());
                    LatencyStats s = LatencyStats.of(switches.stream().mapToDouble(Double::doubleValue).toArray());
                    double mean = switches.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
                    long n = within.size() + switches.size() + unanswered;
                    long fast = within.stream().filter(x -> x <= 100).count() + switches.stream().filter(x -> x <= 100)
                            .count();
                    System.out.printf(Locale.ROOT, "| %s | %,d | %.1f %% | %,d | %.1f | %.1f | %d | %.1f %% | %.0f"
                            + " | %.0f | %.1f %% | %d |%n", LABELS.get(mode), n, 100.0 * atOnce / Math.max(1, n), w.count(), w.p50(),
                            w.p99(), s.count(), 100.0 * hits / Math.max(1, s.count()), mean, s.p99(),
                            100.0 * fast / Math.max(1, n), unanswered);
                }
            } finally {
                driver.quit();
                service.stop();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
