package dev.khameleon.simulator.cli;

import dev.khameleon.simulator.FlagNames;
import dev.khameleon.simulator.SimConfig;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The library's prefetch settings that {@code simulate} and {@code experiment} both let you
 * change: the forecast's horizons, the server predictor's heavy tail, its fade at rest and its spread, and
 * the scheduler's floors on a block's weight. Defaults are the library's.
 */
public final class PrefetchOptions {
    private static final SimConfig DEFAULTS = SimConfig.builder().build();

    @Option(names = "--min-block-gain",
            description = "The scheduler's least block gain, SchedulerSettings.Builder.minBlockGain (default ${DEFAULT-VALUE}).")
    double minBlockGain = DEFAULTS.scheduler().minBlockGain();

    @Option(names = "--block-gain-share",
            description = "The scheduler's least block weight relative to an even share, "
                    + "SchedulerSettings.Builder.blockGainShare; 0 for the paper's plain gains (default ${DEFAULT-VALUE}).")
    double blockGainShare = DEFAULTS.scheduler().blockGainShare();

    @Option(names = "--tail", split = ",", paramLabel = "WEIGHT,WIDEN,MIN_SIGMA_PX",
            description = "The server predictor's heavy tail, GaussianGridPredictor.Builder.tail; 0,1,0 for none "
                    + "(default: the library's, 0.2,2,20).")
    double[] tail;

    @Option(names = "--tail-rest-fade-ms",
            description = "Time constant of the tail's fade while the pointer rests, "
                    + "GaussianGridPredictor.Builder.tailRestFadeMillis; Infinity keeps it (default ${DEFAULT-VALUE}).")
    double tailRestFadeMillis = DEFAULTS.tailRestFadeMillis();

    @Option(names = "--sigma-scale",
            description = "Scale of the forecast's standard deviations, GaussianGridPredictor.Builder.sigmaScale, "
                    + "in (0, 4] (default ${DEFAULT-VALUE}).")
    double sigmaScale = DEFAULTS.sigmaScale();

    @Option(names = "--horizons", split = ",", paramLabel = "MS",
            description = "The forecast horizons, ms, strictly increasing, shared by the client and server predictors "
                    + "(Application.Builder.horizons; default: the library's, 50,150,250,500).")
    long[] horizons;

    /** The builder's names for these settings, as their messages give them, and the options that set them. */
    static final Map<String, String> FLAGS = Map.of("minBlockGain", "--min-block-gain", "blockGainShare",
            "--block-gain-share", "tailRestFadeMillis", "--tail-rest-fade-ms", "sigmaScale", "--sigma-scale",
            "horizonsMillis", "--horizons", "horizons", "--horizons", "tail weight", "--tail WEIGHT",
            "tail widen", "--tail WIDEN", "tail minSigma", "--tail MIN_SIGMA_PX", "tail", "--tail");

    /**
     * Sets these options on {@code b}; returns {@code b}.
     *
     * @throws IllegalArgumentException naming the option, for a value out of range
     */
    SimConfig.Builder apply(SimConfig.Builder b) {
        try {
            return set(b);
        } catch (IllegalArgumentException e) {
            throw FlagNames.reword(e, FLAGS);
        }
    }

    private SimConfig.Builder set(SimConfig.Builder b) {
        b.minBlockGain(minBlockGain).blockGainShare(blockGainShare).tailRestFadeMillis(tailRestFadeMillis)
                .sigmaScale(sigmaScale);
        if (horizons != null) {
            b.horizonsMillis(horizons);
        }
        if (tail != null) {
            if (tail.length != 3) {
                throw new IllegalArgumentException("--tail needs WEIGHT,WIDEN,MIN_SIGMA_PX, e.g. 0.2,2,20");
            }
            b.tail(tail[0], tail[1], tail[2]);
        }
        return b;
    }

    /** The options that differ from the defaults, as command-line arguments (with a leading space). */
    String changed() {
        StringBuilder s = new StringBuilder();
        if (minBlockGain != DEFAULTS.scheduler().minBlockGain()) {
            s.append(" --min-block-gain ").append(minBlockGain);
        }
        if (blockGainShare != DEFAULTS.scheduler().blockGainShare()) {
            s.append(" --block-gain-share ").append(blockGainShare);
        }
        if (tail != null) {
            s.append(" --tail ").append(tail.length > 0 ? tail[0] : "");
            for (int i = 1; i < tail.length; i++) {
                s.append(',').append(tail[i]);
            }
        }
        if (tailRestFadeMillis != DEFAULTS.tailRestFadeMillis()) {
            s.append(" --tail-rest-fade-ms ").append(tailRestFadeMillis);
        }
        if (sigmaScale != DEFAULTS.sigmaScale()) {
            s.append(" --sigma-scale ").append(sigmaScale);
        }
        if (horizons != null) {
            s.append(" --horizons ");
            for (int i = 0; i < horizons.length; i++) {
                s.append(i > 0 ? "," : "").append(horizons[i]);
            }
        }
        return s.toString();
    }
}
