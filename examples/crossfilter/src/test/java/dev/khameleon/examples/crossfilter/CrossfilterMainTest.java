package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CrossfilterMainTest {

    /** Runs {@code evaluate} with {@code args}; asserts exit status 2 and {@code message} on stderr. */
    private static void assertRefused(String message, String... args) {
        assertRefusedBy("evaluate", message, args);
    }

    /** Runs {@code subcommand} with {@code args}; asserts exit status 2 and {@code message} on stderr. */
    private static void assertRefusedBy(String subcommand, String message, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = CrossfilterMain.commandLine().setErr(new PrintWriter(err));
        String[] command = new String[args.length + 1];
        command[0] = subcommand;
        System.arraycopy(args, 0, command, 1, args.length);
        assertEquals(2, cl.execute(command));
        assertTrue(err.toString().contains(message), err.toString());
    }

    @Test
    void serve_rejectsAPortOutOfRange() {
        assertRefusedBy("serve", "--port must be in [0, 65535], was 70000", "--port", "70000");
    }

    @Test
    void serve_rejectsAPriorWeightOutsideZeroToOne() {
        assertRefusedBy("serve", "--prior-weight must be in [0, 1], was 1.5", "--prior-weight", "1.5");
    }

    @Test
    void serve_rejectsNoUtilityStates() {
        assertRefusedBy("serve", "--utility-tiles and --utility-states must be >= 1, were 12 and 0",
                "--utility-states", "0");
    }

    @Test
    void serve_rejectsAKeyTableBelowOne() {
        assertRefusedBy("serve", "--max-keys must be >= 1, was 0", "--max-keys", "0");
    }

    @Test
    void serve_rejectsABlockTooSmallForTheFirstBlock() {
        assertRefusedBy("serve", "--block-size: blockSize must be >= ", "--block-size", "1024");
    }

    @Test
    void evaluate_rejectsRowsBelowOne() {
        assertRefused("--rows must be >= 1, was 0", "--rows", "0");
    }

    @Test
    void evaluate_rejectsANonPositiveBandwidth() {
        assertRefused("--bandwidth-mbps must be > 0, was 0.0", "--bandwidth-mbps", "0");
    }

    @Test
    void evaluate_rejectsACacheSmallerThanABlock() {
        assertRefused("--cache-mb must hold at least one block of 12288 bytes, was 0.001", "--cache-mb", "0.001");
    }

    @Test
    void evaluate_rejectsANegativeLead() {
        assertRefused("--lead-ms must be >= 0, was -1.0", "--lead-ms", "-1");
    }

    @Test
    void evaluate_rejectsAStayOutsideZeroToOne() {
        assertRefused("--stay must be in [0, 1], was 1.5", "--stay", "1.5");
    }

    @Test
    void evaluation_onTheRealSessions_reportsEverySessionEventSplitByKind() throws Exception {
        FlightsTable table = FlightsTable.read(FlightsData.flightsCsv());
        List<Workflow> workflows = Workflows.readAll(FlightsData.workflows());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TileBackend db = TileBackend.duckDb(table, table.sample(table.size(), 1), 1);
                PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            new Evaluation(db, workflows, new Evaluation.Settings(2, 2, 5, 4, TileEncoder.DEFAULT_BLOCK_SIZE, 1, 1, 100,
                    Evaluation.Push.defaults(), CrossfilterMain.DEFAULT_LEAD_MS, false), out)
                    .run();
        }
        String report = bytes.toString(StandardCharsets.UTF_8);
        // 73,738 events = 73,503 brush updates within a view + 235 view activations.
        assertTrue(report.contains("| On-demand (stale queries dropped) | 73,503 |"), report);
        assertTrue(report.contains("| Falcon on hover (tile per active view) | 73,503 |"), report);
        assertTrue(report.contains("| Falcon + predicted next view (Markov, leave-one-out, top 1, after a 100 ms pause) | 73,503 |"),
                report);
        assertTrue(report.contains("| Khameleon, predicted (stay 0.50 + Markov, leave-one-out) | 73,503 |"), report);
        assertTrue(report.contains("| Khameleon on hover (all mass on the current view) | 235 |"), report);
        // The backend of 4 slots never runs more than 4 queries at once in the Khameleon replays.
        assertTrue(report.lines().filter(l -> l.startsWith("| Khameleon") && !l.contains("73,503"))
                .allMatch(l -> l.endsWith(" | 4 |")), report);
        assertTrue(report.contains("| histogram (on-demand, one passive view) | 10 |"), report);
        assertTrue(report.contains("| tile slice (one passive view) | 10 |"), report);
        assertTrue(report.lines().anyMatch(l -> l.startsWith("| utility | 0.000 |") && l.endsWith(" 1.000 |")), report);
        // The first brushes by lead: connected at the brush, nothing can be cached in any variant; a second
        // ahead, the start-up tiles and the learned first view leave no first brush uncached.
        assertTrue(report.lines().anyMatch(l -> l.startsWith("| 0 | 0.0 % |") && l.split("0\\.0 %").length == 4),
                report);
        assertTrue(report.lines().anyMatch(l -> l.startsWith("| 1000 |") && l.contains("| 100.0 % | 0 | 1.000 |")),
                report);
    }

    @Test
    void serve_refusesABusyPortInOneLine_beforeLoadingAnything() throws Exception {
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int port = busy.getLocalPort();
            String err = refusal("serve", "--port", Integer.toString(port), "--data", dataRoot());
            assertTrue(err.startsWith("khameleon-crossfilter serve: --port " + port + ": already in use on 127.0.0.1"),
                    err);
            assertEquals(2, err.lines().count(), err);
        }
    }

    @Test
    void serve_refusesAMissingDataFolderInOneLine() {
        String err = refusal("serve", "--data", "/nonexistent/data");
        assertEquals("khameleon-crossfilter serve: --data /nonexistent/data: no datasets/flights/flights-10k.csv in it"
                + " (the shared data folder)", err.lines().findFirst().orElse(""));
        assertEquals(2, err.lines().count(), err);
    }

    @Test
    void serve_refusesMissingPostgresBinariesInOneLine() {
        String err = refusal("serve", "--backend", "postgresql", "--pg-bin", "/nonexistent/bin",
                "--data", dataRoot());
        assertTrue(err.startsWith("khameleon-crossfilter serve: --pg-bin /nonexistent/bin: PostgreSQL binaries"), err);
        assertEquals(2, err.lines().count(), err);
    }

    @Test
    void views_refusesABadFileInOneLineNamingTheOptionAndTheField(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path bad = dir.resolve("bad.json");
        java.nio.file.Files.writeString(bad, "{\"table\": \"t\", \"views\": [{\"column\": \"A\", \"bins\": {\"kind\":"
                + " \"range\", \"start\": 0, \"stop\": 10, \"step\": 1}}, {\"column\": \"B\", \"bins\": {\"kind\":"
                + " \"histogram\"}}]}");
        for (String command : List.of("evaluate", "serve")) {
            String err = refusal(command, "--views", bad.toString());
            assertEquals("khameleon-crossfilter " + command + ": --views " + bad + ": views[1].bins.kind: unknown bin kind"
                    + " 'histogram' (range, dates or categories)", err.lines().findFirst().orElse(""));
            assertEquals(2, err.lines().count(), err);
        }
        String missing = refusal("evaluate", "--views", dir.resolve("none.json").toString());
        assertEquals("khameleon-crossfilter evaluate: --views " + dir.resolve("none.json") + ": cannot be read"
                + " (NoSuchFileException)", missing.lines().findFirst().orElse(""));
    }

    @Test
    void views_refusesABlockTooSmallForAViewsFirstBlock_namingTheViewAndTheBytes(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        StringBuilder views = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            views.append(i == 0 ? "" : ", ").append("{\"column\": \"C").append(i).append("\", \"bins\": {\"kind\":"
                    + " \"range\", \"start\": 0, \"stop\": 50, \"step\": 1}}");
        }
        java.nio.file.Path wide = dir.resolve("wide.json");
        java.nio.file.Files.writeString(wide, "{\"table\": \"wide\", \"source\": {\"csv\": \"wide.csv\"}, \"views\": ["
                + views + "]}");
        String err = refusal("serve", "--views", wide.toString(), "--block-size", "12288");
        assertEquals("khameleon-crossfilter serve: --block-size: blockSize must be >= 52030, was 12288: the first block"
                + " of a tile of view C0 (table wide) needs 52030 bytes", err.lines().findFirst().orElse(""));
        assertEquals(2, err.lines().count(), err);
    }

    @Test
    void views_readByDuckDbsCsvReader_refusesPostgres() {
        String err = refusal("serve", "--views", "views/flights-routes.json", "--backend", "postgresql",
                "--data", dataRoot());
        assertEquals("khameleon-crossfilter serve: --backend postgresql: the table of --views views/flights-routes.json"
                + " is read by DuckDB's CSV reader (source.reader csv); use --backend duckdb",
                err.lines().findFirst().orElse(""));
    }

    /** The shared data folder, the test skipped (naming the path) when it lacks the table or the sessions. */
    private static String dataRoot() {
        FlightsData.flightsCsv();
        FlightsData.workflows();
        return dev.khameleon.testing.SharedData.root().toString();
    }

    /** What {@code args} print on standard error, asserting exit status 2. */
    private static String refusal(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = CrossfilterMain.commandLine().setErr(new PrintWriter(err, true));
        assertEquals(2, cl.execute(args));
        return err.toString();
    }
}
