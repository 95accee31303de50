package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A benchmark, not a unit test (it runs only when named and given {@code -Dcrossfilter.bench=1}):
 * the live app on a resampled table in DuckDB (or PostgreSQL), its page in {@code pages} headless
 * Chromium browsers at once over an emulated link, each replaying its own recorded sessions at
 * their own pace, in each of the page's three modes one after the other; each session in a fresh
 * page load (a fresh Khameleon session), each mode on a fresh server and tile cache over the same
 * database. Prints a Markdown table of what the pages measured, pooled over every interaction of
 * every page: the time until the charts show its state or a newer one (first bars) and until they
 * show its state's exact counts (exact bars; see {@link PageMeasurements}), and the database
 * queries the mode ran per interaction.
 *
 * <pre>
 * mvn -B -o -q verify -pl examples/crossfilter -Dtest=PageReplayBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dcrossfilter.bench=1 [-Dcrossfilter.bench.pages=1[,4,...]] [-Dcrossfilter.bench.sessions=2 (per page)] \
 *     [-Dcrossfilter.bench.rows=10000000] [-Dcrossfilter.bench.backend=duckdb|postgresql] \
 *     [-Dcrossfilter.bench.rate=1500000] [-Dcrossfilter.bench.rtt=100] \
 *     [-Dcrossfilter.bench.modes=khameleon,hover,ondemand] [-Dcrossfilter.bench.events=N (per session)]
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
        int rows = Integer.getInteger("crossfilter.bench.rows", 10_000_000);
        int perPage = Integer.getInteger("crossfilter.bench.sessions", 2);
        int limit = Integer.getInteger("crossfilter.bench.events", Integer.MAX_VALUE); // per session, for a smoke run
        int[] pageCounts = Arrays.stream(System.getProperty("crossfilter.bench.pages", "1").split(","))
                .map(String::trim).mapToInt(Integer::parseInt).toArray();
        List<String> modes = List.of(System.getProperty("crossfilter.bench.modes", "khameleon,hover,ondemand").split(","));
        String backend = System.getProperty("crossfilter.bench.backend", "duckdb");
        long rate = Long.getLong("crossfilter.bench.rate", 1_500_000);
        long rtt = Long.getLong("crossfilter.bench.rtt", 100);
        FlightsTable table = FlightsTable.read(FlightsData.flightsCsv());
        List<Workflow> workflows = Workflows.readAll(FlightsData.workflows());
        List<List<List<Integer>>> assignments = Arrays.stream(pageCounts)
                .mapToObj(n -> BenchPages.sessions(workflows.size(), n, perPage)).toList();
        PostgresCluster cluster = null;
        TileBackend db;
        long loading = System.nanoTime();
        if (backend.equals("postgresql")) {
            Assumptions.assumeTrue(Files.isExecutable(PostgresCluster.DEFAULT_BIN.resolve("initdb")),
                    "PostgreSQL absent: " + PostgresCluster.DEFAULT_BIN);
            cluster = PostgresCluster.start(PostgresCluster.DEFAULT_BIN);
            db = TileBackend.postgres(cluster.jdbcUrl(), PostgresCluster.USER, table, table.sample(rows, 42), 15);
        } else {
            db = TileBackend.duckDb(table, table.sample(rows, 42), 4);
        }
        TileEncoder encoder = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        try (db) {
            System.out.printf(Locale.ROOT, "%s, %,d rows loaded in %.0f s; link %.3f MB/s, round trip %d ms%n",
                    db.name(), db.rows(), (System.nanoTime() - loading) / 1e9, rate / 1e6, rtt);
            ServingModel model;
            try (TileCache learning = TileCache.create(db)) { // its warm tiles are not the modes'
                model = ServingModel.learn(workflows, learning, encoder, ServingModel.DEFAULT_UTILITY_TILES,
                        ServingModel.DEFAULT_UTILITY_STATES, 42, 600);
            }
            StringBuilder report = new StringBuilder(PageMeasurements.header()).append('\n');
            for (int k = 0; k < pageCounts.length; k++) {
                System.out.println(pageCounts[k] + " pages, sessions per page: " + assignments.get(k));
                try (BenchPages pages = BenchPages.start(pageCounts[k], CHROMIUM, CHROMEDRIVER)) {
                    for (String mode : modes) {
                        String row = runMode(db, encoder, model, workflows, pages, mode, rate, rtt, limit,
                                assignments.get(k));
                        System.out.println(row);
                        report.append(row).append('\n');
                    }
                }
            }
            System.out.println();
            System.out.print(report);
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /**
     * One mode on a fresh tile cache and server: every page replays its sessions; the queries
     * counted are those the cache ran after the unfiltered state's tiles were computed.
     */
    private static String runMode(TileBackend db, TileEncoder encoder, ServingModel model, List<Workflow> workflows,
            BenchPages pages, String mode, long rate, long rtt, int limit, List<List<Integer>> sessions)
            throws Exception {
        PageMeasurements m = new PageMeasurements();
        try (TileCache cache = TileCache.create(db);
                CrossfilterServer server = CrossfilterServer.start(cache, encoder, model, workflows, 0,
                        CrossfilterServer.DEFAULT_MAX_KEYS)) {
            CrossfilterServer.startupTiles(cache).get(10, TimeUnit.MINUTES);
            long before = cache.queries();
            pages.replay(server.pageUri(), mode, rate, rtt, limit, sessions, m);
            return m.row(LABELS.get(mode), pages.size(), cache.queries() - before);
        }
    }
}
