package dev.khameleon.simulator;

import dev.khameleon.testing.SharedData;
import dev.khameleon.simulator.tool.Cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.report.PhaseReporter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CliTest {

    @Test
    void simulate_writesResultsCsvWithTheDocumentedColumnsTwiceIdentically(@TempDir Path dir) throws IOException {
        Path trace = SharedData.require("pointer/gallery/1M-10s.json");
        String[] args = {"simulate", "--trace", trace.toString(), "--trace-format", "gallery",
            "--systems", "baseline,acc-1-1", "--bandwidth-MBps", "15", "--seed", "7", "--out", null};
        args[args.length - 1] = dir.resolve("a").toString();
        assertEquals(0, Cli.run(args));
        args[args.length - 1] = dir.resolve("b").toString();
        assertEquals(0, Cli.run(args));
        List<String> a = Files.readAllLines(dir.resolve("a/results.csv"));
        assertEquals(CsvReporter.HEADER, a.get(0));
        assertEquals(3, a.size());
        assertEquals(Files.readString(dir.resolve("a/results.csv")), Files.readString(dir.resolve("b/results.csv")));
    }

    @Test
    void simulate_latencyByPhase_writesOneRowPerRunAndPhase(@TempDir Path dir) throws IOException {
        Path trace = SharedData.require("pointer/gallery/1M-10s.json");
        String out = captured(false, () -> assertEquals(0, Cli.run("simulate", "--trace", trace.toString(),
                "--trace-format", "gallery", "--systems", "khameleon", "--horizons", "50,100,250,500",
                "--latency-by-phase", "--out", dir.toString())));
        List<String> rows = Files.readAllLines(dir.resolve("latency_by_phase.csv"));
        assertEquals(PhaseReporter.HEADER, rows.get(0));
        assertEquals(1 + PointerPhase.values().length, rows.size());
        assertTrue(out.contains("landing"), out);
    }

    @Test
    void alignHorizons_withThePushEngine_isOneLineNamingTheSystemToUse() {
        String trace = SharedData.require("pointer/gallery/1M-10s.json").toString();
        String out = captured(true, () -> assertEquals(2, Cli.run("simulate", "--trace", trace, "--trace-format",
                "gallery", "--systems", "khameleon", "--align-horizons", "--out", tempOut())));
        assertEquals("khameleon-simulator simulate: system khameleon: --align-horizons shifts only the idealised sender's"
                + " distributions (--systems ideal-sender); the server's push engine does not", out.strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--profile=paper-prototyp", "--profile=paper-prototype --block-bytes=100000",
        "--profile=legacy-100k --utility-vector=1:0.5,10:1.0", "--utility-vector=1:0.6,2:0.5,50:1.0"})
    void profile_badInput_isOneLineNamingTheOptionWithStatus2(String options) {
        String trace = SharedData.require("pointer/gallery/1M-10s.json").toString();
        List<String> args = new java.util.ArrayList<>(List.of("simulate", "--trace", trace, "--trace-format", "gallery",
                "--systems", "progressive", "--out", tempOut()));
        args.addAll(List.of(options.split(" ")));
        String out = captured(true, () -> assertEquals(2, Cli.run(args.toArray(String[]::new))));
        assertEquals(1, out.strip().lines().count(), out);
        String option = options.contains("--utility-vector") ? "--utility-vector"
                : options.contains("--block-bytes") ? "--block-bytes" : "--profile";
        assertTrue(out.contains(option), out);
    }

    @Test
    void profile_setsTheResponseAndIsReportedInTheCsv(@TempDir Path dir) throws IOException {
        String trace = SharedData.require("pointer/gallery/1M-10s.json").toString();
        assertEquals(0, Cli.run("simulate", "--trace", trace, "--trace-format", "gallery", "--systems", "progressive",
                "--profile", "library-default", "--block-bytes", "4096", "--out", dir.toString()));
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        int column = Arrays.asList(lines.get(0).split(",")).indexOf("profile");
        assertEquals("library-default", lines.get(1).split(",")[column], "an explicit option equal to the profile's keeps it");
        assertEquals(0, Cli.run("simulate", "--trace", trace, "--trace-format", "gallery", "--systems", "progressive",
                "--block-bytes", "30000", "--out", dir.toString()));
        assertEquals("custom", Files.readAllLines(dir.resolve("results.csv")).get(1).split(",")[column]);
    }

    private static String tempOut() {
        try {
            return Files.createTempDirectory("align").toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Runs {@code action} with standard error (or output) captured; returns what it printed. */
    private static String captured(boolean stderr, Runnable action) {
        PrintStream saved = stderr ? System.err : System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        if (stderr) {
            System.setErr(capture);
        } else {
            System.setOut(capture);
        }
        try {
            action.run();
        } finally {
            if (stderr) {
                System.setErr(saved);
            } else {
                System.setOut(saved);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void simulate_badInput_isOneLineErrorWithUsageStatus(@TempDir Path dir) {
        String out = captured(true, () -> {
            assertEquals(2, Cli.run("simulate", "--trace", dir.resolve("missing.gz").toString(),
                    "--trace-format", "balabit", "--systems", "khameleon", "--out", dir.toString()));
            assertEquals(2, Cli.run("simulate", "--trace", dir.resolve("missing.gz").toString(),
                    "--bandwidth-MBps", "-3", "--out", dir.toString()));
            // forecast's name for the decay reaches the same setting
            assertEquals(2, Cli.run("simulate", "--trace", dir.resolve("missing.gz").toString(),
                    "--velocity-decay-ms", "-1", "--out", dir.toString()));
        });
        assertTrue(out.contains("khameleon-simulator simulate: trace file not found"), out);
        assertTrue(out.contains("khameleon-simulator simulate: --bandwidth-MBps must be finite and > 0, was -3.0"), out);
        // the name typed, not the other name of the option nor the configuration's
        assertTrue(out.contains("khameleon-simulator simulate: --velocity-decay-ms must be finite and >= 0 (or NaN), was -1.0"),
                out);
        assertTrue(!out.contains("\tat "), "no stack trace for bad input: " + out);
    }

    @Test
    void simulate_mosaic_setsTheThumbnailsOverTheScreen(@TempDir Path dir) throws IOException {
        // Per visit a request is a thumbnail entered: ten times fewer, larger thumbnails are entered less often.
        Path trace = SharedData.require("pointer/gallery/1M-10s.json");
        assertEquals(0, Cli.run("simulate", "--trace", trace.toString(), "--trace-format", "gallery", "--systems",
                "oracle", "--request-mode", "per-visit", "--out", dir.resolve("fine").toString()));
        assertEquals(0, Cli.run("simulate", "--trace", trace.toString(), "--trace-format", "gallery", "--systems",
                "oracle", "--request-mode", "per-visit", "--mosaic", "10x10", "--out", dir.resolve("coarse").toString()));
        int fine = requests(dir.resolve("fine/results.csv"));
        int coarse = requests(dir.resolve("coarse/results.csv"));
        assertTrue(coarse < fine / 2, coarse + " thumbnails entered on a 10x10 mosaic, " + fine + " on 100x100");
        String out = captured(true, () -> assertEquals(2, Cli.run("simulate", "--trace", trace.toString(),
                "--trace-format", "gallery", "--mosaic", "100", "--out", dir.toString())));
        assertTrue(out.contains("--mosaic '100' is not ROWSxCOLS"), out);
    }

    /** The requests column of a one-row results.csv. */
    private static int requests(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        int column = List.of(lines.get(0).split(",")).indexOf("requests");
        return Integer.parseInt(lines.get(1).split(",")[column]);
    }

    @Test
    void simulate_unreadableTraces_areOneLineErrors(@TempDir Path dir) throws IOException {
        Path notGzip = Files.writeString(dir.resolve("session.gz"), "not gzip");
        Path notJson = Files.writeString(dir.resolve("trace.json"), "garbage");
        // A gzip stream cut short: the file is damaged rather than of the wrong kind.
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write("record timestamp,client timestamp,button,state,x,y\n".repeat(100).getBytes(StandardCharsets.UTF_8));
        }
        byte[] whole = gz.toByteArray();
        Path truncated = Files.write(dir.resolve("cut.gz"), Arrays.copyOf(whole, whole.length / 2));
        String out = captured(true, () -> {
            assertEquals(2, Cli.run("simulate", "--trace", notGzip.toString(), "--out", dir.toString()));
            assertEquals(2, Cli.run("simulate", "--trace", notJson.toString(), "--trace-format", "gallery",
                    "--out", dir.toString()));
            // Not a wrong option but a file that cannot be read through: one line too, with the general status.
            assertEquals(1, Cli.run("simulate", "--trace", truncated.toString(), "--out", dir.toString()));
        });
        assertTrue(out.contains("session.gz: not a gzip file"), out);
        assertTrue(out.contains("trace.json: not JSON"), out);
        assertTrue(out.contains("khameleon-simulator simulate: cannot read Balabit session " + truncated
                + ": java.io.EOFException"), out);
        assertEquals(3, out.lines().count(), out);
        assertTrue(!out.contains("\tat "), "no stack trace: " + out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fig12", "fig10"})
    void experiment_writesCsvMarkdownAndSvg(String name, @TempDir Path dir) throws IOException {
        Path data = SharedData.require("pointer/balabit").getParent().getParent();
        assertEquals(0, Cli.run("experiment", name, "--data", data.toString(), "--users", "12", "--segment-s", "20",
                "--pauses", "1", "--systems", "khameleon,baseline", "--out", dir.toString()));
        List<String> csv = Files.readAllLines(dir.resolve(name + ".csv"));
        assertEquals(CsvReporter.HEADER + ",think_time_ms,setting", csv.get(0));
        assertEquals(1 + 3 * 2, csv.size(), "3 settings x 2 systems x 1 trace");
        String md = Files.readString(dir.resolve(name + ".md"));
        assertTrue(md.contains("experiment " + name) && md.contains("| khameleon"), md);
        String svg = Files.readString(dir.resolve(name + ".svg"));
        assertTrue(svg.startsWith("<svg") && svg.contains("polyline"), "chart has lines");
    }

    @Test
    void simulate_rejectsUnknownSystem(@TempDir Path dir) {
        Path trace = SharedData.require("pointer/gallery/1M-10s.json");
        assertNotEquals(0, Cli.run("simulate", "--trace", trace.toString(), "--trace-format", "gallery",
                "--systems", "nope", "--out", dir.toString()));
    }

    @Test
    void simulate_requestModeList_runsEachModeAndLabelsItsRows(@TempDir Path dir) throws IOException {
        Path trace = SharedData.require("pointer/gallery/1M-10s.json");
        assertEquals(0, Cli.run("simulate", "--trace", trace.toString(), "--trace-format", "gallery",
                "--systems", "baseline", "--request-mode", "per-sample,per-visit", "--out", dir.toString()));
        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(3, csv.size(), "header + one row per mode");
        List<String> header = List.of(csv.get(0).split(","));
        int mode = header.indexOf("request_mode");
        int kind = header.indexOf("trace_kind");
        int requests = header.indexOf("requests");
        String[] sample = csv.get(1).split(",");
        String[] visit = csv.get(2).split(",");
        assertEquals("per-sample", sample[mode]);
        assertEquals("per-visit", visit[mode]);
        assertEquals("60hz", sample[kind], "the gallery trace is sampled every 20 ms");
        assertTrue(Integer.parseInt(sample[requests]) > Integer.parseInt(visit[requests]), csv.toString());
    }

    @Test
    void experiment_usersAreBalabitUserNumbers(@TempDir Path dir) {
        Path data = SharedData.require("pointer/balabit").getParent().getParent();
        String out = captured(true, () -> {
            assertEquals(2, Cli.run("experiment", "fig12", "--data", data.toString(), "--users", "3",
                    "--out", dir.toString()));
            assertEquals(2, Cli.run("experiment", "fig12", "--data", data.toString(), "--users", "7",
                    "--request-mode", "per-cell", "--out", dir.toString()));
        });
        assertTrue(out.contains("--users: no Balabit user 3"), out);
        assertTrue(out.contains("unknown request mode per-cell"), out);
    }

    @Test
    void help_namesTheRequestModes() {
        String help = captured(false, () -> assertEquals(0, Cli.run("simulate", "--help")));
        assertTrue(help.contains("--request-mode") && help.contains("per-sample") && help.contains("--sample-ms"), help);
    }

    /** Runs the bench CLI with both streams captured; returns {exit status, stdout, stderr}. */
    private static String[] execute(String... args) {
        String[] r = new String[3];
        r[2] = captured(true, () -> r[1] = captured(false, () -> r[0] = Integer.toString(Cli.run(args))));
        return r;
    }

    /**
     * A parse error is its own line naming what was typed, then at most three lines of the options it
     * concerns, then where to find all options: never the whole usage (125+ lines), and a mistyped
     * option is not hidden behind the required options still missing.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "simulate --bogus|khameleon-simulator simulate: --bogus: unknown option",
        "simulate --out o --bandwdith-MBps 3|khameleon-simulator simulate: --bandwdith-MBps: unknown option|"
            + "  --bandwidth-MBps=",
        "simulate --trace t --out o --bandwidth abc|khameleon-simulator simulate: --bandwidth: unknown option|"
            + "  --bandwidth-MBps=",
        "simulate --trace t --out o --bandwidth-MBps abc|khameleon-simulator simulate: --bandwidth-MBps abc: not a number|"
            + "  --bandwidth-MBps=<number>  Downlink MB/s (default 5.625).",
        "simulate --trace t --out o --bandwidth-MBps=abc|khameleon-simulator simulate: --bandwidth-MBps abc: not a number|"
            + "  --bandwidth-MBps=",
        "simulate --trace t --out o --velocity-decay-ms x|khameleon-simulator simulate: --velocity-decay-ms x: not a number|"
            + "  --kalman-decay-ms, --velocity-decay-ms=",
        "simulate --trace t --out o --block-bytes 1.5|khameleon-simulator simulate: --block-bytes 1.5: not a whole number|"
            + "  --block-bytes=",
        "simulate --trace t --out o --scheduler-time fast|khameleon-simulator simulate: --scheduler-time fast: expected one"
            + " of model, measured, zero|  --scheduler-time=<model|measured|zero>  ",
        "simulate --out o|khameleon-simulator simulate: missing --trace|  --trace=",
        "simulate|khameleon-simulator simulate: missing options --trace, --out|  --trace=",
        "simulate --trace t --out|khameleon-simulator simulate: --out: needs a value|  --out=",
        "simulate --trace t --out o --seed 1 --seed 2|khameleon-simulator simulate: --seed: given more than once|  --seed=",
        "simulate --trace t --out o stray|khameleon-simulator simulate: stray: unexpected argument",
        "experiment fig12 --pauses x --out o|khameleon-simulator experiment: --pauses x: not a whole number|  --pauses=",
        "simulat --trace t|khameleon-simulator: simulat: unknown command|  simulate ",
        "--bogus|khameleon-simulator: --bogus: unknown option"})
    void parseError_isOneLineNamingTheFlagPlusItsOptionsWithStatus2(String testCase) {
        String[] parts = testCase.split("\\|");
        String[] r = execute(parts[0].split(" "));
        List<String> lines = r[2].lines().toList();
        assertEquals("2", r[0], r[2]);
        assertEquals("", r[1], "nothing on standard output");
        assertTrue(lines.size() >= 2 && lines.size() <= 5, lines.size() + " lines: " + r[2]);
        assertTrue(lines.get(0).startsWith(parts[1]), r[2]);
        String command = parts[0].startsWith("-") || parts[0].startsWith("simulat ") ? "khameleon-simulator"
                : "khameleon-simulator " + parts[0].split(" ")[0];
        assertEquals("Run '" + command + " --help' for all " + (command.contains(" ") ? "options" : "commands") + ".",
                lines.get(lines.size() - 1));
        if (parts.length > 2) {
            assertTrue(lines.get(1).startsWith(parts[2]), r[2]);
            // the value's kind, not the Java field's name picocli would show (<bandwidthMBps>)
            assertTrue(!java.util.regex.Pattern.compile("=<[a-z]+[A-Z]").matcher(lines.get(1)).find(), r[2]);
        } else if (!parts[1].endsWith(":")) {
            assertEquals(2, lines.size(), "no option is close to what was typed: " + r[2]);
        }
    }

    /**
     * A value out of range is one line naming the option typed, not the setting's Java name
     * ({@code bandwidthMBps}, {@code kalmanProcessNoise}): the configuration and predictor builders
     * name their settings as Java does, and the command re-words their messages. Validation comes
     * before the trace is read, so the trace need not exist.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "simulate --bandwidth-MBps 0|--bandwidth-MBps must be",
        "simulate --latency-ms -1|--latency-ms must be",
        "simulate --cache-MB -1|--cache-MB must be",
        "simulate --think-time-ms -1|--think-time-ms must be",
        "simulate --warmup-ms -1|--warmup-ms must be",
        "simulate --sample-ms 0|--sample-ms must be",
        "simulate --kalman-q 0|--kalman-q must be",
        "simulate --kalman-decay-ms -1|--kalman-decay-ms must be",
        "simulate --along-track -0.5|--along-track must be",
        "simulate --prediction-interval-ms 0|--prediction-interval-ms must be",
        "simulate --min-block-gain 0|--min-block-gain must be",
        "simulate --block-gain-share 2|--block-gain-share must be",
        "simulate --tail-rest-fade-ms -1|--tail-rest-fade-ms must be",
        "simulate --sigma-scale 0|--sigma-scale must be",
        "simulate --horizons 100,50|--horizons must be",
        "simulate --tail 0.2,2,-1|--tail MIN_SIGMA_PX must be",
        "simulate --tail 0.2,0,20|--tail WIDEN must be",
        "simulate --block-bytes 0|--block-bytes must be >= 1, was 0",
        "simulate --threads 0|--threads must be >= 1, was 0",
        "simulate --segment-s 0|--segment-s must be",
        "simulate --idle-gap-ms -5|--idle-gap-ms must be",
        "simulate --segments 0|--segments must be",
        "forecast --kalman-q 0|--kalman-q must be",
        "forecast --measurement-noise 0|--measurement-noise must be",
        "forecast --kalman-decay-ms -1|--kalman-decay-ms must be",
        "forecast --initial-velocity-sigma 0|--initial-velocity-sigma must be",
        "forecast --reset-after-ms -1|--reset-after-ms must be",
        "forecast --along-track -1|--along-track must be",
        "forecast --horizons 100,50|--horizons must be"})
    void outOfRangeValue_isOneLineNamingTheFlagTyped(String testCase) {
        String[] parts = testCase.split("\\|");
        List<String> args = new java.util.ArrayList<>(List.of(parts[0].split(" ")));
        args.addAll(List.of("--trace", "/nonexistent/trace.gz"));
        if (args.get(0).equals("simulate")) {
            args.addAll(List.of("--out", tempOut()));
        }
        String[] r = execute(args.toArray(String[]::new));
        assertEquals("2", r[0], r[2]);
        assertEquals(1, r[2].lines().count(), r[2]);
        assertTrue(r[2].startsWith("khameleon-simulator " + args.get(0) + ": " + parts[1]), r[2]);
        assertTrue(!r[2].matches("(?s).*\\b[a-z]+[A-Z][A-Za-z]*\\b.*"), "no Java name: " + r[2]);
    }

    @Test
    void utility_badBlockSize_namesTheOption() {
        String[] r = execute("utility", "--images", "/nonexistent", "--block-size", "0");
        assertEquals("2", r[0], r[2]);
        assertEquals("khameleon-simulator utility: --block-size must be >= 1, was 0", r[2].lines().findFirst().orElse(""));
        assertTrue(r[2].lines().count() <= 5, r[2]);
    }
}
