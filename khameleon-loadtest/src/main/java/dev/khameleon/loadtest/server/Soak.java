package dev.khameleon.loadtest.server;

import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.ServerMetrics;
import org.HdrHistogram.Histogram;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A soak benchmark: healthy sessions under hostile clients, all over loopback, on an in-process
 * {@link KhameleonServer} with its default limits.
 *
 * <p>The application is a grid of {@code --requests} cells under the Gaussian grid predictor
 * ({@link LoadWorkload#grid}). {@code H} healthy sessions (the {@link ServerLoad} latency clients: a
 * narrow forecast on a random cell every 150 ms, timing the first block of that request) run an unloaded phase, then a
 * loaded phase next to every chosen {@link HostileKind}. The healthy clients connect over raw sockets
 * from {@code --healthy-addresses} loopback addresses 127.1.0.1 and up ({@link SoakOptions#healthyAddress};
 * default one per session), so {@code maxConnectionsPerAddress} is raised to {@code max(64, ⌈H / A⌉)}
 * (at the default, 64: the server's own) and they connect 16 at a time (the default
 * {@code maxHandshakesPerAddress}); {@code maxTotalCacheBlocks} is raised only when the healthy sessions' caches
 * alone exceed it ({@link #maxTotalCacheBlocks}); every other limit keeps its default ({@code --scheduler-share}
 * sets one, to compare). Each hostile kind connects from its own address 127.0.0.2–10, so the per-address
 * limits apply to it as to any client. Healthy sessions are paced at
 * {@code min(2 MB/s, total-rate / H)} because they send no rate reports.
 *
 * <p>Run: {@code java -jar khameleon-loadtest/target/khameleon-loadtest.jar soak
 * [--healthy 200] [--seconds 20] [--warmup 3] [--hostile all] [--total-rate 20e6] [--requests 10000]
 * [--scheduler-share 0.1] [--healthy-addresses H]}. It prints Markdown tables and exits by itself (a watchdog ends a run that overstays by three minutes).
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Healthy sessions on an in-process server, alone and then next to hostile clients.",
                "The server keeps its default limits. Prints Markdown tables of the healthy sessions' latency, the",
                "hostile clients' outcomes and the server's memory, and exits by itself; a watchdog ends a run that",
                "overstays by three minutes."})
public final class Soak implements Callable<Integer> {
    /** {@code KhameleonServer.Builder.maxCacheBlocks}'s default. */
    static final int DEFAULT_MAX_CACHE_BLOCKS = 16_384;
    /** {@code KhameleonServer.Builder.maxTotalCacheBlocks}'s default. */
    static final long DEFAULT_MAX_TOTAL_CACHE_BLOCKS = 2_097_152;
    /** Upper estimate of scheduler heap per cache block: the server's own (docs/server.md, maxSchedulerBytes). */
    static final long HEAP_PER_CACHE_BLOCK = 400;
    /** Netty's default high water mark: what one connection may queue, plus one frame. */
    static final long QUEUE_PER_CONNECTION = 64 * 1024 + LoadApp.FRAME_BYTES;
    static final long SLACK_BYTES = 64L << 20;
    /** Healthy clients connect this many at a time: the default {@code maxHandshakesPerAddress}. */
    static final int CONNECT_BATCH = 16;

    /** Counts what reaches the default uncaught-exception handler while a run is installed. */
    private static final class Escapes implements Thread.UncaughtExceptionHandler {
        final AtomicLong errors = new AtomicLong();
        final AtomicLong others = new AtomicLong();

        @Override
        public void uncaughtException(Thread t, Throwable e) {
            (e instanceof Error ? errors : others).incrementAndGet();
            System.err.println("uncaught in " + t.getName() + ": " + e);
        }
    }

    @Option(names = "--healthy", description = "Well-behaved sessions, in [1, 10000]; default ${DEFAULT-VALUE}")
    int healthy = 200;

    @Option(names = "--seconds", description = "Length of each measured phase, in [1, 600]; default ${DEFAULT-VALUE}")
    int seconds = 20;

    @Option(names = "--warmup", description = "Seconds before the unloaded phase, in [0, 60]; default ${DEFAULT-VALUE}")
    int warmup = 3;

    @Option(names = "--hostile", paramLabel = "KINDS", description = "The hostile clients of the loaded phase: all, none "
            + "(the unloaded phase only) or a comma-separated list of the kinds; default ${DEFAULT-VALUE}")
    String hostile = "all";

    @Option(names = "--total-rate", paramLabel = "BYTES_PER_S", description = "Bytes/s shared by the healthy sessions, "
            + "each paced at min(2e6, total-rate / healthy), at least 1000; default ${DEFAULT-VALUE}")
    double totalRate = 20e6;

    @Option(names = "--requests", paramLabel = "N", description = "The application's requests, a square number: a "
            + "grid of √N × √N cells under the Gaussian grid predictor; healthy sessions send narrow forecasts, "
            + "wide-forecast clients forecasts 0.3 of the grid wide; default ${DEFAULT-VALUE}")
    int requests = 10_000;

    @Option(names = "--scheduler-share", paramLabel = "SHARE", description = "The server's schedulerShare: the most "
            + "of one scheduler thread one session's re-plans may take, in (0, 1]; default ${DEFAULT-VALUE}, the "
            + "server's default")
    double schedulerShare = KhameleonServer.Builder.DEFAULT_SCHEDULER_SHARE;

    @Option(names = "--healthy-addresses", paramLabel = "A", description = "Loopback addresses the healthy sessions "
            + "connect from, 127.1.0.1 and up, session i from the (i mod A)-th, in [1, 10000]; default: one per healthy "
            + "session")
    Integer healthyAddresses;

    @Option(names = "--fetch", paramLabel = "inline|executor", description = "inline: the synthetic source promises "
            + "completed stages, so the server fetches on the event loop (what an in-memory source gets); executor: on "
            + "its fetch executor; default ${DEFAULT-VALUE}")
    String fetch = "inline";

    /**
     * The settings given, checked.
     *
     * @throws IllegalArgumentException naming the option and its bad value
     */
    SoakOptions options() {
        boolean inlineFetch = switch (fetch.trim()) {
            case "inline" -> true;
            case "executor" -> false;
            default -> throw new IllegalArgumentException("--fetch: 'inline' or 'executor', not '" + fetch + "'");
        };
        return new SoakOptions(healthy, seconds, warmup, HostileKind.parseList(hostile), totalRate, requests,
                schedulerShare, inlineFetch, healthyAddresses == null ? healthy : healthyAddresses);
    }

    /** Runs both phases and prints the report; exit status 0, or 3 when the watchdog ends an overlong run. */
    @Override
    public Integer call() throws Exception {
        SoakOptions options = options();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep((options.warmup() + 2L * options.seconds() + 180) * 1000);
                System.err.println("khameleon-loadtest soak: still running three minutes after its phases should have ended; exiting");
                System.exit(3);
            } catch (InterruptedException e) {
                // done in time
            }
        }, "soak-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.out.printf("Soak: %d healthy sessions from %d addresses at %.0f KB/s over %d requests, %d s warm-up, "
                + "%d s per phase, hostile %s%n", options.healthy(), Math.min(options.healthy(), options.healthyAddresses()),
                options.ratePerSession() / 1e3, options.requests(),
                options.warmup(), options.seconds(), options.hostile());
        SoakReport report;
        try {
            report = run(options, true);
        } catch (LoadClient.Refused e) {
            // A server limit, not a failure of the tool: say which, in one line.
            System.err.println("khameleon-loadtest soak: " + e.getMessage());
            return 1;
        }
        System.out.println(report.markdown());
        return 0;
    }

    /**
     * Runs both phases and returns the report.
     *
     * @param ownAddresses healthy clients connect from {@link SoakOptions#healthyAddress}, hostile ones
     *                     from 127.0.0.2–10 (false: all from 127.0.0.1, for tests)
     */
    static SoakReport run(SoakOptions options, boolean ownAddresses) throws Exception {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Escapes escapes = new Escapes();
        Thread.setDefaultUncaughtExceptionHandler(escapes);
        try {
            return run(options, ownAddresses, escapes);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }

    private static SoakReport run(SoakOptions options, boolean ownAddresses, Escapes escapes) throws Exception {
        long hostileConnections = 0;
        for (HostileKind k : options.hostile()) {
            hostileConnections += k.maxOpen();
        }
        int perAddress = maxConnectionsPerAddress(options, ownAddresses, hostileConnections);
        double rate = options.ratePerSession();
        LoadWorkload workload = options.workload();
        long cacheBudget = maxTotalCacheBlocks(options);
        try (KhameleonServer server = LoadApp.server(workload, rate, options.inlineFetch())
                .maxConnectionsPerAddress(perAddress).maxTotalCacheBlocks(cacheBudget)
                .schedulerShare(options.schedulerShare()).build().start()) {
            LoadClient.Latency latency = LoadClient.Latency.create();
            List<LoadClient> clients = LoadClient.connectFrom(healthyAddresses(options, ownAddresses), server.port(),
                    options.healthy(), latency, CONNECT_BATCH, workload);
            long recordFrom = System.nanoTime() + options.warmup() * 1_000_000_000L;
            ScheduledExecutorService states = LoadClient.sendStates(clients, recordFrom, rate);
            try {
                Thread.sleep(options.warmup() * 1000L);
                SoakReport.Phase baseline = measure("unloaded", clients, latency, options, escapes);
                if (options.hostile().isEmpty()) {
                    return new SoakReport(baseline, null, Map.of(), new TreeMap<>(), 0,
                            heapBound(baseline, cacheBudget), directBound(baseline, options.healthy()));
                }
                LoadClient.Latency loadedLatency = LoadClient.Latency.create();
                for (LoadClient c : clients) {
                    c.recordInto(loadedLatency);
                }
                ServerMetrics m0 = server.metrics();
                SoakReport.Phase loaded;
                Map<HostileKind, HostileCounts> counts;
                try (HostileClients hostile = new HostileClients(server.port(), options.hostile(),
                        DEFAULT_MAX_CACHE_BLOCKS, ownAddresses, workload)) {
                    hostile.start();
                    loaded = measure("loaded", clients, loadedLatency, options, escapes);
                    counts = hostile.counts();
                }
                ServerMetrics m1 = server.metrics();
                return new SoakReport(baseline, loaded, counts, SoakReport.delta(m0.errorsByCode(), m1.errorsByCode()),
                        m1.handshakesRefused() - m0.handshakesRefused(), heapBound(baseline, cacheBudget),
                        directBound(baseline, options.healthy() + hostileConnections));
            } finally {
                states.shutdownNow();
                LoadClient.close(clients);
            }
        }
    }

    /**
     * The server's {@code maxConnectionsPerAddress}: its default of 64, or more if the most crowded
     * address holds more connections (every healthy and hostile one when all share 127.0.0.1).
     */
    static int maxConnectionsPerAddress(SoakOptions options, boolean ownAddresses, long hostileConnections) {
        long crowded = ownAddresses ? options.healthyPerAddress() : options.healthy() + hostileConnections;
        return (int) Math.max(64, crowded);
    }

    /** The addresses the healthy clients connect from, session {@code i} from the {@code (i mod size)}-th. */
    static List<InetAddress> healthyAddresses(SoakOptions options, boolean ownAddresses) throws UnknownHostException {
        List<InetAddress> out = new ArrayList<>();
        int n = ownAddresses ? Math.min(options.healthy(), options.healthyAddresses()) : 1;
        for (int i = 0; i < n; i++) {
            out.add(InetAddress.getByName(ownAddresses ? options.healthyAddress(i) : "127.0.0.1"));
        }
        return out;
    }

    /**
     * The heap bound: the unloaded heap plus scheduler state for the whole cache budget at
     * {@link #HEAP_PER_CACHE_BLOCK} bytes a block, plus {@link #SLACK_BYTES}.
     */
    static long heapBound(SoakReport.Phase baseline, long cacheBudget) {
        return baseline.heapBytes() + cacheBudget * HEAP_PER_CACHE_BLOCK + SLACK_BYTES;
    }

    /**
     * The server's {@code maxTotalCacheBlocks}: its default, or, when the healthy sessions' caches
     * alone exceed it, their caches plus half the default, so the {@code max-cache} clients still
     * meet a budget they can fill.
     */
    static long maxTotalCacheBlocks(SoakOptions options) {
        long healthy = (long) options.healthy() * LoadApp.CACHE;
        return healthy <= DEFAULT_MAX_TOTAL_CACHE_BLOCKS ? DEFAULT_MAX_TOTAL_CACHE_BLOCKS
                : healthy + DEFAULT_MAX_TOTAL_CACHE_BLOCKS / 2;
    }

    /**
     * The direct-memory bound: the unloaded figure plus a full write buffer ({@link #QUEUE_PER_CONNECTION})
     * for every connection the run may hold at once, plus {@link #SLACK_BYTES}.
     */
    static long directBound(SoakReport.Phase baseline, long connections) {
        return baseline.direct() + connections * QUEUE_PER_CONNECTION + SLACK_BYTES;
    }

    private static SoakReport.Phase measure(String name, List<LoadClient> clients, LoadClient.Latency latency,
                                            SoakOptions options, Escapes escapes) throws InterruptedException {
        long b0 = LoadClient.totalBytes(clients);
        Map<Long, Long> cpu0 = ServerCpu.snapshot();
        Map<Long, Long> clientCpu0 = ServerCpu.snapshot(ServerCpu.HEALTHY_CLIENTS);
        Map<Long, Long> hostileCpu0 = ServerCpu.snapshot(ServerCpu.HOSTILE_CLIENTS);
        long t0 = System.nanoTime();
        Thread.sleep(options.seconds() * 1000L);
        long bytes = LoadClient.totalBytes(clients) - b0;
        double wall = (System.nanoTime() - t0) / 1e9;
        double cores = ServerCpu.nanosBetween(cpu0, ServerCpu.snapshot()) / 1e9 / wall;
        double clientCores = ServerCpu.nanosBetween(clientCpu0, ServerCpu.snapshot(ServerCpu.HEALTHY_CLIENTS)) / 1e9 / wall;
        // Hostile threads that ended during the phase are missed: a lower bound, exact for long-lived ones.
        double hostileCores = ServerCpu.nanosBetween(hostileCpu0, ServerCpu.snapshot(ServerCpu.HOSTILE_CLIENTS)) / 1e9
                / wall;
        Histogram h = latency.snapshot();
        long closed = clients.stream().filter(c -> c.closeStatus >= 0).count();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new SoakReport.Phase(name, clients.size(), wall, bytes, options.ratePerSession(), h.getTotalCount(),
                latency.missed().get(), h.getValueAtPercentile(50), h.getValueAtPercentile(99), cores, clientCores, hostileCores, closed, heap,
                jdkDirect(), nettyDirect(), escapes.errors.get(), escapes.others.get());
    }

    private static long jdkDirect() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return -1;
    }

    private static long nettyDirect() {
        try {
            return io.netty.util.internal.PlatformDependent.usedDirectMemory();
        } catch (LinkageError e) {
            return -1;
        }
    }
}
