package dev.khameleon.loadtest.fleet;

import dev.khameleon.loadtest.proxy.HaproxyConfig;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

/**
 * Sizes a fleet: runs the {@link FleetRig} for each node count, fits a {@link FleetModel} on the
 * calibration runs, compares its predictions with the other runs, and extrapolates to many
 * sessions on nodes of a given budget. Everything runs on 127.0.0.1; a watchdog ends a run that
 * overstays its expected time by two minutes.
 *
 * <pre>
 * mvn -B -q package -pl khameleon-loadtest -am -DskipTests
 * java -jar khameleon-loadtest/target/khameleon-loadtest.jar fleet [--calibrate 1,2] [--validate 3] \
 *     [--sessions-per-node 3] [--warmup 10] [--seconds 30] [--target-sessions 100000] \
 *     [--object-store] [--redis-memory 256mb]
 * </pre>
 */
@Command(name = "fleet", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A fleet on loopback, modelled per session and extrapolated to many sessions.",
                "Runs HAProxy, Redis (and optionally an S3 object store) and N server nodes with clients replaying",
                "Balabit traces, fits a per-session fleet model on the calibration runs, checks it on the others and",
                "extrapolates it to many sessions."})
public final class FleetCommand implements Callable<Integer> {
    @Option(names = "--calibrate", split = ",", description = "Node counts the model is fitted on (at least two "
            + "different ones), each in [1, 8]; default 1,2")
    int[] calibrate = {1, 2};

    @Option(names = "--validate", split = ",", description = "Node counts the model predicts and the rig then "
            + "measures, each in [1, 8]; default 3")
    int[] validate = {3};

    @Option(names = "--sessions-per-node", description = "Client sessions per node, in [1, 50]; default ${DEFAULT-VALUE}")
    int sessionsPerNode = 3;

    @Option(names = "--warmup", description = "Seconds of replay before each window, in [0, 120]; default ${DEFAULT-VALUE}")
    int warmup = 10;

    @Option(names = "--seconds", description = "Measured seconds per run, in [1, 600]; default ${DEFAULT-VALUE}")
    int seconds = 30;

    @Option(names = "--rate", description = "Bytes/s each node pushes to each session, in [1000, 1e8]; "
            + "default ${DEFAULT-VALUE}")
    double rate = 50_000;

    @Option(names = "--memory-bytes", description = "Each node's memory tier in bytes, in [0, 1 GiB]; "
            + "default ${DEFAULT-VALUE}")
    long memoryBytes = 4L << 20;

    @Option(names = "--seed", description = "Places the sessions' screens on the canvas; default ${DEFAULT-VALUE}")
    long seed = 1;

    @Option(names = "--target-sessions", description = "Sessions the model extrapolates to, in [1, 1e9]; "
            + "default ${DEFAULT-VALUE}")
    long targetSessions = 100_000;

    @Option(names = "--node-cores", description = "CPU cores a node may use, for the extrapolation; "
            + "default ${DEFAULT-VALUE}")
    double nodeCores = 8;

    @Option(names = "--node-egress", description = "Egress bytes/s a node may push, for the extrapolation; "
            + "default ${DEFAULT-VALUE} (10 Gbit/s)")
    double nodeEgress = 1.25e9;

    @Option(names = "--balabit", description = "The Balabit pointer sessions; default ${DEFAULT-VALUE}")
    Path balabit = Path.of("..", "shared", "data", "pointer", "balabit");

    @Option(names = "--haproxy", description = "The haproxy binary (Debian package haproxy); default ${DEFAULT-VALUE}")
    Path haproxy = Path.of("/usr/sbin/haproxy");

    @Option(names = "--redis-server", description = "The redis-server binary (Debian package redis-server); "
            + "default ${DEFAULT-VALUE}")
    Path redisServer = Path.of("/usr/bin/redis-server");

    @Option(names = "--object-store", description = "Put an S3 object store (S3Proxy in its own JVM, in memory) "
            + "below Redis in every node's tier stack")
    boolean objectStore;

    @Option(names = "--redis-memory", description = "The shared Redis's maxmemory (LRU beyond it), e.g. 8mb; "
            + "default ${DEFAULT-VALUE}")
    String redisMemory = "256mb";

    @Option(names = "--config-doc", description = "The page whose ```haproxy block the proxy runs; "
            + "default ${DEFAULT-VALUE}")
    Path configDoc = Path.of("docs", "scale-out.md");

    /**
     * Checks every option and the files the rig needs.
     *
     * @throws IllegalArgumentException naming the option and its bad value, or the missing file and its package
     */
    void validate() {
        if (new TreeSet<>(Arrays.stream(calibrate).boxed().toList()).size() < 2) {
            throw new IllegalArgumentException("--calibrate: give at least two different node counts, was "
                    + Arrays.toString(calibrate));
        }
        for (int n : IntStream.concat(Arrays.stream(calibrate), Arrays.stream(validate)).toArray()) {
            settings(n);
        }
        if (targetSessions < 1 || targetSessions > 1_000_000_000L) {
            throw new IllegalArgumentException("--target-sessions: " + targetSessions + " is outside [1, 1e9]");
        }
        if (!(nodeCores > 0) || Double.isInfinite(nodeCores)) {
            throw new IllegalArgumentException("--node-cores: must be finite and > 0, was " + nodeCores);
        }
        if (!(nodeEgress > 0) || Double.isInfinite(nodeEgress)) {
            throw new IllegalArgumentException("--node-egress: must be finite and > 0, was " + nodeEgress);
        }
        FleetRig.Settings.checkRedisMemory(redisMemory);
        requireExecutable(haproxy, "--haproxy", "haproxy");
        requireExecutable(redisServer, "--redis-server", "redis-server");
        if (!Files.isDirectory(balabit)) {
            throw new IllegalArgumentException("--balabit: " + balabit.toAbsolutePath().normalize()
                    + " not found (the Balabit pointer traces of the shared data)");
        }
    }

    private static void requireExecutable(Path p, String option, String debianPackage) {
        if (!Files.isExecutable(p)) {
            throw new IllegalArgumentException(option + ": " + p + " not found (install Debian's package "
                    + debianPackage + ", or pass " + option + " PATH)");
        }
    }

    /** The rig's settings for {@code nodes} nodes. */
    FleetRig.Settings settings(int nodes) {
        return new FleetRig.Settings(nodes, sessionsPerNode, warmup, seconds, rate, memoryBytes, seed, balabit, haproxy,
                redisServer, configDoc, redisMemory, objectStore);
    }

    @Override
    public Integer call() throws Exception {
        validate();
        HaproxyConfig.documented(configDoc);
        int runs = calibrate.length + validate.length;
        long expected = runs * (warmup + seconds + 60L);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep((expected + 120) * 1000);
                System.err.println("fleet: still running two minutes after it should have ended; exiting");
                System.exit(3);
            } catch (InterruptedException e) {
                // done in time
            }
        }, "fleet-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        PrintStream out = System.out;
        out.println(header());
        List<FleetRig.Result> calibration = new ArrayList<>();
        List<FleetRig.Result> validation = new ArrayList<>();
        for (int n : calibrate) {
            calibration.add(runOnce(n, out));
        }
        for (int n : validate) {
            validation.add(runOnce(n, out));
        }
        out.println();
        out.println(nodeTable(calibration, validation));
        FleetModel model = FleetModel.fit(calibration.stream().map(FleetRig.Result::fleet).toList());
        out.println();
        out.println("model: " + model);
        for (FleetRig.Result v : validation) {
            out.println();
            out.println(comparisonTable(model, v.fleet()));
        }
        out.println();
        out.println(extrapolationTable(model, targetSessions, nodeCores, nodeEgress));
        watchdog.interrupt();
        return 0;
    }

    /**
     * The first line of the output: the settings and the machine's core count. Not its load
     * average: these results are pasted into docs, where the load of the moment means nothing.
     */
    String header() {
        return String.format(Locale.ROOT, "fleet: %d sessions per node at %.0f B/s, memory tier %d bytes per node,"
                        + " Redis %s%s, %d s warm-up + %d s per run; %d cores", sessionsPerNode, rate, memoryBytes,
                redisMemory, objectStore ? " + object store" : "", warmup, seconds,
                Runtime.getRuntime().availableProcessors());
    }

    private FleetRig.Result runOnce(int n, PrintStream out) throws Exception {
        FleetRig.Result r = FleetRig.run(settings(n));
        out.printf(Locale.ROOT, "%d node(s): %.1f s window, sessions per node %s, blocks pushed %.0f/s, client hit"
                        + " rate %.3f, HAProxy %.3f cores%n", n, r.windowSeconds(),
                r.nodeRates().stream().map(x -> Long.toString(x.sessions())).toList(), r.blocksPushed(), r.hitRate(),
                r.proxyCores());
        return r;
    }

    /** Every node of every run, one row each, as a Markdown table. */
    static String nodeTable(List<FleetRig.Result> calibration, List<FleetRig.Result> validation) {
        StringBuilder t = new StringBuilder("| run | nodes | node | sessions |");
        for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
            t.append(' ').append(q.label()).append(" |");
        }
        t.append("\n|---|---:|---:|---:|").append("---:|".repeat(FleetModel.Quantity.values().length)).append('\n');
        for (boolean cal : new boolean[] {true, false}) {
            for (FleetRig.Result r : cal ? calibration : validation) {
                for (int k = 0; k < r.nodeRates().size(); k++) {
                    row(t, cal ? "calibration" : "validation", r.fleet().nodes(), Integer.toString(k + 1),
                            r.nodeRates().get(k));
                }
                row(t, cal ? "calibration" : "validation", r.fleet().nodes(), "all", r.fleet());
            }
        }
        return t.toString().stripTrailing();
    }

    private static void row(StringBuilder t, String run, int nodes, String node, FleetModel.FleetRates r) {
        t.append("| ").append(run).append(" | ").append(nodes).append(" | ").append(node).append(" | ")
                .append(r.sessions()).append(" |");
        for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
            t.append(' ').append(q.format(r)).append(" |");
        }
        t.append('\n');
    }

    /** Predicted against measured for one run, as a Markdown table with the relative error. */
    static String comparisonTable(FleetModel model, FleetModel.FleetRates measured) {
        FleetModel.FleetRates predicted = model.predict(measured.nodes(), measured.sessions());
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%d nodes, %d sessions:%n%n", measured.nodes(),
                measured.sessions()));
        t.append("| quantity | measured | predicted | error |\n|---|---:|---:|---:|\n");
        for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
            double m = q.of(measured);
            double e = m == 0 ? 0 : (q.of(predicted) - m) / m * 100;
            // Below the printed precision is 0, not -0.0.
            String error = m == 0 ? "n/a" : String.format(Locale.ROOT, "%+.1f %%", Math.abs(e) < 0.05 ? 0 : e);
            t.append("| ").append(q.label()).append(" | ").append(q.format(measured)).append(" | ")
                    .append(q.format(predicted)).append(" | ").append(error).append(" |\n");
        }
        return t.toString().stripTrailing();
    }

    /** The fleet for 1,000, 10,000 and {@code target} sessions on nodes of the given budget. */
    static String extrapolationTable(FleetModel model, long target, double coresPerNode, double egressPerNode) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "nodes of %.1f cores and %.0f MB/s egress:%n%n",
                coresPerNode, egressPerNode / 1e6));
        t.append("| sessions | nodes | sessions per node |");
        for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
            t.append(' ').append(q.label()).append(" |");
        }
        t.append("\n|---:|---:|---:|").append("---:|".repeat(FleetModel.Quantity.values().length)).append('\n');
        for (long s : new TreeSet<>(List.of(Math.min(1000L, target), Math.min(10_000L, target), target))) {
            FleetModel.FleetRates r = model.size(s, coresPerNode, egressPerNode);
            t.append("| ").append(s).append(" | ").append(r.nodes()).append(" | ")
                    .append(String.format(Locale.ROOT, "%.0f", (double) s / r.nodes())).append(" |");
            for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
                t.append(' ').append(q.format(r)).append(" |");
            }
            t.append('\n');
        }
        return t.toString().stripTrailing();
    }

}
