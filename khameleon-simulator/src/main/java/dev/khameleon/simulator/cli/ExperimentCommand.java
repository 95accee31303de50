package dev.khameleon.simulator.cli;

import dev.khameleon.simulator.FlagNames;
import dev.khameleon.simulator.Experiments;
import dev.khameleon.simulator.Metrics;
import dev.khameleon.simulator.Profile;
import dev.khameleon.simulator.RequestMode;
import dev.khameleon.simulator.Runner;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.TraceKind;
import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.report.SvgChart;
import dev.khameleon.simulator.report.TableReporter;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceLoader;
import dev.khameleon.simulator.trace.TraceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code experiment NAME}: runs one of the paper's figure grids over real traces and writes
 * {@code NAME.csv}, {@code NAME.md} (table + the command) and {@code NAME.svg} (chart in the
 * paper's layout) to the output directory.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "Run a figure grid of the paper: fig6-7, fig8, fig9, fig10, fig11, fig12, fig13.")
public final class ExperimentCommand implements Callable<Integer> {
    private static final double[] ELAPSED_MS = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
    /** The reference configuration: the defaults of the options that set it. */
    private static final SimConfig DEFAULTS = SimConfig.builder().build();

    @Parameters(index = "0", description = "Experiment name.")
    String name;

    @Option(names = "--data", defaultValue = "../shared/data", description = "Shared data directory (default ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--trace", split = ",",
            description = "Balabit trace files (#k picks a segment); default: segment 0 of the first session of each of --users.")
    List<String> traces;

    @Option(names = "--users", defaultValue = "7,9,12,15,16", split = ",",
            description = "Balabit users to take default traces from, by number (default ${DEFAULT-VALUE}: two 60 Hz and "
                    + "three coalesced recorders; the kind is measured from each trace, not taken from this list).")
    List<String> users;

    @Option(names = "--request-mode", split = ",",
            description = "per-sample (every --sample-ms sample is a request, the paper's traces), per-visit (one request "
                    + "per cell entry), or both comma-separated; reported in the request_mode column (default ${DEFAULT-VALUE}).")
    List<String> requestModes = List.of(DEFAULTS.requestMode().label());

    @Option(names = "--sample-ms", description = "per-sample grid interval, ms (default ${DEFAULT-VALUE}).")
    double sampleMillis = DEFAULTS.sampleMillis();

    @Option(names = "--segment-s", defaultValue = "180", description = "Segment length in s (default ${DEFAULT-VALUE}).")
    double segmentSeconds;

    @Option(names = "--pauses", defaultValue = "3", description = "fig10: pause points per trace (default ${DEFAULT-VALUE}).")
    int pauses;

    @Option(names = "--systems", split = ",", description = "Override the experiment's systems.")
    List<String> systems;

    @Option(names = "--seed", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed = DEFAULTS.seed();

    @Option(names = "--profile", paramLabel = "NAME",
            description = "What a response is: paper-prototype, library-default or legacy-100k (default ${DEFAULT-VALUE}).")
    String profile = DEFAULTS.profileLabel();

    @Option(names = "--threads", defaultValue = "1", description = "Runs in parallel (default ${DEFAULT-VALUE}).")
    int threads;

    @Mixin
    PrefetchOptions prefetch = new PrefetchOptions();

    /** Default output directory: under the git-ignored {@code out/}, never over the committed docs/results. */
    static final String DEFAULT_OUT = "out/experiments";

    @Option(names = "--out", defaultValue = DEFAULT_OUT,
            description = "Output directory (default ${DEFAULT-VALUE}; pass --out docs/results to regenerate the committed results).")
    Path out;

    @Override
    public Integer call() {
        SimConfig base;
        try {
            base = prefetch.apply(SimConfig.builder().profile(Profile.parse(profile)).seed(seed)
                    .sampleMillis(sampleMillis)).build();
        } catch (IllegalArgumentException e) {
            throw FlagNames.reword(e, java.util.Map.of("sampleMillis", "--sample-ms"));
        }
        SimulateCommand.checkThreads(threads);
        TraceOptions.checkSegments(1, segmentSeconds, 2000);
        Experiments.Experiment exp = Experiments.get(name, base, data);
        List<RequestMode> modes = SimulateCommand.parseModes(requestModes);
        List<String> specs = traces != null ? traces : defaultTraces();
        List<PointerTrace> loaded = TraceLoader.load(specs, TraceLoader.Format.BALABIT, 1, segmentSeconds * 1000, 2000);
        if (exp.convergence()) {
            loaded = Experiments.pausePoints(loaded, pauses, seed);
        }
        List<String> sys = systems != null ? systems : exp.systems();
        List<Runner.Job> jobs = new ArrayList<>();
        List<Integer> settingOfJob = new ArrayList<>();
        for (int s = 0; s < exp.settings().size(); s++) {
            for (RequestMode mode : modes) {
                SimConfig config = exp.settings().get(s).config().toBuilder().requestMode(mode).build();
                for (String system : sys) {
                    for (PointerTrace t : loaded) {
                        jobs.add(new Runner.Job(config, t, system));
                        settingOfJob.add(s);
                    }
                }
            }
        }
        List<Simulator.Result> results = Runner.runAll(jobs, threads, System.err, System.console() != null);
        StringBuilder csv = new StringBuilder(CsvReporter.HEADER).append(",think_time_ms,setting\n");
        for (int i = 0; i < results.size(); i++) {
            Simulator.Result r = results.get(i);
            csv.append(CsvReporter.row(r)).append(',').append(CsvReporter.num(r.config().thinkTimeMillis(), 0))
                    .append(',').append(exp.settings().get(settingOfJob.get(i)).label()).append('\n');
        }
        String command = "java -jar khameleon-simulator/target/khameleon-simulator.jar experiment " + name
                + (traces != null ? " --trace " + String.join(",", traces) : " --users " + String.join(",", users))
                + " --profile " + base.profileLabel() + " --segment-s " + CsvReporter.num(segmentSeconds, 0) + (exp.convergence() ? " --pauses " + pauses : "")
                + (systems != null ? " --systems " + String.join(",", systems) : "")
                + " --request-mode " + String.join(",", modes.stream().map(RequestMode::label).toList())
                + (sampleMillis != DEFAULTS.sampleMillis() ? " --sample-ms " + CsvReporter.num(sampleMillis, 1) : "") + " --seed " + seed
                + prefetch.changed()
                + (out.equals(Path.of(DEFAULT_OUT)) ? "" : " --out " + out);
        Cells cells = new Cells(exp, sys, modes, results, settingOfJob);
        String md;
        String svg;
        if (exp.convergence()) {
            md = convergenceMarkdown(exp, cells, loaded, command);
            svg = convergenceChart(exp, cells);
        } else {
            md = gridMarkdown(exp, cells, loaded, command);
            svg = gridChart(exp, cells);
        }
        SimulateCommand.write(out.resolve(name + ".csv"), csv.toString());
        SimulateCommand.write(out.resolve(name + ".md"), md);
        SimulateCommand.write(out.resolve(name + ".svg"), svg);
        System.out.print(md);
        System.err.println("wrote " + out.resolve(name + ".{csv,md,svg}"));
        return 0;
    }

    /** Segment 0 of the first session (by file name) of each user in {@code --users}. */
    private List<String> defaultTraces() {
        Path dir = data.resolve("pointer/balabit");
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("Balabit traces not found: " + dir.toAbsolutePath() + " (use --data)");
        }
        List<String> out = new ArrayList<>();
        for (String u : users) {
            String id = u.trim().startsWith("user") ? u.trim() : "user" + u.trim();
            Path user = dir.resolve(id);
            if (!id.matches("user[0-9]+") || !Files.isDirectory(user)) {
                throw new IllegalArgumentException("--users: no Balabit user " + u + " under " + dir.toAbsolutePath());
            }
            try (Stream<Path> sessions = Files.list(user)) {
                Path first = sessions.filter(p -> p.toString().endsWith(".gz")).sorted().findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("--users: no session in " + user.toAbsolutePath()));
                out.add(first + "#0");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + user, e);
            }
        }
        return out;
    }

    /**
     * The runs grouped into table cells: one per (setting, request mode, trace kind, system), in
     * that order, each holding that cell's traces. Kinds appear only where traces of them ran.
     */
    private static final class Cells {
        record Key(int setting, RequestMode mode, TraceKind kind, String system) {
        }

        final Map<Key, List<Simulator.Result>> byKey = new LinkedHashMap<>();
        final List<String> systems;
        final List<RequestMode> modes;
        final List<TraceKind> kinds = new ArrayList<>();

        Cells(Experiments.Experiment exp, List<String> systems, List<RequestMode> modes, List<Simulator.Result> results,
              List<Integer> settingOfJob) {
            this.systems = systems;
            this.modes = modes;
            for (TraceKind k : TraceKind.values()) {
                if (results.stream().anyMatch(r -> r.traceKind() == k)) {
                    kinds.add(k);
                }
            }
            for (int s = 0; s < exp.settings().size(); s++) {
                for (RequestMode m : modes) {
                    for (TraceKind k : kinds) {
                        for (String system : systems) {
                            byKey.put(new Key(s, m, k, system), new ArrayList<>());
                        }
                    }
                }
            }
            for (int i = 0; i < results.size(); i++) {
                Simulator.Result r = results.get(i);
                byKey.get(new Key(settingOfJob.get(i), r.config().requestMode(), r.traceKind(), r.system())).add(r);
            }
        }

        /**
         * A chart line: one color per system, one dash pattern per (mode, kind); the name carries
         * the mode and kind when more than one of either ran.
         */
        SvgChart.Series series(RequestMode mode, TraceKind kind, String system, double[] x, double[] y) {
            boolean qualified = modes.size() > 1 || kinds.size() > 1;
            String name = qualified ? system + " (" + mode.label() + ", " + kind.label() + ")" : system;
            return new SvgChart.Series(name, x, y, system, modes.indexOf(mode) * kinds.size() + kinds.indexOf(kind));
        }

        List<Simulator.Result> get(int setting, RequestMode mode, TraceKind kind, String system) {
            return byKey.get(new Key(setting, mode, kind, system));
        }
    }

    /** Mean over the traces of one (setting, system) cell; NaNs skipped. */
    private static double mean(List<Simulator.Result> cell, ToDoubleFunction<Metrics> f) {
        double sum = 0;
        int n = 0;
        for (Simulator.Result r : cell) {
            double v = f.applyAsDouble(r.metrics());
            if (!Double.isNaN(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private static String gridMarkdown(Experiments.Experiment exp, Cells cells, List<PointerTrace> traces,
                                       String command) {
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Cells.Key, List<Simulator.Result>> e : cells.byKey.entrySet()) {
            Cells.Key key = e.getKey();
            List<Simulator.Result> c = e.getValue();
            Experiments.Setting setting = exp.settings().get(key.setting());
            rows.add(List.of(setting.group(), setting.label(), key.mode().label(), key.kind().label(), key.system(),
                    Integer.toString(c.size()),
                    CsvReporter.num(100 * mean(c, Metrics::staleHoverRate), 1),
                    CsvReporter.num(mean(c, Metrics::meanWaitAllMs), 1),
                    CsvReporter.num(mean(c, Metrics::firstUtilityAll), 3),
                    CsvReporter.num(mean(c, Metrics::requests), 0),
                    CsvReporter.num(100 * mean(c, Metrics::hitRate), 1),
                    CsvReporter.num(100 * mean(c, Metrics::hitRateNonPreempted), 1),
                    CsvReporter.num(100 * mean(c, Metrics::preemptedRate), 1),
                    CsvReporter.num(mean(c, Metrics::neverAnswered), 1),
                    CsvReporter.num(mean(c, Metrics::meanLatencyMs), 1),
                    CsvReporter.num(mean(c, Metrics::p95LatencyMs), 1),
                    CsvReporter.num(mean(c, Metrics::p99LatencyMs), 1),
                    CsvReporter.num(100 * mean(c, Metrics::tailLatencyShare), 1),
                    CsvReporter.num(mean(c, Metrics::meanUtility), 3),
                    CsvReporter.num(100 * mean(c, Metrics::overpushRate), 1)));
        }
        return header(exp, traces, command)
                + TableReporter.markdown(List.of("panel", exp.xAxis(), "requests as", "trace kind", "system", "traces",
                "stale hover %", "mean wait, all visits ms", "utility at first answer, all visits", "requests", "hit %", "hit % of non-preempted", "preempted %", "never answered", "mean latency ms",
                "p95 latency ms", "p99 latency ms", "slowest 5 % share of latency %", "utility", "over-push %"), rows)
                + "\n![" + exp.name() + "](" + exp.name() + ".svg)\n";
    }

    private static String header(Experiments.Experiment exp, List<PointerTrace> traces, String command) {
        StringBuilder sb = new StringBuilder("# ").append(exp.title()).append("\n\n");
        sb.append("Command (from the repository root, after `mvn -B package -pl khameleon-simulator -am -DskipTests`):\n\n```\n")
                .append(command).append("\n```\n\n");
        sb.append("Traces (Balabit Mouse Dynamics Challenge sessions, cut into segments of interaction; kind from the "
                + "median interval between samples): ");
        List<String> names = new ArrayList<>();
        for (PointerTrace t : traces) {
            names.add("`" + t.name() + "` (" + TraceKind.of(t).label() + ", "
                    + CsvReporter.num(t.medianIntervalMillis(), 0) + " ms)");
        }
        sb.append(String.join(", ", names)).append(". Each row is the mean over the traces of one kind; per-run rows "
                + "are in `").append(exp.name()).append(".csv`. Latency statistics include never-answered requests, "
                + "counted until the end of the run (see docs/simulator.md).\n\n");
        return sb.toString();
    }

    private static String gridChart(Experiments.Experiment exp, Cells cells) {
        Map<String, List<Experiments.Setting>> groups = Experiments.byGroup(exp.settings());
        List<SvgChart.Panel> panels = new ArrayList<>();
        record MetricView(String title, boolean log, ToDoubleFunction<Metrics> f) {
        }
        List<MetricView> views = List.of(new MetricView("% stale hover", false, m -> 100 * m.staleHoverRate()),
                new MetricView("mean wait, all visits (ms, log)", true, Metrics::meanWaitAllMs),
                new MetricView("% cache hits", false, m -> 100 * m.hitRate()),
                new MetricView("% preempted", false, m -> 100 * m.preemptedRate()),
                new MetricView("mean latency (ms, log)", true, Metrics::meanLatencyMs),
                new MetricView("mean utility", false, Metrics::meanUtility));
        for (MetricView v : views) {
            for (Map.Entry<String, List<Experiments.Setting>> g : groups.entrySet()) {
                List<SvgChart.Series> series = new ArrayList<>();
                for (RequestMode mode : cells.modes) {
                    for (TraceKind kind : cells.kinds) {
                        for (String system : cells.systems) {
                            double[] x = new double[g.getValue().size()];
                            double[] y = new double[x.length];
                            for (int i = 0; i < x.length; i++) {
                                Experiments.Setting s = g.getValue().get(i);
                                x[i] = s.x();
                                y[i] = mean(cells.get(exp.settings().indexOf(s), mode, kind, system), v.f());
                            }
                            series.add(cells.series(mode, kind, system, x, y));
                        }
                    }
                }
                panels.add(new SvgChart.Panel(v.title() + " — " + g.getKey(), exp.xAxis(), exp.logX(), v.log(), series));
            }
        }
        // One panel column per condition, as in the paper; a single condition gets its metrics side by side.
        return SvgChart.render(exp.title(), groups.size() == 1 ? views.size() : groups.size(), panels);
    }

    /** Mean utility of the last request {@code elapsed} ms after its registration. */
    private static double utilityAt(Metrics m, double elapsed) {
        double u = 0;
        for (double[] p : m.convergenceCurve()) {
            if (p[0] <= elapsed) {
                u = Math.max(u, p[1]);
            }
        }
        return u;
    }

    private static String convergenceMarkdown(Experiments.Experiment exp, Cells cells, List<PointerTrace> traces,
                                              String command) {
        List<String> header = new ArrayList<>(List.of("resources", "requests as", "trace kind", "system", "traces",
                "converged %", "mean convergence ms"));
        for (double e : ELAPSED_MS) {
            header.add("U@" + CsvReporter.num(e, 0) + "ms");
        }
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Cells.Key, List<Simulator.Result>> en : cells.byKey.entrySet()) {
            Cells.Key key = en.getKey();
            List<Simulator.Result> c = en.getValue();
            List<String> row = new ArrayList<>(List.of(exp.settings().get(key.setting()).group(), key.mode().label(),
                    key.kind().label(), key.system(), Integer.toString(c.size()),
                    CsvReporter.num(100 * mean(c, m -> Double.isNaN(m.convergenceMs()) ? 0 : 1), 0),
                    CsvReporter.num(mean(c, Metrics::convergenceMs), 0)));
            for (double e : ELAPSED_MS) {
                row.add(CsvReporter.num(mean(c, m -> utilityAt(m, e)), 3));
            }
            rows.add(row);
        }
        return header(exp, traces, command) + "Each trace is cut at " + "random pause points (seeded); the last request "
                + "before the pause is followed until its utility reaches 1 (or 30 s pass).\n\n"
                + TableReporter.markdown(header, rows) + "\n![" + exp.name() + "](" + exp.name() + ".svg)\n";
    }

    private static String convergenceChart(Experiments.Experiment exp, Cells cells) {
        List<SvgChart.Panel> panels = new ArrayList<>();
        for (int s = 0; s < exp.settings().size(); s++) {
            List<SvgChart.Series> series = new ArrayList<>();
            for (RequestMode mode : cells.modes) {
                for (TraceKind kind : cells.kinds) {
                    for (String system : cells.systems) {
                        List<Simulator.Result> c = cells.get(s, mode, kind, system);
                        double[] y = new double[ELAPSED_MS.length];
                        for (int i = 0; i < y.length; i++) {
                            double e = ELAPSED_MS[i];
                            y[i] = mean(c, m -> utilityAt(m, e));
                        }
                        series.add(cells.series(mode, kind, system, ELAPSED_MS.clone(), y));
                    }
                }
            }
            panels.add(new SvgChart.Panel("utility — " + exp.settings().get(s).group(), exp.xAxis(), true, false, series));
        }
        return SvgChart.render(exp.title(), panels.size(), panels);
    }
}
