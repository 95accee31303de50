package dev.khameleon.bench.sim.cli;

import dev.khameleon.bench.sim.RequestMode;
import dev.khameleon.bench.sim.Runner;
import dev.khameleon.bench.sim.SimConfig;
import dev.khameleon.bench.sim.Simulator;
import dev.khameleon.bench.sim.SystemRegistry;
import dev.khameleon.bench.sim.net.MahimahiTrace;
import dev.khameleon.bench.sim.report.CsvReporter;
import dev.khameleon.bench.sim.report.TableReporter;
import dev.khameleon.bench.sim.trace.PointerTrace;
import dev.khameleon.bench.sim.trace.TraceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code simulate}: replays traces against systems under one network/cache setting, prints a
 * table and writes {@code DIR/results.csv}.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Replay pointer traces against systems; print a table and write DIR/results.csv.")
public final class SimulateCommand implements Callable<Integer> {

    @Mixin
    TraceOptions traceOptions;

    @Option(names = "--systems", defaultValue = "khameleon,baseline", split = ",",
            description = "Systems to run (default ${DEFAULT-VALUE}); known: khameleon, oracle, uniform, predictor-only, baseline, progressive, acc-A-K.")
    List<String> systems;

    @Option(names = "--bandwidth-MBps", defaultValue = "5.625", description = "Downlink MB/s (default ${DEFAULT-VALUE}).")
    double bandwidthMBps;

    @Option(names = "--latency-ms", defaultValue = "100", description = "Request latency (round trip + backend), ms (default ${DEFAULT-VALUE}).")
    double latencyMillis;

    @Option(names = "--cache-MB", defaultValue = "50", description = "Client cache, MB (default ${DEFAULT-VALUE}).")
    double cacheMB;

    @Option(names = "--think-time-ms", defaultValue = "0",
            description = "Fixed time between requests, ms; 0 replays the trace's pace (default). per-sample: the trace "
                    + "is scaled so grid samples are this far apart; per-visit: cell entries are.")
    double thinkTimeMillis;

    @Option(names = "--request-mode", defaultValue = "per-sample", split = ",",
            description = "What is a request (default ${DEFAULT-VALUE}): per-sample = every sample of the trace "
                    + "resampled on a --sample-ms grid, repeats of a cell included (the paper's traces); per-visit = "
                    + "one request per cell entry. A comma-separated list runs each mode.")
    List<String> requestModes;

    @Option(names = "--sample-ms", defaultValue = "20", description = "per-sample grid interval, ms (default ${DEFAULT-VALUE}).")
    double sampleMillis;

    @Option(names = "--network-trace", description = "Mahimahi downlink trace; replaces --bandwidth-MBps.")
    Path networkTrace;

    @Option(names = "--min-rtt-ms", description = "Minimum round trip with --network-trace, ms (default 100); replaces --latency-ms.")
    Double minRttMillis;

    @Option(names = "--block-bytes", defaultValue = "100000", description = "Progressive block size (default ${DEFAULT-VALUE}).")
    int blockBytes;

    @Option(names = "--warmup-ms", defaultValue = "0", description = "Session open before the first sample, ms (default ${DEFAULT-VALUE}).")
    double warmupMillis;

    @Option(names = "--align-horizons", description = "Shift predictions to when the first re-planned block lands (not the library's behaviour).")
    boolean alignHorizons;

    @Option(names = "--kalman-q", description = "Kalman process noise q in px^2/s^3 (default: the library's).")
    Double kalmanQ;

    @Option(names = {"--kalman-decay-ms", "--velocity-decay-ms"},
            description = "Kalman velocity decay time constant, ms (default: the library's).")
    Double kalmanDecayMillis;

    @Option(names = "--prediction-interval-ms", defaultValue = "150",
            description = "How often the client sends its predictor state, ms (default ${DEFAULT-VALUE}).")
    long predictionIntervalMillis;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--threads", defaultValue = "1", description = "Runs in parallel (default ${DEFAULT-VALUE}); output does not depend on it.")
    int threads;

    @Option(names = "--out", required = true, description = "Output directory for results.csv.")
    Path out;

    @Override
    public Integer call() {
        for (String s : systems) {
            SystemRegistry.check(s);
        }
        SimConfig.Builder b = SimConfig.builder().bandwidthMBps(bandwidthMBps).latencyMillis(latencyMillis)
                .cacheMB(cacheMB).thinkTimeMillis(thinkTimeMillis).blockBytes(blockBytes).warmupMillis(warmupMillis)
                .seed(seed).alignHorizons(alignHorizons).sampleMillis(sampleMillis)
                .kalmanProcessNoise(kalmanQ == null ? Double.NaN : kalmanQ)
                .kalmanVelocityDecayMillis(kalmanDecayMillis == null ? Double.NaN : kalmanDecayMillis)
                .predictionIntervalMillis(predictionIntervalMillis);
        if (networkTrace != null) {
            b.networkTrace(MahimahiTrace.read(networkTrace)).latencyMillis(minRttMillis == null ? 100 : minRttMillis);
        } else if (minRttMillis != null) {
            throw new IllegalArgumentException("--min-rtt-ms needs --network-trace; use --latency-ms otherwise");
        }
        List<SimConfig> configs = new ArrayList<>();
        for (RequestMode mode : parseModes(requestModes)) {
            configs.add(b.requestMode(mode).build());
        }
        List<PointerTrace> loaded = traceOptions.load();
        List<Runner.Job> jobs = new ArrayList<>();
        for (SimConfig config : configs) {
            for (PointerTrace t : loaded) {
                for (String s : systems) {
                    jobs.add(new Runner.Job(config, t, s));
                }
            }
        }
        List<Simulator.Result> results = Runner.runAll(jobs, threads, System.err, System.console() != null);
        System.out.print(TableReporter.text(results));
        write(out.resolve("results.csv"), CsvReporter.csv(results));
        System.err.println("wrote " + out.resolve("results.csv"));
        return 0;
    }

    /** The distinct modes named in {@code names}, in order; rejects unknown names. */
    static List<RequestMode> parseModes(List<String> names) {
        List<RequestMode> modes = new ArrayList<>();
        for (String n : names) {
            RequestMode m = RequestMode.parse(n.trim());
            if (!modes.contains(m)) {
                modes.add(m);
            }
        }
        return modes;
    }

    static void write(Path file, String content) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
