package dev.khameleon.bench.sim.cli;

import dev.khameleon.bench.GridSize;
import dev.khameleon.bench.sim.SchedulerTime;
import dev.khameleon.bench.sim.SimConfig;
import dev.khameleon.bench.sim.net.MahimahiTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The command-line options that set a {@link SimConfig}, shared by the subcommands that run the
 * simulator (a picocli mixin: {@code @Mixin SimOptions sim;}). Every default is
 * {@link SimConfig#builder()}'s, read from there: an option's initial value is the reference
 * configuration's, and help shows it. Not thread-safe; picocli fills it.
 */
public final class SimOptions {
    private static final SimConfig DEFAULTS = SimConfig.builder().build();

    @Option(names = "--bandwidth-MBps", description = "Downlink MB/s (default ${DEFAULT-VALUE}).")
    double bandwidthMBps = DEFAULTS.bandwidthMBps();

    @Option(names = "--latency-ms", description = "Request latency (round trip + backend), ms (default ${DEFAULT-VALUE}).")
    double latencyMillis = DEFAULTS.latencyMillis();

    @Option(names = "--cache-MB", description = "Client cache, MB (default ${DEFAULT-VALUE}).")
    double cacheMB = DEFAULTS.cacheMB();

    @Option(names = "--think-time-ms",
            description = "Fixed time between requests, ms; 0 replays the trace's pace (default ${DEFAULT-VALUE}). "
                    + "per-sample: the trace is scaled so grid samples are this far apart; per-visit: cell entries are.")
    double thinkTimeMillis = DEFAULTS.thinkTimeMillis();

    @Option(names = "--request-mode", split = ",",
            description = "What is a request (default ${DEFAULT-VALUE}): per-sample = every sample of the trace "
                    + "resampled on a --sample-ms grid, repeats of a cell included (the paper's traces); per-visit = "
                    + "one request per cell entry. A comma-separated list runs each mode.")
    List<String> requestModes = List.of(DEFAULTS.requestMode().label());

    @Option(names = "--sample-ms", description = "per-sample grid interval, ms (default ${DEFAULT-VALUE}).")
    double sampleMillis = DEFAULTS.sampleMillis();

    @Option(names = "--network-trace", description = "Mahimahi downlink trace; replaces --bandwidth-MBps.")
    Path networkTrace;

    @Option(names = "--min-rtt-ms",
            description = "Minimum round trip with --network-trace, ms (default: --latency-ms's default); replaces --latency-ms.")
    Double minRttMillis;

    @Option(names = "--mosaic", paramLabel = "ROWSxCOLS",
            description = "Thumbnails over the trace's screen (default ${DEFAULT-VALUE}, the paper's).")
    String mosaic = DEFAULTS.mosaicRows() + "x" + DEFAULTS.mosaicCols();

    @Option(names = "--block-bytes", description = "Progressive block size (default ${DEFAULT-VALUE}).")
    int blockBytes = DEFAULTS.blockBytes();

    @Option(names = "--warmup-ms", description = "Session open before the first sample, ms (default ${DEFAULT-VALUE}).")
    double warmupMillis = DEFAULTS.warmupMillis();

    @Option(names = "--align-horizons", description = "Shift predictions to when the first re-planned block lands (not the library's behaviour).")
    boolean alignHorizons = DEFAULTS.alignHorizons();

    @Option(names = "--kalman-q", description = "Kalman process noise q in px^2/s^3 (default: the library's).")
    Double kalmanQ;

    @Option(names = {"--kalman-decay-ms", "--velocity-decay-ms"},
            description = "Kalman velocity decay time constant, ms (default: the library's).")
    Double kalmanDecayMillis;

    @Option(names = "--prediction-interval-ms",
            description = "How often the client sends its predictor state, ms (default ${DEFAULT-VALUE}).")
    long predictionIntervalMillis = DEFAULTS.predictionIntervalMillis();

    @Option(names = "--seed", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed = DEFAULTS.seed();

    @Option(names = "--link-queue-KB", description = "Bytes (KB) the path queues in front of the bottleneck"
            + " (default: one bandwidth-delay product, at least 64 KiB).")
    Double linkQueueKB;

    @Option(names = "--scheduler-time", description = "simulate only: virtual time of a push-engine scheduler job: model, measured"
            + " or zero (default ${DEFAULT-VALUE}).")
    SchedulerTime schedulerTime = DEFAULTS.schedulerTime();

    @Mixin
    PrefetchOptions prefetch = new PrefetchOptions();

    /**
     * The configurations these options name, one per request mode, in the order given.
     *
     * @throws IllegalArgumentException if a value is out of range, a request mode unknown, the
     *     network trace unreadable or malformed, or {@code --min-rtt-ms} given without
     *     {@code --network-trace}
     */
    public List<SimConfig> configs() {
        SimConfig.Builder b = SimConfig.builder().bandwidthMBps(bandwidthMBps).latencyMillis(latencyMillis)
                .cacheMB(cacheMB).thinkTimeMillis(thinkTimeMillis).blockBytes(blockBytes).warmupMillis(warmupMillis)
                .seed(seed).alignHorizons(alignHorizons).sampleMillis(sampleMillis)
                .kalmanProcessNoise(kalmanQ == null ? DEFAULTS.kalmanProcessNoise() : kalmanQ)
                .kalmanVelocityDecayMillis(kalmanDecayMillis == null ? DEFAULTS.kalmanVelocityDecayMillis()
                        : kalmanDecayMillis)
                .predictionIntervalMillis(predictionIntervalMillis)
                .linkQueueKB(linkQueueKB == null ? Double.NaN : linkQueueKB).schedulerTime(schedulerTime);
        GridSize grid = GridSize.parse(mosaic, "--mosaic");
        b.mosaic(grid.rows(), grid.cols());
        prefetch.apply(b);
        if (networkTrace != null) {
            if (!Files.isRegularFile(networkTrace) || !Files.isReadable(networkTrace)) {
                throw new IllegalArgumentException("--network-trace " + networkTrace + ": not a readable file");
            }
            b.networkTrace(MahimahiTrace.read(networkTrace))
                    .latencyMillis(minRttMillis == null ? DEFAULTS.latencyMillis() : minRttMillis);
        } else if (minRttMillis != null) {
            throw new IllegalArgumentException("--min-rtt-ms needs --network-trace; use --latency-ms otherwise");
        }
        return SimulateCommand.parseModes(requestModes).stream().map(m -> b.requestMode(m).build()).toList();
    }
}
