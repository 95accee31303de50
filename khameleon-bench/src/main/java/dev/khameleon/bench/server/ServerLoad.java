package dev.khameleon.bench.server;

import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.KhameleonServer;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

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
 * <p>Run: {@code java -cp khameleon-bench/target/khameleon-bench.jar dev.khameleon.bench.server.ServerLoad
 * [--sessions 1,100,1000] [--seconds 5] [--warmup 2] [--mode both] [--total-rate 20e6]}.
 */
public final class ServerLoad {
    /** What {@code --help} prints. */
    static final String USAGE = """
            Usage: java -cp khameleon-bench/target/khameleon-bench.jar dev.khameleon.bench.server.ServerLoad \
                [--sessions 1,100,1000] [--seconds 5] [--warmup 2] [--mode both|throughput|latency] \
                [--total-rate 20e6]
            Loopback load on one in-process server: pushed and received throughput per session count,
            and the delay from a new distribution to its first block. Defaults as shown.""";

    private ServerLoad() {
    }

    /** Entry point; see the class comment for the arguments; {@code --help} prints them and exits 0. */
    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help")) {
            System.out.println(USAGE);
            return;
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        List<Integer> sessionCounts = new ArrayList<>();
        for (String s : opts.getOrDefault("sessions", "1,100,1000").split(",")) {
            sessionCounts.add(Integer.parseInt(s.trim()));
        }
        int seconds = Integer.parseInt(opts.getOrDefault("seconds", "5"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "2"));
        String mode = opts.getOrDefault("mode", "both");
        double totalRate = Double.parseDouble(opts.getOrDefault("total-rate", "20e6"));
        if (mode.equals("both") || mode.equals("throughput")) {
            System.out.println("| sessions | pushed MB/s (server) | MB/s per session | received MB/s (clients) |"
                    + " server CPU (cores) | blocks skipped |");
            System.out.println("|---:|---:|---:|---:|---:|---:|");
            for (int s : sessionCounts) {
                throughput(s, warmup, seconds);
            }
        }
        if (mode.equals("both") || mode.equals("latency")) {
            System.out.println();
            System.out.println("| sessions | rate per session (KB/s) | slot ms | states | p50 ms | p99 ms | max ms | not reflected |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (int s : sessionCounts) {
                latency(s, warmup, seconds, Math.min(2e6, totalRate / s));
            }
        }
        System.exit(0);
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
