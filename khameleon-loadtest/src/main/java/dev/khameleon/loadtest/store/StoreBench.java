package dev.khameleon.loadtest.store;

import dev.khameleon.simulator.GridSize;
import dev.khameleon.simulator.trace.BalabitReader;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.store.DirectIo;
import dev.khameleon.store.FileBlockStore;
import dev.khameleon.store.ImportSummary;
import dev.khameleon.store.ReadStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The file-store benchmark: imports a generated multi-GB corpus, records per-user block streams
 * from real pointer traces through a greedy scheduler, and replays them with 1 to 1,000
 * concurrent sessions against each read strategy, then sweeps read-ahead sizes and I/O thread
 * counts. Reads use {@code O_DIRECT} so the page cache does not hide the disk (the machine's
 * caches are never dropped). Prints a Markdown table (and writes it to {@code --out}).
 *
 * <pre>
 * mvn -B -q package -pl khameleon-loadtest -am -DskipTests
 * java -jar khameleon-loadtest/target/khameleon-loadtest.jar store \
 *     --dir /work/tmp/store-bench --corpus-gb 4 --out target/store-bench.md
 * </pre>
 */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = "Replays recorded Khameleon block streams against the file block store's read strategies.")
public final class StoreBench implements Callable<Integer> {

    @Option(names = "--dir", description = "Where the corpus is written (deleted afterwards unless --keep); default ${DEFAULT-VALUE}")
    Path dir = Path.of("target", "store-bench");

    @Option(names = "--keep", description = "Keep the corpus (and reuse it when it matches) instead of deleting it")
    boolean keep;

    @Option(names = "--corpus-gb", description = "Corpus size in GB; default ${DEFAULT-VALUE}")
    double corpusGb = 4;

    @Option(names = "--block-size", description = "Block size in bytes; default ${DEFAULT-VALUE}")
    int blockSize = 16384;

    @Option(names = "--grid", description = "Gallery grid rows x cols (one response per cell); default ${DEFAULT-VALUE}")
    String grid = "60x100";

    @Option(names = "--pages", description = "Gallery pages (each a grid); user u browses page u mod pages; default ${DEFAULT-VALUE}")
    int pages = 1;

    @Option(names = "--traces", description = "Balabit pointer traces; default ${DEFAULT-VALUE}")
    Path traces = Path.of("..", "shared", "data", "pointer", "balabit");

    @Option(names = "--users", description = "Recorded user block streams; default ${DEFAULT-VALUE}")
    int users = 1000;

    @Option(names = "--blocks-per-user", description = "Length of each recorded stream; default ${DEFAULT-VALUE}")
    int blocksPerUser = 3000;

    @Option(names = "--bandwidth-mbps", description = "Per-user link the scheduler plans for, MB/s; default ${DEFAULT-VALUE}")
    double bandwidthMbps = 5;

    @Option(names = "--cache-blocks", description = "Client cache C in blocks; default ${DEFAULT-VALUE}")
    int cacheBlocks = 2000;

    @Option(names = "--sessions", split = ",", description = "Concurrent sessions; default ${DEFAULT-VALUE}")
    int[] sessions = {1, 10, 100, 1000};

    @Option(names = "--depth", description = "Fetches each session keeps in flight; default ${DEFAULT-VALUE}")
    int depth = 4;

    @Option(names = "--slot-ms", description = "Paced replay: each session wants one block per slot of this many ms and "
            + "latency is measured from when it was wanted (0: closed loop, each session keeps --depth fetches in flight); "
            + "default ${DEFAULT-VALUE}")
    double slotMs = 0;

    @Option(names = "--read-ahead-kb", split = ",", description = "Read-ahead sizes swept at --sweep-sessions; the first is the main table's; default ${DEFAULT-VALUE}")
    int[] readAheadKb = {1024, 256, 2048};

    @Option(names = "--io-threads", split = ",", description = "I/O thread counts swept at --sweep-sessions; default ${DEFAULT-VALUE}")
    int[] ioThreads = {1, 2, 4, 8};

    @Option(names = "--main-io-threads", split = ",", description = "I/O thread counts of the read-ahead strategies in the main table (0: the store's default); default ${DEFAULT-VALUE}")
    int[] mainIoThreads = {1, 4};

    @Option(names = "--demand-burst", description = "FileBlockStore.Builder.demandBurstReads for schedule-aware with the default concurrency; default ${DEFAULT-VALUE}")
    int demandBurst = 0;

    @Option(names = "--main-strategies", split = ",", converter = StrategyConverter.class,
            description = "Strategies of the main table; default naive,serialized-readahead,schedule-aware")
    List<ReadStrategy> mainStrategies = List.of(ReadStrategy.values());

    @Option(names = "--repeat", description = "Runs of each main-table configuration (median reported, range in brackets); default ${DEFAULT-VALUE}")
    int repeat = 1;

    @Option(names = "--naive-threads-max", description = "Cap on naive's threads (it gets sessions x depth up to this); default ${DEFAULT-VALUE}")
    int naiveThreadsMax = 512;

    @Option(names = "--sweep-sessions", description = "Sessions for the read-ahead / I/O thread sweep (0: no sweep); default ${DEFAULT-VALUE}")
    int sweepSessions = 100;

    @Option(names = "--pool-mb", description = "Read-ahead pool per store, MiB; default ${DEFAULT-VALUE}")
    int poolMb = 256;

    @Option(names = "--direct", description = "O_DIRECT: OFF, AUTO or REQUIRED; default ${DEFAULT-VALUE}")
    DirectIo direct = DirectIo.REQUIRED;

    @Option(names = "--warmup-s", description = "Warm-up per run, s; default ${DEFAULT-VALUE}")
    double warmupSeconds = 1;

    @Option(names = "--measure-s", description = "Measured time per run, s; default ${DEFAULT-VALUE}")
    double measureSeconds = 5;

    @Option(names = "--seed", description = "Seed of corpus, trace starts and schedulers; default ${DEFAULT-VALUE}")
    long seed = 20201;

    @Option(names = "--out", description = "Also write the Markdown report here")
    Path out;

    @Option(names = "--throttle-reads", paramLabel = "IOPS,MB/s", converter = LimitConverter.class, description = "Cap this process's reads from the "
            + "corpus's block device while it replays, e.g. 3000,125 for a cloud volume's baseline (needs root and the "
            + "cgroup blkio or io controller; throttles O_DIRECT reads and page-cache misses); default: no cap")
    ReadThrottle.Limit throttleReads;

    @Override
    public Integer call() throws Exception {
        GridSize size = GridSize.parse(grid, "--grid");
        int rows = size.rows();
        int cols = size.cols();
        GridLayout layout = new GridLayout(rows, cols, 0, 0, 1920.0 / cols, 1080.0 / rows);
        int n = layout.requestCount() * pages;
        BenchCorpus corpus = new BenchCorpus(n, blockSize, (long) (corpusGb * 1e9), seed);
        StringBuilder report = new StringBuilder();
        PrintStream console = System.out;

        String throttledDevice = null;
        if (throttleReads != null) {
            // Fail before the import, not after it, when the corpus's directory cannot be throttled.
            Files.createDirectories(dir);
            throttledDevice = ReadThrottle.deviceOf(dir);
        }
        long t0 = System.nanoTime();
        Path marker = dir.resolve("bench-corpus.txt");
        String signature = n + " " + blockSize + " " + corpus.bytes() + " " + seed;
        if (keep && Files.exists(marker) && Files.readString(marker).equals(signature)) {
            console.printf("reusing corpus at %s%n", dir);
        } else {
            ImportSummary s = corpus.importInto(dir, seed);
            Files.writeString(marker, signature);
            double secs = (System.nanoTime() - t0) / 1e9;
            console.printf("imported %d responses, %d blocks, %.2f GB in %.1f s (%.0f MB/s incl. generation and fsync)%n",
                    s.responses(), s.blocks(), s.bytes() / 1e9, secs, s.bytes() / secs / 1e6);
            report.append(String.format(Locale.ROOT, "Import: %d responses, %d blocks of %d B, %.2f GB on disk, %.1f s.%n%n",
                    s.responses(), s.blocks(), blockSize, s.bytes() / 1e9, secs));
        }

        long t1 = System.nanoTime();
        RecordedSchedules schedules = record(layout, corpus);
        console.printf("recorded %d user streams of %d blocks (%d distinct blocks) in %.1f s with %s%n", schedules.users(),
                schedules.length(), schedules.distinctBlocks(), (System.nanoTime() - t1) / 1e9, schedulerName);
        report.append(String.format(Locale.ROOT, "Streams: %d users on %d gallery page(s) of %s cells x %d blocks "
                + "recorded with %s from %s (%d distinct blocks, %.2f GB).%n%n", schedules.users(), pages, grid,
                schedules.length(), schedulerName, traceSource,
                schedules.distinctBlocks(), schedules.distinctBlocks() * (double) blockSize / 1e9));

        ReadThrottle throttle = null;
        if (throttleReads != null) {
            throttle = ReadThrottle.apply(throttledDevice, throttleReads);
            console.printf("reads throttled to %s%n", throttle);
            report.append("Reads throttled to ").append(throttle).append(".\n\n");
        }
        try {
            replayAll(schedules, report, console);
        } finally {
            if (throttle != null) {
                throttle.close();
            }
        }
        report.append(String.format(Locale.ROOT, "%nTotal %.1f min, %s.%n", (System.nanoTime() - t0) / 60e9,
                Instant.now()));
        if (out != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
        }
        if (!keep) {
            BenchCorpus.deleteRecursively(dir);
            console.printf("deleted corpus at %s%n", dir);
        }
        return 0;
    }

    private void replayAll(RecordedSchedules schedules, StringBuilder report, PrintStream console) throws Exception {
        Replay replay = new Replay(schedules);
        String header = "| strategy | I/O threads | read-ahead | sessions | MB/s | blocks/s | p50 ms | p99 ms | p99 slots | disk MB/s "
                + "| disk ÷ served | reads/s | buffers MiB (peak in use) | CPU µs/block | errors |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        report.append("### Strategies by sessions\n\n").append(header);
        console.print(header);
        for (int s : sessions) {
            for (String row : mainRows(replay, s)) {
                report.append(row);
                console.print(row);
            }
        }
        if (sweepSessions > 0) {
            sweep(replay, report, console, header);
        }
    }

    private void sweep(Replay replay, StringBuilder report, PrintStream console, String header) throws Exception {
        report.append("\n### Read-ahead and I/O threads at ").append(sweepSessions).append(" sessions\n\n").append(header);
        console.print(header);
        for (ReadStrategy strategy : List.of(ReadStrategy.SERIALIZED_READAHEAD, ReadStrategy.SCHEDULE_AWARE)) {
            for (int ra : readAheadKb) {
                for (int th : ioThreads) {
                    if (ra == readAheadKb[0] && contains(mainIoThreads, th) && contains(sessions, sweepSessions)) {
                        continue;
                    }
                    String row = runOne(replay, strategy, th, ra, sweepSessions);
                    report.append(row);
                    console.print(row);
                }
            }
        }
        for (int th : new int[] {16, 64}) {
            String row = runOne(replay, ReadStrategy.NAIVE, th, readAheadKb[0], sweepSessions);
            report.append(row);
            console.print(row);
        }
    }

    private static final double SEGMENT_MILLIS = 30_000;
    private static final double IDLE_GAP_MILLIS = 2_000;
    private String schedulerName = "";
    private String traceSource = "";

    private RecordedSchedules record(GridLayout layout, BenchCorpus corpus) throws IOException {
        List<PointerTrace> loaded = new ArrayList<>();
        if (Files.isDirectory(traces)) {
            List<Path> files;
            try (Stream<Path> s = Files.walk(traces)) {
                files = s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
            }
            for (Path f : files) {
                loaded.addAll(BalabitReader.segments(BalabitReader.read(f), SEGMENT_MILLIS, IDLE_GAP_MILLIS));
            }
            traceSource = "Balabit pointer traces (" + files.size() + " sessions cut into " + loaded.size()
                    + " segments of " + (int) (SEGMENT_MILLIS / 1000) + " s, idle gaps over "
                    + (int) IDLE_GAP_MILLIS + " ms shortened)";
        } else {
            throw new IOException("pointer traces not found at " + traces.toAbsolutePath()
                    + " (see shared/data/README.md); pass --traces");
        }
        double slotMillis = blockSize / (bandwidthMbps * 1e6) * 1000;
        RecordedSchedules.SchedulerFactory factory = SchedulerChoice.factory();
        schedulerName = SchedulerChoice.name();
        return RecordedSchedules.record(loaded, layout, pages, corpus::blockCount, factory, users, blocksPerUser, cacheBlocks,
                slotMillis, 150, seed);
    }

    /** One measured run: its MB/s and its table row with the MB/s cell left open. */
    private record Run(double mbPerSecond, String head, String tail) {
        String row(String mbCell) {
            return head + mbCell + tail;
        }

        String row() {
            return row(String.format(Locale.ROOT, "%.1f", mbPerSecond));
        }
    }

    private String runOne(Replay replay, ReadStrategy strategy, int threads, int readAheadKbValue, int s)
            throws Exception {
        return measure(replay, strategy, threads, readAheadKbValue, s).row();
    }

    private Run measure(Replay replay, ReadStrategy strategy, int threads, int readAheadKbValue, int s)
            throws Exception {
        FileBlockStore.Builder builder = FileBlockStore.builder(dir).strategy(strategy)
                .readAheadBytes(readAheadKbValue * 1024).poolBytes((long) poolMb << 20).directIo(direct)
                .maxPendingReads(1 << 20);
        if (threads > 0) {
            builder.ioThreads(threads);
        } else if (strategy == ReadStrategy.SCHEDULE_AWARE) {
            builder.demandBurstReads(demandBurst);
        }
        try (FileBlockStore store = builder.build()) {
            Replay.Result r = replay.run(store, s, depth, warmupSeconds, measureSeconds, (long) (slotMs * 1e6));
            double allocatedMiB = r.after().poolAllocatedBytes() / (1024.0 * 1024.0);
            double peakMiB = r.after().poolPeakBytes() / (1024.0 * 1024.0);
            String head = String.format(Locale.ROOT, "| %s%s | %s | %s | %d | ", strategy.configName(),
                    store.directIo() ? "" : " (buffered)", threads > 0 ? Integer.toString(threads) : "default",
                    strategy == ReadStrategy.NAIVE ? "-" : readAheadKbValue + " KiB", s);
            // A run in which no fetch completed has no latency and no ratio to report, not zeros.
            boolean served = r.latencyNanos().getTotalCount() > 0 && r.mbPerSecond() > 0;
            double p99 = r.latencyNanos().getValueAtPercentile(99) / 1e6;
            String tail = String.format(Locale.ROOT, " | %.0f | %s | %s | %s | %.1f | %s | %.0f | %.1f (%.1f) | %s | %d |%n",
                    r.blocksPerSecond(),
                    served ? String.format(Locale.ROOT, "%.2f", r.latencyNanos().getValueAtPercentile(50) / 1e6) : "none done",
                    served ? String.format(Locale.ROOT, "%.2f", p99) : "none done",
                    slotMs <= 0 ? "-" : served ? String.format(Locale.ROOT, "%.1f", p99 / slotMs) : "none done",
                    r.diskMbPerSecond(),
                    served ? String.format(Locale.ROOT, "%.2f", r.diskMbPerSecond() / r.mbPerSecond()) : "-",
                    r.readsPerSecond(), allocatedMiB, peakMiB,
                    served ? String.format(Locale.ROOT, "%.1f", r.cpuMicrosPerBlock()) : "-", r.errors());
            return new Run(r.mbPerSecond(), head, tail);
        }
    }

    /**
     * Runs every configuration of the main table at {@code s} sessions {@code repeat} times,
     * interleaved, and returns the rows of the median runs (with the range when repeated).
     */
    private List<String> mainRows(Replay replay, int s) throws Exception {
        record Config(ReadStrategy strategy, int threads) {
        }
        List<Config> configs = new ArrayList<>();
        for (ReadStrategy strategy : mainStrategies) {
            if (strategy == ReadStrategy.NAIVE) {
                configs.add(new Config(strategy, Math.min(s * depth, naiveThreadsMax)));
            } else {
                for (int threads : mainIoThreads) {
                    configs.add(new Config(strategy, threads));
                }
            }
        }
        List<List<Run>> runs = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            runs.add(new ArrayList<>());
        }
        for (int r = 0; r < repeat; r++) {
            for (int i = 0; i < configs.size(); i++) {
                Run run = measure(replay, configs.get(i).strategy(), configs.get(i).threads(), readAheadKb[0], s);
                runs.get(i).add(run);
                if (repeat > 1) {
                    System.out.print("  rep " + (r + 1) + ": " + run.row());
                }
            }
        }
        List<String> rows = new ArrayList<>();
        for (List<Run> list : runs) {
            list.sort(java.util.Comparator.comparingDouble(Run::mbPerSecond));
            Run median = list.get(list.size() / 2);
            rows.add(repeat == 1 ? median.row() : median.row(String.format(Locale.ROOT, "%.1f (%.0f–%.0f)",
                    median.mbPerSecond(), list.get(0).mbPerSecond(), list.get(list.size() - 1).mbPerSecond())));
        }
        return rows;
    }

    /** Parses {@code --throttle-reads} for picocli, a bad value being a usage error. */
    static final class LimitConverter implements CommandLine.ITypeConverter<ReadThrottle.Limit> {
        @Override
        public ReadThrottle.Limit convert(String value) {
            try {
                return ReadThrottle.Limit.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Parses strategy config names for picocli. */
    static final class StrategyConverter implements CommandLine.ITypeConverter<ReadStrategy> {
        @Override
        public ReadStrategy convert(String value) {
            return ReadStrategy.fromName(value);
        }
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
