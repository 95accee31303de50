package dev.khameleon.loadtest.server;

import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.KhameleonServer;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Loopback load on an in-process {@link KhameleonServer}, with clients on the JDK's WebSocket in the
 * same JVM (so on a small machine clients and server share the cores; the CPU figure counts only
 * the server's threads).
 *
 * <ul>
 *   <li><b>throughput</b>: {@code S} sessions on a uniform predictor with pacing effectively off, so
 *   each session is limited only by write-buffer back-pressure; reports MB/s per session and in
 *   total, and the server threads' CPU in cores.</li>
 *   <li><b>latency</b>: {@code S} sessions paced at a share of a total rate; each client sends a
 *   point-predictor state for a random request every 150 ms (or every 5 slots if slower) and measures the time from sending it
 *   until the first block of that request arrives (the first block that reflects the new
 *   distribution, since the point predictor gives the request all the mass); reports p50/p99/max,
 *   and how many states were superseded before any block of theirs arrived.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar khameleon-loadtest/target/khameleon-loadtest.jar server-load
 * [--sessions 1,100,1000] [--seconds 5] [--warmup 2] [--mode both] [--total-rate 20e6]}.
 */
@Command(name = "server-load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Throughput and state-to-first-block delay of one in-process server over loopback.",
                "Prints, per session count, the bytes pushed and received per second and the delay from a new",
                "distribution to its first block, as Markdown tables."})
public final class ServerLoad implements Callable<Integer> {
    /** The largest {@code --sessions} value: the clients' threads and sockets live in this JVM. */
    static final int MAX_SESSIONS = 5000;

    /** What is measured. */
    enum Mode {
        /** Unpaced sessions: pushed and received bytes per second. */
        THROUGHPUT,
        /** Paced sessions sending states: state-to-first-block delay. */
        LATENCY,
        /** Both, throughput first. */
        BOTH
    }

    @Option(names = "--sessions", split = ",", paramLabel = "N", description = "Session counts, each run in turn, in [1, "
            + MAX_SESSIONS + "]; default 1,100,1000")
    int[] sessions = {1, 100, 1000};

    @Option(names = "--seconds", description = "Measured seconds per run, in [1, 600]; default ${DEFAULT-VALUE}")
    int seconds = 5;

    @Option(names = "--warmup", description = "Seconds before each run is measured, in [0, 60]; default ${DEFAULT-VALUE}")
    int warmup = 2;

    @Option(names = "--mode", description = "throughput, latency or both; default ${DEFAULT-VALUE}")
    Mode mode = Mode.BOTH;

    @Option(names = "--total-rate", paramLabel = "BYTES_PER_S", description = "Latency mode: bytes/s shared by the "
            + "sessions (each paced at min(2e6, total-rate / sessions), at least 1000); default ${DEFAULT-VALUE}")
    double totalRate = 20e6;

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
        check("--seconds", seconds, 1, 600);
        check("--warmup", warmup, 0, 60);
        int most = java.util.stream.IntStream.of(sessions).max().orElseThrow();
        if (!(totalRate <= 1e12) || totalRate / most < 1000) {
            throw new IllegalArgumentException("--total-rate: " + totalRate + " bytes/s gives " + most
                    + " sessions less than the server's minimum of 1000 bytes/s each (or is above 1e12)");
        }
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + ": outside [" + min + ", " + max + "]");
        }
    }

    /** Runs the chosen measurements and prints their tables; exit status 0. */
    @Override
    public Integer call() throws Exception {
        validate();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        if (mode != Mode.LATENCY) {
            System.out.println("| sessions | pushed MB/s (server) | MB/s per session | received MB/s (clients) |"
                    + " server CPU (cores) | blocks skipped |");
            System.out.println("|---:|---:|---:|---:|---:|---:|");
            for (int s : sessions) {
                throughput(s, warmup, seconds);
            }
        }
        if (mode != Mode.THROUGHPUT) {
            System.out.println();
            System.out.println("| sessions | rate per session (KB/s) | slot ms | states | p50 ms | p99 ms | max ms | not reflected |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (int s : sessions) {
                latency(s, warmup, seconds, Math.min(2e6, totalRate / s));
            }
        }
        return 0;
    }

    private static KhameleonServer startServer(ServerPredictor predictor, double rate) {
        // Every load client connects from 127.0.0.1: lift the per-address limits meant for the internet.
        return LoadApp.server(predictor, rate).maxSessions(5000)
                .maxConnectionsPerAddress(5000).maxHandshakesPerAddress(5000)
                .readIdleTimeout(Duration.ZERO).build().start();
    }

    private static void throughput(int sessions, int warmup, int seconds) throws Exception {
        try (KhameleonServer server = startServer(ServerPredictor.uniform(LoadApp.N, LoadApp.HORIZONS), 1e12)) {
            List<LoadClient> clients = LoadClient.connect(server.port(), sessions, null, 100);
            Thread.sleep(warmup * 1000L);
            long b0 = LoadClient.totalBytes(clients);
            long p0 = server.metrics().bytesPushed();
            Map<Long, Long> cpu0 = ServerCpu.snapshot();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long b1 = LoadClient.totalBytes(clients);
            long p1 = server.metrics().bytesPushed();
            Map<Long, Long> cpu1 = ServerCpu.snapshot();
            double wall = (System.nanoTime() - t0) / 1e9;
            double pushed = (p1 - p0) / wall / 1e6;
            System.out.printf(Locale.ROOT, "| %d | %.1f | %.3f | %.1f | %.2f | %d |%n", sessions, pushed,
                    pushed / sessions, (b1 - b0) / wall / 1e6, ServerCpu.nanosBetween(cpu0, cpu1) / 1e9 / wall,
                    server.metrics().blocksSkipped());
            LoadClient.close(clients);
        }
    }

    private static void latency(int sessions, int warmup, int seconds, double ratePerSession) throws Exception {
        LoadClient.Latency latency = LoadClient.Latency.create();
        try (KhameleonServer server = startServer(ServerPredictor.point(LoadApp.N, LoadApp.HORIZONS), ratePerSession)) {
            List<LoadClient> clients = LoadClient.connect(server.port(), sessions, latency, 100);
            long start = System.nanoTime() + warmup * 1_000_000_000L;
            ScheduledExecutorService ticker = LoadClient.sendStates(clients, start, ratePerSession);
            Thread.sleep((warmup + seconds) * 1000L);
            ticker.shutdownNow();
            Histogram h = latency.snapshot();
            System.out.printf(Locale.ROOT, "| %d | %.0f | %.1f | %d | %.1f | %.1f | %.1f | %d |%n", sessions,
                    ratePerSession / 1e3, LoadApp.FRAME_BYTES / ratePerSession * 1e3,
                    h.getTotalCount(), h.getValueAtPercentile(50) / 1e6,
                    h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6, latency.missed().get());
            LoadClient.close(clients);
        }
    }
}
