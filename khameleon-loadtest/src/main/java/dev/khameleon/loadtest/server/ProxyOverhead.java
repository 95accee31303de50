package dev.khameleon.loadtest.server;

import dev.khameleon.loadtest.proxy.HaproxyConfig;
import dev.khameleon.loadtest.proxy.HaproxyProcess;
import dev.khameleon.loadtest.proxy.LocalProcess;

import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.KhameleonServer;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/**
 * What HAProxy in front of a node costs: the same loopback session workload run against one
 * in-process {@link KhameleonServer} directly and through a local HAProxy (Debian's binary, started
 * by the tool with the configuration documented in {@code docs/scale-out.md}, rendered for one node
 * by {@link HaproxyConfig}), alternating direct and proxied runs so that drift in the machine's load
 * falls on both.
 *
 * <ul>
 *   <li><b>throughput</b>: {@code S} sessions on a uniform predictor with pacing effectively off, so
 *   each is limited by write-buffer back-pressure (as {@link ServerLoad}'s throughput mode); reports
 *   the bytes the clients received per second, in MB/s and in block frames per second, the ratio
 *   proxied / direct, the server threads' CPU and HAProxy's.</li>
 *   <li><b>latency</b>: {@code S} sessions paced at {@code min(2 MB/s, total-rate / S)}, each sending a
 *   point-predictor state for a random request every 150 ms (as {@link Soak}'s healthy clients); reports
 *   p50 and p99 of the delay from sending a state to the first block of its request, direct and
 *   proxied, and what the proxy adds.</li>
 * </ul>
 *
 * <p>Every address is on 127.0.0.1. The clients run in this JVM and HAProxy beside it, so on a small
 * machine the proxy's CPU is taken from the server and the clients: that is part of what is measured.
 * A watchdog ends a run that overstays its expected time by two minutes.
 *
 * <pre>
 * mvn -B -q package -pl khameleon-loadtest -am -DskipTests
 * java -jar khameleon-loadtest/target/khameleon-loadtest.jar proxy-overhead \
 *     [--sessions 50,200] [--rounds 3] [--seconds 5] [--warmup 2] [--mode both] [--total-rate 20e6]
 * </pre>
 */
@Command(name = "proxy-overhead", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"One session workload against a loopback server, directly and through HAProxy, side by side.",
                "HAProxy runs the configuration of docs/scale-out.md; the two routes alternate, and throughput and",
                "state-to-first-block delays are printed side by side."})
public final class ProxyOverhead implements Callable<Integer> {
    /** What is measured in a run. */
    enum Mode {
        /** Unpaced sessions: received bytes per second. */
        THROUGHPUT,
        /** Paced sessions sending states: state-to-first-block delay. */
        LATENCY,
        /** Both, throughput first. */
        BOTH
    }

    /** How a run's clients reach the server: straight to its port, or through HAProxy's. */
    enum Route {
        DIRECT, PROXIED
    }

    /** The largest {@code --sessions} value: the clients' threads and sockets live in this JVM. */
    static final int MAX_SESSIONS = 2000;
    /** Clients open this many connections at a time. */
    static final int CONNECT_BATCH = 50;

    @Option(names = "--sessions", split = ",", description = "Session counts, each run in turn, in [1, "
            + MAX_SESSIONS + "]; default 50,200")
    int[] sessions = {50, 200};

    @Option(names = "--rounds", description = "Direct/proxied pairs per session count and mode, in [1, 20]; "
            + "default ${DEFAULT-VALUE}")
    int rounds = 3;

    @Option(names = "--seconds", description = "Measured seconds per run, in [1, 120]; default ${DEFAULT-VALUE}")
    int seconds = 5;

    @Option(names = "--warmup", description = "Seconds before each run is measured, in [0, 30]; default ${DEFAULT-VALUE}")
    int warmup = 2;

    @Option(names = "--mode", description = "throughput, latency or both; default ${DEFAULT-VALUE}")
    Mode mode = Mode.BOTH;

    @Option(names = "--total-rate", description = "Latency mode: bytes/s shared by the sessions (each paced at "
            + "min(2e6, total-rate / sessions), at least 1000); default ${DEFAULT-VALUE}")
    double totalRate = 20e6;

    @Option(names = "--haproxy", description = "The haproxy binary (Debian package haproxy); default ${DEFAULT-VALUE}")
    Path haproxy = Path.of("/usr/sbin/haproxy");

    @Option(names = "--config-doc", description = "The Markdown page whose ```haproxy block is run; "
            + "default ${DEFAULT-VALUE}")
    Path configDoc = Path.of("docs", "scale-out.md");

    /**
     * The first line of the output: the settings, HAProxy's version and the machine's core count.
     * Not its load average: these results are pasted into docs, where the load of the moment means
     * nothing.
     */
    String header(String haproxyVersion) {
        return String.format(Locale.ROOT, "ProxyOverhead: sessions %s, %d rounds, %d s warm-up + %d s per run, %s;"
                + " %d cores", Arrays.toString(sessions), rounds, warmup, seconds, haproxyVersion,
                Runtime.getRuntime().availableProcessors());
    }

    /**
     * Checks every option.
     *
     * @throws IllegalArgumentException naming the option and its bad value
     */
    void validate() {
        if (sessions.length == 0) {
            throw new IllegalArgumentException("--sessions: give at least one session count");
        }
        for (int s : sessions) {
            check("--sessions", s, 1, MAX_SESSIONS);
        }
        check("--rounds", rounds, 1, 20);
        check("--seconds", seconds, 1, 120);
        check("--warmup", warmup, 0, 30);
        int most = IntStream.of(sessions).max().orElseThrow();
        if (!(totalRate <= 1e12) || totalRate / most < 1000) {
            throw new IllegalArgumentException("--total-rate: " + totalRate + " bytes/s gives " + most
                    + " sessions less than the server's minimum of 1000 bytes/s each (or is above 1e12)");
        }
    }

    /** The modes {@link #mode} stands for, in the order they run. */
    List<Mode> modes() {
        return mode == Mode.BOTH ? List.of(Mode.THROUGHPUT, Mode.LATENCY) : List.of(mode);
    }

    /** Seconds the whole run should take at most, before the watchdog's two minutes. */
    long expectedSeconds() {
        // Per run: warm-up, measurement, connecting and closing (generously 30 s); per server: 15 s of setup.
        long runs = (long) modes().size() * sessions.length * rounds * 2;
        return runs * (warmup + seconds + 30L) + (long) modes().size() * sessions.length * 15L;
    }

    @Override
    public Integer call() throws Exception {
        validate();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        if (!Files.isExecutable(haproxy)) {
            throw new IllegalArgumentException("haproxy not found at " + haproxy
                    + " (install Debian's package haproxy, or pass --haproxy PATH)");
        }
        String documented = HaproxyConfig.documented(configDoc);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep((expectedSeconds() + 120) * 1000);
                System.err.println("khameleon-loadtest proxy-overhead: still running two minutes after it should have ended; exiting");
                System.exit(3);
            } catch (InterruptedException e) {
                // done in time
            }
        }, "proxy-overhead-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        PrintStream out = System.out;
        out.println(header(version()));
        for (Mode m : modes()) {
            List<Comparison> results = new ArrayList<>();
            for (int s : sessions) {
                results.add(compare(m, s, documented));
            }
            out.println();
            out.println(m == Mode.THROUGHPUT ? throughputTable(results) : latencyTable(results));
        }
        watchdog.interrupt();
        return 0;
    }

    /** One measured run. */
    record Run(Route route, int round, double seconds, long bytes, Histogram delays, long missed,
               double serverCores, double proxyCores) {
        double megabytesPerSecond() {
            return bytes / seconds / 1e6;
        }
    }

    /** Every run of one mode and session count, both paths. */
    record Comparison(Mode mode, int sessions, double ratePerSession, List<Run> runs) {
        List<Run> of(Route route) {
            return runs.stream().filter(r -> r.route() == route).toList();
        }

        /** Bytes per second over every run of {@code path}, in MB/s. */
        double megabytesPerSecond(Route path) {
            List<Run> rs = of(path);
            return rs.stream().mapToLong(Run::bytes).sum() / rs.stream().mapToDouble(Run::seconds).sum() / 1e6;
        }

        /** The delays of every run of {@code path}, merged. */
        Histogram delays(Route path) {
            Histogram h = LoadClient.Latency.create().delays();
            of(path).forEach(r -> h.add(r.delays()));
            return h;
        }
    }

    /** Starts a server and HAProxy in front of it, then runs {@link #rounds} direct/proxied pairs. */
    Comparison compare(Mode m, int s, String documented) throws Exception {
        double rate = m == Mode.THROUGHPUT ? 1e12 : Math.min(2e6, totalRate / s);
        ServerPredictor predictor = m == Mode.THROUGHPUT ? ServerPredictor.uniform(LoadApp.N, LoadApp.HORIZONS)
                : ServerPredictor.point(LoadApp.N, LoadApp.HORIZONS);
        List<Run> runs = new ArrayList<>();
        // Every connection comes from 127.0.0.1, directly or from the proxy: lift the per-address limits.
        try (KhameleonServer server = LoadApp.server(predictor, rate).maxSessions(5000)
                .maxConnectionsPerAddress(5000).maxHandshakesPerAddress(5000)
                .readIdleTimeout(Duration.ZERO).build().start();
             HaproxyProcess proxy = startProxy(documented, server.port())) {
            for (int round = 0; round < rounds; round++) {
                // Alternate which path goes first, so a trend in the machine's load falls on both.
                List<Route> order = round % 2 == 0 ? List.of(Route.DIRECT, Route.PROXIED)
                        : List.of(Route.PROXIED, Route.DIRECT);
                for (Route p : order) {
                    runs.add(run(m, p, round, s, rate, server, proxy));
                }
            }
        }
        return new Comparison(m, s, rate, runs);
    }

    private HaproxyProcess startProxy(String documented, int nodePort) throws IOException, InterruptedException {
        int listen = LocalProcess.freePort();
        return HaproxyProcess.start(haproxy, HaproxyConfig.render(documented, listen, nodePort), listen);
    }

    private Run run(Mode m, Route path, int round, int s, double rate, KhameleonServer server, HaproxyProcess proxy)
            throws Exception {
        LoadClient.Latency latency = m == Mode.LATENCY ? LoadClient.Latency.create() : null;
        List<LoadClient> clients;
        try {
            clients = LoadClient.connect(path == Route.DIRECT ? server.port() : proxy.port(), s, latency,
                    CONNECT_BATCH);
        } catch (CompletionException | IllegalStateException e) {
            throw new IllegalStateException(path + " clients could not connect"
                    + (path == Route.PROXIED ? "; haproxy said:\n" + proxy.log() : ""), e);
        }
        ScheduledExecutorService states = latency == null ? null
                : LoadClient.sendStates(clients, System.nanoTime() + warmup * 1_000_000_000L, rate);
        try {
            Thread.sleep(warmup * 1000L);
            long b0 = LoadClient.totalBytes(clients);
            Map<Long, Long> cpu0 = ServerCpu.snapshot();
            double proxy0 = proxy.cpuSeconds();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long bytes = LoadClient.totalBytes(clients) - b0;
            double wall = (System.nanoTime() - t0) / 1e9;
            Histogram delays = latency == null ? LoadClient.Latency.create().delays() : latency.snapshot();
            long missed = latency == null ? 0 : latency.missed().get();
            double serverCores = ServerCpu.nanosBetween(cpu0, ServerCpu.snapshot()) / 1e9 / wall;
            double proxyCores = path == Route.PROXIED ? (proxy.cpuSeconds() - proxy0) / wall : 0;
            return new Run(path, round, wall, bytes, delays, missed, serverCores, proxyCores);
        } finally {
            if (states != null) {
                states.shutdownNow();
            }
            LoadClient.close(clients);
            awaitNoSessions(server);
        }
    }

    /** Waits (up to 10 s) until the server has closed every session, so the next run starts alone. */
    private static void awaitNoSessions(KhameleonServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!server.sessionMetrics().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    /** The throughput comparisons as a Markdown table with a line of notes. */
    static String throughputTable(List<Comparison> results) {
        StringBuilder t = new StringBuilder("| sessions | direct MB/s | proxied MB/s | proxied / direct | direct blocks/s"
                + " | proxied blocks/s | server CPU direct / proxied (cores) | HAProxy CPU (cores) | HAProxy CPU s per GB |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Comparison c : results) {
            double d = c.megabytesPerSecond(Route.DIRECT);
            double p = c.megabytesPerSecond(Route.PROXIED);
            double proxyCores = mean(c.of(Route.PROXIED), Run::proxyCores);
            t.append(String.format(Locale.ROOT, "| %d | %s | %s | %.2f | %.0f | %.0f | %.2f / %.2f | %.2f | %.2f |%n",
                    c.sessions(), withRange(c, Route.DIRECT), withRange(c, Route.PROXIED), p / d,
                    d * 1e6 / LoadApp.FRAME_BYTES, p * 1e6 / LoadApp.FRAME_BYTES,
                    mean(c.of(Route.DIRECT), Run::serverCores), mean(c.of(Route.PROXIED), Run::serverCores),
                    proxyCores, proxyCores / (p / 1e3)));
        }
        return t.append("\nMB/s: over all rounds, with the range of single runs in brackets; blocks/s: ")
                .append(LoadApp.FRAME_BYTES).append("-byte block frames; HAProxy CPU s per GB: its CPU seconds per GB relayed.")
                .toString();
    }

    /** The latency comparisons as a Markdown table with a line of notes. */
    static String latencyTable(List<Comparison> results) {
        StringBuilder t = new StringBuilder("| sessions | KB/s per session | received MB/s direct / proxied"
                + " | states direct / proxied | p50 direct ms | p50 proxied ms | added p50 ms | p99 direct ms"
                + " | p99 proxied ms | added p99 ms | not reflected direct / proxied |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Comparison c : results) {
            Histogram d = c.delays(Route.DIRECT);
            Histogram p = c.delays(Route.PROXIED);
            double d50 = d.getValueAtPercentile(50) / 1e6;
            double p50 = p.getValueAtPercentile(50) / 1e6;
            double d99 = d.getValueAtPercentile(99) / 1e6;
            double p99 = p.getValueAtPercentile(99) / 1e6;
            t.append(String.format(Locale.ROOT,
                    "| %d | %.0f | %.1f / %.1f | %d / %d | %.2f | %.2f | %+.2f | %.2f | %.2f | %+.2f | %d / %d |%n",
                    c.sessions(), c.ratePerSession() / 1e3, c.megabytesPerSecond(Route.DIRECT),
                    c.megabytesPerSecond(Route.PROXIED), d.getTotalCount(), p.getTotalCount(), d50, p50, p50 - d50,
                    d99, p99, p99 - d99, c.of(Route.DIRECT).stream().mapToLong(Run::missed).sum(),
                    c.of(Route.PROXIED).stream().mapToLong(Run::missed).sum()));
        }
        return t.append("\nDelays of all rounds merged; 'not reflected': states superseded before any block of"
                + " theirs arrived.").toString();
    }

    private static String withRange(Comparison c, Route path) {
        List<Run> rs = c.of(path);
        double lo = rs.stream().mapToDouble(Run::megabytesPerSecond).min().orElse(0);
        double hi = rs.stream().mapToDouble(Run::megabytesPerSecond).max().orElse(0);
        return String.format(Locale.ROOT, "%.1f [%.1f–%.1f]", c.megabytesPerSecond(path), lo, hi);
    }

    private static double mean(List<Run> runs, ToDoubleFunction<Run> f) {
        return runs.stream().mapToDouble(f).average().orElse(0);
    }

    private String version() {
        try {
            Process p = new ProcessBuilder(haproxy.toString(), "-v").redirectErrorStream(true).start();
            String first = new String(p.getInputStream().readAllBytes()).lines().findFirst().orElse("haproxy");
            p.waitFor(5, TimeUnit.SECONDS);
            return first.replaceFirst(" - https?://\\S+", "");
        } catch (IOException e) {
            return "haproxy (version unknown)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "haproxy (version unknown)";
        }
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + ": " + value + " is outside [" + min + ", " + max + "]");
        }
    }

}
