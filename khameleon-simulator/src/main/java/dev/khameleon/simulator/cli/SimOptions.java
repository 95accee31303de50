package dev.khameleon.simulator.cli;

import dev.khameleon.simulator.FlagNames;
import dev.khameleon.simulator.GridSize;
import dev.khameleon.simulator.Profile;
import dev.khameleon.simulator.SchedulerTime;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.UtilityVector;
import dev.khameleon.simulator.net.MahimahiTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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

    @Option(names = "--profile", paramLabel = "NAME",
            description = "What a response is: paper-prototype (1,024,862 B pictures in 50 blocks of 20 KiB, the"
                    + " prototype's utility vector), library-default (the gallery's 480x360 photographs in 4 KiB blocks,"
                    + " measured SSIM) or legacy-100k (1.5 MB in 100 KB blocks, SSIM curve) (default paper-prototype, the setting of docs/results).")
    String profile;

    @Option(names = "--image-bytes", description = "Bytes of one full picture (default: the profile's).")
    Long imageBytes;

    @Option(names = "--block-bytes", description = "Progressive block size (default: the profile's).")
    Integer blockBytes;

    @Option(names = "--utility-vector", paramLabel = "B:U,...",
            description = "Utility per block count, e.g. 1:0.537,2:0.599,10:0.726,25:0.849,50:1.0; the last count is"
                    + " the whole picture (default: the profile's curve).")
    String utilityVector;

    @Option(names = "--warmup-ms", description = "Session open before the first sample, ms (default ${DEFAULT-VALUE}).")
    double warmupMillis = DEFAULTS.warmupMillis();

    @Option(names = "--align-horizons", description = "Shift predictions to when the first re-planned block lands (not the library's behaviour).")
    boolean alignHorizons = DEFAULTS.alignHorizons();

    @Option(names = "--kalman-q", description = "Kalman process noise q in px^2/s^3 (default: the library's).")
    Double kalmanQ;

    @Option(names = {"--kalman-decay-ms", "--velocity-decay-ms"},
            description = "Kalman velocity decay time constant, ms (default: the library's).")
    Double kalmanDecayMillis;

    @Option(names = "--along-track", paramLabel = "K",
            description = "The forecast's spread along the pointer's predicted displacement, a share of its length,"
                    + " KalmanPredictor.Builder.alongTrackSpread; 0 for the filter's round covariance (default: the library's).")
    Double alongTrack;

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

    /** The command these options are mixed into, for the option names its user typed. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /**
     * Sets the response: the profile's, then each explicit option. With {@code --profile}, an
     * explicit option that disagrees with it is refused rather than silently winning.
     */
    private void response(SimConfig.Builder b) {
        Profile p = profile == null ? DEFAULTS.profile() : Profile.parse(profile);
        b.profile(p);
        UtilityVector vector = utilityVector == null ? null : UtilityVector.parse(utilityVector);
        if (profile != null) {
            if (imageBytes != null && imageBytes != p.imageBytes()) {
                throw conflict("--image-bytes " + imageBytes, p, p.imageBytes() + " B");
            }
            if (blockBytes != null && blockBytes != p.blockBytes()) {
                throw conflict("--block-bytes " + blockBytes, p, p.blockBytes() + " B");
            }
            if (vector != null) {
                throw conflict("--utility-vector", p, "its own utility");
            }
        }
        if (imageBytes != null) {
            b.imageBytes(imageBytes);
        }
        if (blockBytes != null) {
            b.blockBytes(blockBytes);
        }
        if (vector != null) {
            b.utility(vector.toUtilityFunction());
        }
    }

    private static IllegalArgumentException conflict(String option, Profile p, String profileValue) {
        return new IllegalArgumentException(option + " conflicts with --profile " + p.label() + ", which sets "
                + profileValue + "; give one of them");
    }

    /**
     * The configurations these options name, one per request mode, in the order given.
     *
     * @throws IllegalArgumentException if a value is out of range, a request mode unknown, the
     *     network trace unreadable or malformed, or {@code --min-rtt-ms} given without
     *     {@code --network-trace}
     */
    public List<SimConfig> configs() {
        try {
            return build();
        } catch (IllegalArgumentException e) {
            throw FlagNames.reword(e, flags());
        }
    }

    /**
     * {@link SimConfig.Builder}'s names for the settings, as its messages give them, and the
     * options that set them (the name typed, for an option with two).
     */
    private Map<String, String> flags() {
        return Map.ofEntries(Map.entry("bandwidthMBps", "--bandwidth-MBps"),
                Map.entry("latencyMillis", networkTrace != null && minRttMillis != null ? "--min-rtt-ms" : "--latency-ms"),
                Map.entry("cacheMB", "--cache-MB"), Map.entry("thinkTimeMillis", "--think-time-ms"),
                Map.entry("warmupMillis", "--warmup-ms"), Map.entry("sampleMillis", "--sample-ms"),
                Map.entry("kalmanProcessNoise", "--kalman-q"),
                Map.entry("kalmanVelocityDecayMillis", FlagNames.typed(command, "--kalman-decay-ms")),
                Map.entry("kalmanAlongTrackSpread", "--along-track"),
                Map.entry("predictionIntervalMillis", "--prediction-interval-ms"),
                Map.entry("linkQueueKB", "--link-queue-KB"));
    }

    private List<SimConfig> build() {
        SimConfig.Builder b = SimConfig.builder().bandwidthMBps(bandwidthMBps).latencyMillis(latencyMillis)
                .cacheMB(cacheMB).thinkTimeMillis(thinkTimeMillis).warmupMillis(warmupMillis)
                .seed(seed).alignHorizons(alignHorizons).sampleMillis(sampleMillis)
                .kalmanProcessNoise(kalmanQ == null ? Double.NaN : kalmanQ)
                .kalmanVelocityDecayMillis(kalmanDecayMillis == null ? Double.NaN : kalmanDecayMillis)
                .kalmanAlongTrackSpread(alongTrack == null ? Double.NaN : alongTrack)
                .predictionIntervalMillis(predictionIntervalMillis)
                .linkQueueKB(linkQueueKB == null ? Double.NaN : linkQueueKB).schedulerTime(schedulerTime);
        response(b);
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
