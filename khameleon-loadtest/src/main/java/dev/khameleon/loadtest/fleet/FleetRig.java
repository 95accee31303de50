package dev.khameleon.loadtest.fleet;

import dev.khameleon.testing.RedisProcess;
import dev.khameleon.loadtest.proxy.HaproxyConfig;
import dev.khameleon.loadtest.proxy.HaproxyProcess;
import dev.khameleon.loadtest.proxy.LocalProcess;

import dev.khameleon.simulator.trace.BalabitReader;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The loopback rig: a Redis (and, if asked, an S3 object store below it) shared by {@code N}
 * {@link FleetNode} JVMs, HAProxy in front of them with
 * the configuration of {@code docs/scale-out.md}, and Java clients ({@link KhameleonClient} with its
 * default Kalman predictor) in this JVM replaying Balabit pointer sessions through the proxy, each
 * session's screen placed at its own seeded offset on the nodes' larger canvas (so sessions share some
 * content, not all). After a warm-up it reads every node's counters, waits the measured window, reads
 * them again, and returns the differences as rates. Every process it starts is stopped before
 * {@link #run} returns, and every wait is bounded.
 */
final class FleetRig {
    /** The rig's content namespace in Redis. */
    static final String NAMESPACE = "fleet-rig";
    /** The rig's bucket in the object store. */
    static final String BUCKET = "fleet-rig";
    /** How long the rig waits for the first blocks and, at the end, for the nodes to settle. */
    private static final int SETTLE_SECONDS = 60;

    private FleetRig() {
    }

    /**
     * How to run the rig.
     *
     * @param nodes           server nodes, in [1, 8]
     * @param sessionsPerNode client sessions per node, in [1, 50]
     * @param warmupSeconds   seconds of replay before the window, in [0, 120]
     * @param seconds         the measured window, in [1, 600]
     * @param bytesPerSecond  what each node pushes to each session, in [1000, 1e8]
     * @param memoryBytes     each node's memory tier, in [0, 1 GiB]
     * @param seed            places the sessions' screens on the canvas
     * @param balabit         the Balabit directory ({@code userN/session_*})
     * @param haproxy         the haproxy binary
     * @param redisServer     the redis-server binary
     * @param configDoc       the page whose {@code ```haproxy} block the proxy runs
     * @param redisMemory     Redis's {@code maxmemory}: digits and an optional kb, mb or gb, at least 1mb
     * @param objectStore     whether an S3 object store sits below Redis in every node's stack
     */
    record Settings(int nodes, int sessionsPerNode, int warmupSeconds, int seconds, double bytesPerSecond,
                    long memoryBytes, long seed, Path balabit, Path haproxy, Path redisServer, Path configDoc,
                    String redisMemory, boolean objectStore) {
        /**
         * Checks every value.
         *
         * @throws IllegalArgumentException naming the setting and its bad value
         */
        Settings {
            check("nodes", nodes, 1, 8);
            check("--sessions-per-node", sessionsPerNode, 1, 50);
            check("--warmup", warmupSeconds, 0, 120);
            check("--seconds", seconds, 1, 600);
            if (!(bytesPerSecond >= 1000 && bytesPerSecond <= 1e8)) {
                throw new IllegalArgumentException("--rate (bytes per second per session) " + bytesPerSecond
                        + " is outside [1000, 1e8]");
            }
            if (memoryBytes < 0 || memoryBytes > (1L << 30)) {
                throw new IllegalArgumentException("--memory-bytes " + memoryBytes + " is outside [0, 1 GiB]");
            }
            checkRedisMemory(redisMemory);
        }

        private static final Pattern REDIS_MEMORY = Pattern.compile("(\\d{1,12})(kb|mb|gb)?");

        /** The rig as it was before the object store: Redis of 256 MB, no object store. */
        Settings(int nodes, int sessionsPerNode, int warmupSeconds, int seconds, double bytesPerSecond,
                 long memoryBytes, long seed, Path balabit, Path haproxy, Path redisServer, Path configDoc) {
            this(nodes, sessionsPerNode, warmupSeconds, seconds, bytesPerSecond, memoryBytes, seed, balabit, haproxy,
                    redisServer, configDoc, "256mb", false);
        }

        /**
         * Checks a Redis {@code maxmemory}: below 1 MB Redis would evict nearly everything at once, and
         * 0 means no limit at all in Redis, which is not what a small value asks for.
         *
         * @throws IllegalArgumentException naming {@code --redis-memory} and the value
         */
        static void checkRedisMemory(String value) {
            Matcher m = value == null ? null : REDIS_MEMORY.matcher(value.toLowerCase(Locale.ROOT));
            if (m == null || !m.matches()) {
                throw new IllegalArgumentException("--redis-memory: '" + value + "' is not a size such as 8mb");
            }
            long unit = m.group(2) == null ? 1 : switch (m.group(2)) {
                case "kb" -> 1024L;
                case "mb" -> 1L << 20;
                default -> 1L << 30;
            };
            long n = Long.parseLong(m.group(1));
            if (n < (1L << 20) / unit || n > (64L << 30) / unit) {
                throw new IllegalArgumentException("--redis-memory: " + value + " is outside [1mb, 64gb]");
            }
        }

        private static void check(String name, int v, int min, int max) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(name + " " + v + " is outside [" + min + ", " + max + "]");
            }
        }
    }

    /**
     * One run's measurements.
     *
     * @param nodeRates     each node's rates over the window (one-node {@link FleetModel.FleetRates})
     * @param fleet         their sum
     * @param proxyCores    HAProxy's CPU over the window, in cores
     * @param clientBlocks  blocks each client received over the whole run
     * @param hitRate       the clients' cache hit rate over the whole run (requests answered at once)
     * @param originTotal   origin computations of all nodes over the whole run, once they settled
     * @param redisKeys     responses stored in Redis at the end
     * @param slack         computations made without the shared lock (Redis down or failing, a wait
     *                      that ran out) or whose value did not reach Redis (its write failed or was
     *                      skipped), the only ones another node may have made too or make again
     * @param windowSeconds the measured window's length
     * @param blocksPushed  block frames the nodes wrote per second over the window, together
     */
    record Result(List<FleetModel.FleetRates> nodeRates, FleetModel.FleetRates fleet, double proxyCores,
                  long[] clientBlocks, double hitRate, long originTotal, long redisKeys, long slack,
                  double windowSeconds, double blocksPushed) {
    }

    /** The Balabit sessions in a fixed order, users interleaved: session {@code k} is user {@code k mod U}'s. */
    static List<Path> sessionFiles(Path balabit) {
        List<List<Path>> users = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(balabit)) {
            for (Path user : dirs.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.list(user)) {
                    List<Path> sessions = files.filter(p -> p.getFileName().toString().startsWith("session_"))
                            .sorted().toList();
                    if (!sessions.isEmpty()) {
                        users.add(sessions);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the Balabit sessions in " + balabit, e);
        }
        List<Path> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            boolean any = false;
            for (List<Path> u : users) {
                if (i < u.size()) {
                    out.add(u.get(i));
                    any = true;
                }
            }
            if (!any) {
                return out;
            }
        }
    }

    /** The first {@code count} traces: the first ten-minute segment of each session that has one. */
    static List<PointerTrace> traces(Path balabit, int count) {
        List<PointerTrace> out = new ArrayList<>();
        for (Path file : sessionFiles(balabit)) {
            if (out.size() == count) {
                break;
            }
            List<PointerTrace> segments = BalabitReader.segments(BalabitReader.read(file), 600_000, 1000);
            if (!segments.isEmpty() && segments.get(0).size() > 10) {
                out.add(segments.get(0));
            }
        }
        if (out.size() < count) {
            throw new IllegalArgumentException(balabit + " holds " + out.size() + " usable sessions, " + count
                    + " needed");
        }
        return out;
    }

    /** Runs the rig once; see the class comment. */
    static Result run(Settings s) throws Exception {
        int total = s.nodes() * s.sessionsPerNode();
        List<PointerTrace> traces = traces(s.balabit(), total);
        Path logs = Files.createTempDirectory("fleet-rig");
        List<LocalProcesses.Node> nodes = new ArrayList<>();
        List<Replay> replays = new ArrayList<>();
        LocalProcesses.ObjectStore objects = null;
        try (RedisProcess redis = RedisProcess.start(s.redisServer(), s.redisMemory())) {
            try {
                if (s.objectStore()) {
                    objects = LocalProcesses.ObjectStore.start(logs.resolve("object-store.log"), BUCKET);
                }
                for (int k = 0; k < s.nodes(); k++) {
                    nodes.add(LocalProcesses.Node.launch(logs.resolve("node-" + (k + 1) + ".log"), redis.uri(),
                            NAMESPACE, s.bytesPerSecond(), s.memoryBytes(), objects));
                }
                List<Integer> ports = new ArrayList<>();
                for (LocalProcesses.Node n : nodes) {
                    ports.add(n.awaitPort());
                }
                int listen = LocalProcess.freePort();
                String config = HaproxyConfig.render(HaproxyConfig.documented(s.configDoc()), listen,
                        ports);
                try (HaproxyProcess proxy = HaproxyProcess.start(s.haproxy(), config, listen)) {
                    URI uri = URI.create("ws://127.0.0.1:" + proxy.port() + "/" + FleetNode.APP);
                    // One at a time: leastconn then gives every node the same number of sessions.
                    for (int i = 0; i < total; i++) {
                        Replay r = new Replay(i, traces.get(i), uri, s.seed());
                        replays.add(r);
                        r.connect();
                    }
                    replays.forEach(Replay::start);
                    awaitFirstBlocks(replays);
                    Thread.sleep(s.warmupSeconds() * 1000L);
                    List<NodeCounters> before = new ArrayList<>();
                    for (LocalProcesses.Node n : nodes) {
                        before.add(n.counters());
                    }
                    double proxy0 = proxy.cpuSeconds();
                    long t0 = System.nanoTime();
                    Thread.sleep(s.seconds() * 1000L);
                    List<FleetModel.FleetRates> rates = new ArrayList<>();
                    double pushed = 0;
                    for (int k = 0; k < nodes.size(); k++) {
                        NodeCounters now = nodes.get(k).counters();
                        NodeCounters d = now.minus(before.get(k));
                        rates.add(rates(d));
                        pushed += d.blocksPushed() / (d.nanoTime() / 1e9);
                    }
                    double window = (System.nanoTime() - t0) / 1e9;
                    double proxyCores = (proxy.cpuSeconds() - proxy0) / window;
                    long[] blocks = new long[replays.size()];
                    long hits = 0;
                    long registrations = 0;
                    for (int i = 0; i < replays.size(); i++) {
                        var m = replays.get(i).client.metrics();
                        blocks[i] = m.blocksReceived();
                        hits += m.hits();
                        registrations += m.registrations();
                    }
                    replays.forEach(Replay::close);
                    List<NodeCounters> settled = settle(nodes);
                    long origin = settled.stream().mapToLong(NodeCounters::originComputations).sum();
                    long slack = settled.stream().mapToLong(NodeCounters::repeatable).sum();
                    long keys = redis.countKeys(NAMESPACE + ":r:*");
                    return new Result(rates, FleetModel.FleetRates.sum(rates), proxyCores, blocks,
                            registrations == 0 ? 0 : (double) hits / registrations, origin, keys, slack, window, pushed);
                }
            } finally {
                replays.forEach(Replay::close);
                for (LocalProcesses.Node n : nodes) {
                    n.close();
                }
                if (objects != null) {
                    objects.close();
                }
                try (Stream<Path> files = Files.list(logs)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(logs);
            }
        }
    }

    /**
     * Waits (at most {@link #SETTLE_SECONDS}) until every session has received a block, so a window
     * measures sessions that are running, however slowly a loaded machine starts the nodes.
     *
     * @throws IllegalStateException naming the sessions that received nothing
     */
    private static void awaitFirstBlocks(List<Replay> replays) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        while (true) {
            List<Integer> waiting = new ArrayList<>();
            for (int i = 0; i < replays.size(); i++) {
                if (replays.get(i).client.metrics().blocksReceived() == 0) {
                    waiting.add(i);
                }
            }
            if (waiting.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("sessions " + waiting + " received no block in " + SETTLE_SECONDS
                        + " s");
            }
            Thread.sleep(50);
        }
    }

    /**
     * Once the clients are gone: waits (at most {@link #SETTLE_SECONDS}) until no node has a session,
     * a load or a shared-tier write in flight, and two readings a poll apart agree, then returns the
     * last counters. A computation is counted at its start and its value reaches Redis after its end,
     * so counters read earlier would show computations whose keys are not there yet.
     *
     * @throws IllegalStateException if the nodes are still busy at the deadline
     */
    private static List<NodeCounters> settle(List<LocalProcesses.Node> nodes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        List<NodeCounters> previous = null;
        while (true) {
            List<NodeCounters> now = new ArrayList<>();
            for (LocalProcesses.Node n : nodes) {
                now.add(n.counters());
            }
            boolean quiet = now.stream().allMatch(c -> c.sessions() == 0 && c.pending() == 0);
            if (quiet && previous != null && work(now) == work(previous)) {
                return now;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the nodes did not settle in " + SETTLE_SECONDS + " s: " + now);
            }
            previous = quiet ? now : null;
            Thread.sleep(250);
        }
    }

    private static long work(List<NodeCounters> counters) {
        return counters.stream().mapToLong(c -> c.blockReads() + c.originComputations() + c.redisResponses()).sum();
    }

    /** A node's counters over a window as per-second rates of a one-node fleet. */
    static FleetModel.FleetRates rates(NodeCounters d) {
        double sec = d.nanoTime() / 1e9;
        if (!(sec > 0)) {
            throw new IllegalArgumentException("a window of " + sec + " s");
        }
        return new FleetModel.FleetRates(1, Math.max(1, d.sessions()), d.cpuNanos() / 1e9 / sec, d.bytesPushed() / sec,
                d.blockReads() / sec, Math.min(d.memoryReads(), d.blockReads()) / sec, d.redisResponses() / sec,
                d.originComputations() / sec, d.objectStoreResponses() / sec);
    }

    /** One client replaying one trace on its own thread, looping the trace until closed. */
    static final class Replay implements AutoCloseable {
        final KhameleonClient<PointerEvent> client;
        private final PointerTrace trace;
        private final double offsetX;
        private final double offsetY;
        private final Thread thread;
        private volatile boolean stopped;

        Replay(int index, PointerTrace trace, URI uri, long seed) {
            this.trace = trace;
            SplittableRandom r = new SplittableRandom(seed + index);
            this.offsetX = r.nextDouble() * Math.max(0, FleetNode.CANVAS_WIDTH - trace.screenWidth());
            this.offsetY = r.nextDouble() * Math.max(0, FleetNode.CANVAS_HEIGHT - trace.screenHeight());
            this.client = KhameleonClient.builder().uri(uri).application(FleetNode.APP)
                    .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
            this.thread = new Thread(this::replay, "fleet-replay-" + index);
            thread.setDaemon(true);
        }

        void connect() throws Exception {
            client.connect().get(30, TimeUnit.SECONDS);
        }

        void start() {
            thread.start();
        }

        private void replay() {
            long start = System.nanoTime();
            double base = 0;
            int last = -1;
            try {
                while (!stopped) {
                    for (int i = 0; i < trace.size() && !stopped; i++) {
                        long due = start + (long) ((base + trace.timeMillis(i)) * 1e6);
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        double x = Math.min(FleetNode.CANVAS_WIDTH - 1, trace.x(i) + offsetX);
                        double y = Math.min(FleetNode.CANVAS_HEIGHT - 1, trace.y(i) + offsetY);
                        client.onEvent(x, y, System.currentTimeMillis());
                        int cell = FleetNode.GRID.requestAt(x, y);
                        if (cell >= 0 && cell != last) {
                            client.request(cell, response -> { });
                            last = cell;
                        }
                    }
                    // The trace ended before the run: play it again after a second's rest.
                    base += trace.durationMillis() + 1000;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            stopped = true;
            thread.interrupt();
            client.close();
        }
    }
}
