package dev.khameleon.bench.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
    private static final int N = 10_000;
    private static final int BLOCKS = 8;
    private static final int BLOCK_SIZE = 4096;
    private static final int CACHE = 1000;
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final String APP = "load";

    private ServerLoad() {
    }

    /** Entry point; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
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

    /** Blocks made on demand from one shared payload: no memory per block, no backend cost. */
    static BlockSource syntheticSource() {
        byte[] payload = new byte[BLOCK_SIZE];
        new SplittableRandom(1).nextBytes(payload);
        return new BlockSource() {
            @Override
            public int requestCount() {
                return N;
            }

            @Override
            public int blockSize() {
                return BLOCK_SIZE;
            }

            @Override
            public int blockCount(int requestId) {
                return BLOCKS;
            }

            @Override
            public CompletionStage<Block> fetch(int requestId, int blockIndex) {
                return CompletableFuture.completedFuture(Block.wrap(requestId, blockIndex, BLOCKS, payload, 0));
            }

            @Override
            public void prefetch(ScheduleChunk chunk) {
            }
        };
    }

    private static KhameleonServer startServer(ServerPredictor predictor, double rate) {
        // Every load client connects from 127.0.0.1: lift the per-address limits meant for the internet.
        return KhameleonServer.builder().host("127.0.0.1").port(0).seed(1).maxSessions(5000)
                .maxConnectionsPerAddress(5000).maxHandshakesPerAddress(5000)
                .fixedBytesPerSecond(rate).pacingGain(1.0).schedulerThreads(2).fetchThreads(2)
                .readIdleTimeout(Duration.ZERO)
                .application(Application.builder(APP).blockSource(syntheticSource()).predictor(predictor)
                        .horizons(HORIZONS).build())
                .build().start();
    }

    private static void throughput(int sessions, int warmup, int seconds) throws Exception {
        try (KhameleonServer server = startServer(ServerPredictor.uniform(N, HORIZONS), 1e12)) {
            List<Client> clients = connect(server, sessions, null);
            Thread.sleep(warmup * 1000L);
            long b0 = totalBytes(clients);
            long p0 = server.metrics().bytesPushed();
            Map<Long, Long> cpu0 = serverCpu();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long b1 = totalBytes(clients);
            long p1 = server.metrics().bytesPushed();
            Map<Long, Long> cpu1 = serverCpu();
            double wall = (System.nanoTime() - t0) / 1e9;
            double pushed = (p1 - p0) / wall / 1e6;
            System.out.printf(Locale.ROOT, "| %d | %.1f | %.3f | %.1f | %.2f | %d |%n", sessions, pushed,
                    pushed / sessions, (b1 - b0) / wall / 1e6, cpuDelta(cpu0, cpu1) / 1e9 / wall,
                    server.metrics().blocksSkipped());
            close(clients);
        }
    }

    private static void latency(int sessions, int warmup, int seconds, double ratePerSession) throws Exception {
        Histogram delays = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        AtomicLong missed = new AtomicLong();
        try (KhameleonServer server = startServer(ServerPredictor.point(N, HORIZONS), ratePerSession)) {
            List<Client> clients = connect(server, sessions, new Latency(delays, missed));
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
            long start = System.nanoTime() + warmup * 1_000_000_000L;
            // A state every 150 ms, or every 5 slots when slots are longer, so a state can show at all.
            long interval = Math.max(150, (long) Math.ceil(5 * (BlockFrame.HEADER_LENGTH + BLOCK_SIZE)
                    / ratePerSession * 1000));
            for (int i = 0; i < clients.size(); i++) {
                Client c = clients.get(i);
                ticker.scheduleAtFixedRate(() -> c.sendState(start), (interval * i) / clients.size(), interval,
                        TimeUnit.MILLISECONDS);
            }
            Thread.sleep((warmup + seconds) * 1000L);
            ticker.shutdownNow();
            Histogram h;
            synchronized (delays) {
                h = delays.copy();
            }
            System.out.printf(Locale.ROOT, "| %d | %.0f | %.1f | %d | %.1f | %.1f | %.1f | %d |%n", sessions,
                    ratePerSession / 1e3, (BlockFrame.HEADER_LENGTH + BLOCK_SIZE) / ratePerSession * 1e3,
                    h.getTotalCount(), h.getValueAtPercentile(50) / 1e6,
                    h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6, missed.get());
            close(clients);
        }
    }

    /** Where clients record the delay from sending a state to the first block it asked for. */
    record Latency(Histogram delays, AtomicLong missed) {
    }

    private static List<Client> connect(KhameleonServer server, int sessions, Latency latency) {
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/" + APP);
        List<Client> clients = new ArrayList<>();
        for (int from = 0; from < sessions; from += 100) {
            List<CompletableFuture<WebSocket>> batch = new ArrayList<>();
            List<Client> made = new ArrayList<>();
            for (int i = from; i < Math.min(sessions, from + 100); i++) {
                Client c = new Client(i, latency);
                made.add(c);
                batch.add(http.newWebSocketBuilder().buildAsync(uri, c));
            }
            for (int k = 0; k < batch.size(); k++) {
                WebSocket ws = batch.get(k).orTimeout(30, TimeUnit.SECONDS).join();
                made.get(k).ws = ws;
                ws.sendText(ControlCodec.encode(ControlMessage.Hello.of(APP, CACHE)), true).join();
            }
            clients.addAll(made);
        }
        return clients;
    }

    private static void close(List<Client> clients) {
        for (Client c : clients) {
            c.ws.abort();
        }
    }

    private static long totalBytes(List<Client> clients) {
        long sum = 0;
        for (Client c : clients) {
            sum += c.bytes.get();
        }
        return sum;
    }

    private static Map<Long, Long> serverCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("khameleon-")) {
                out.put(t.getThreadId(), mx.getThreadCpuTime(t.getThreadId()));
            }
        }
        return out;
    }

    private static long cpuDelta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /** One session's client: counts bytes; in latency mode, sends states and times their effect. */
    private static final class Client implements WebSocket.Listener {
        final AtomicLong bytes = new AtomicLong();
        private final Latency latency;
        private final SplittableRandom random;
        private final ByteBuffer frame = ByteBuffer.allocate(BlockFrame.HEADER_LENGTH + BLOCK_SIZE + 64);
        volatile WebSocket ws;
        private int target = -1;
        private long sentNanos;
        private long time;

        Client(int index, Latency latency) {
            this.latency = latency;
            this.random = new SplittableRandom(index);
        }

        synchronized void sendState(long recordFrom) {
            if (target >= 0 && sentNanos >= recordFrom) {
                latency.missed().incrementAndGet();
            }
            target = random.nextInt(N);
            sentNanos = System.nanoTime();
            ws.sendText("{\"type\":\"state\",\"time\":" + (++time) + ",\"state\":{\"request\":" + target + "}}", true);
            if (sentNanos < recordFrom) {
                target = -1 - target;
            }
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(Long.MAX_VALUE);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            bytes.addAndGet(data.remaining());
            if (latency != null) {
                if (frame.remaining() >= data.remaining()) {
                    frame.put(data);
                }
                if (last) {
                    frame.flip();
                    int requestId = BlockFrame.readHeader(frame).requestId();
                    frame.clear();
                    onBlock(requestId);
                }
            }
            return null;
        }

        private synchronized void onBlock(int requestId) {
            if (requestId == target) {
                long d = System.nanoTime() - sentNanos;
                synchronized (latency.delays()) {
                    latency.delays().recordValue(d);
                }
                target = -1;
            } else if (target < -1 && requestId == -1 - target) {
                target = -1;
            }
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            return null;
        }
    }
}
