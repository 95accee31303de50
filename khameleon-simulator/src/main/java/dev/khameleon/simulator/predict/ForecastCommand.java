package dev.khameleon.simulator.predict;

import dev.khameleon.simulator.predict.ForecastCalibration.Forecaster;
import dev.khameleon.simulator.predict.ForecastCalibration.GridScoring;
import dev.khameleon.simulator.predict.ForecastCalibration.TraceCalibration;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceOptions;
import dev.khameleon.client.KalmanPredictor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code forecast}: how well the {@link KalmanPredictor}'s Gaussians describe recorded pointer
 * traces — per horizon and trace kind, the error of the forecast mean, the forecast's σ and how
 * often the true position falls inside the 1σ and 2σ ellipses — and, for the distribution over
 * requests that the server's {@code GaussianGridPredictor} makes of each forecast on the
 * simulator's mosaic, the mass it puts on the cell the pointer really reached, its
 * log-likelihood and how often that cell is explicit. Prints Markdown tables and, with
 * {@code --out DIR}, writes {@code DIR/forecast.csv}. Bad options or a missing trace are an
 * {@link IllegalArgumentException} (one line, exit status 2, through the bench {@code Cli}).
 */
@Command(name = "forecast", mixinStandardHelpOptions = true,
        description = "Calibration of the Kalman pointer forecast per horizon on recorded traces; "
                + "print Markdown tables and, with --out, write DIR/forecast.csv.")
public final class ForecastCommand implements Callable<Integer> {

    @Mixin
    TraceOptions traceOptions;

    /** This command, for the option names its user typed. */
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--every-ms", defaultValue = "20", description = "Evaluation grid step, ms, > 0 (default ${DEFAULT-VALUE}).")
    long everyMillis;

    @Option(names = "--rest-ms", defaultValue = "100",
            description = "An instant with no sample for longer than this is 'at rest', ms, >= 0 (default ${DEFAULT-VALUE}).")
    long restMillis;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write DIR/forecast.csv.")
    Path out;

    @Option(names = "--model", description = "Kalman motion model: constant_velocity or constant_acceleration (default: the library's).")
    KalmanPredictor.Model model;

    @Option(names = "--kalman-q", description = "Kalman process noise q, px^2/s^3 (velocity model) or px^2/s^5 (default: the library's).")
    Double kalmanQ;

    @Option(names = "--measurement-noise", description = "Measurement noise variance per coordinate, px^2 (default: the library's).")
    Double measurementNoise;

    @Option(names = {"--velocity-decay-ms", "--kalman-decay-ms"},
            description = "Velocity decay time constant, ms; 0 for none (default: the library's).")
    Double velocityDecayMillis;

    @Option(names = "--along-track", paramLabel = "K",
            description = "Spread along the predicted displacement, a share of its length; 0 for none (default: the library's).")
    Double alongTrack;

    @Option(names = "--idle-ms", description = "No movement for longer than this: the predictor holds the pointer still, ms (default: the library's).")
    Long idleMillis;

    @Option(names = "--reset-after-ms", description = "A gap between events longer than this restarts the filter, ms (default: the library's).")
    Long resetAfterMillis;

    @Option(names = "--initial-velocity-sigma", description = "Standard deviation of the initial velocity, px/s (default: the library's).")
    Double initialVelocitySigma;

    @Option(names = "--initial-acceleration-sigma",
            description = "Standard deviation of the initial acceleration, px/s^2, acceleration model (default: the library's).")
    Double initialAccelerationSigma;

    @Option(names = "--horizons", split = ",", description = "Forecast horizons, ms, comma-separated, increasing (default: the library's).")
    long[] horizons;

    @Option(names = "--mosaic", paramLabel = "ROWSxCOLS",
            description = "Requests the server predictor's distribution covers: thumbnails over the trace's screen, "
                    + "as in simulate (default ${DEFAULT-VALUE}, the simulator's).")
    String mosaic = GridScoring.DEFAULT.mosaic().rows() + "x"
            + GridScoring.DEFAULT.mosaic().cols();

    @Option(names = "--sigma-scale",
            description = "Scale of the forecast's standard deviations, GaussianGridPredictor.Builder.sigmaScale, "
                    + "in (0, 4] (default ${DEFAULT-VALUE}, the library's).")
    String sigmaScale = String.valueOf(GridScoring.DEFAULT.sigmaScale());

    @Override
    public Integer call() {
        ForecastCalibration.checkGrid(everyMillis, restMillis);
        // Built once before loading traces so a bad predictor or grid option fails fast.
        String predictor = predictor().toString();
        GridScoring scoring = scoring();
        List<PointerTrace> loaded = traceOptions.load();
        List<TraceCalibration> results = new ArrayList<>();
        for (PointerTrace t : loaded) {
            results.add(ForecastCalibration.evaluate(t, Forecaster.of(predictor()), everyMillis, restMillis, scoring));
        }
        System.out.println(predictor + ", grid every " + everyMillis + " ms, at rest after " + restMillis + " ms; "
                + "server predictor: GaussianGridPredictor defaults, sigmaScale " + scoring.sigmaScale() + ", over a "
                + scoring.mosaic().rows() + "x" + scoring.mosaic().cols() + " mosaic of the trace's screen\n");
        System.out.print(CalibrationReport.markdown(results));
        if (out != null) {
            Path file = out.resolve("forecast.csv");
            write(file, CalibrationReport.csv(results));
            System.err.println("wrote " + file);
        }
        return 0;
    }

    /**
     * A fresh predictor as the options describe it: the one place that maps options to
     * {@link KalmanPredictor.Builder} setters. An option left unset keeps the builder's default.
     *
     * @throws IllegalArgumentException from the builder, re-worded to name the option, for a bad value
     */
    KalmanPredictor predictor() {
        try {
            return build();
        } catch (IllegalArgumentException e) {
            throw dev.khameleon.simulator.FlagNames.reword(e, java.util.Map.of("processNoise", "--kalman-q",
                    "measurementNoise", "--measurement-noise",
                    "velocityDecayMillis", dev.khameleon.simulator.FlagNames.typed(spec, "--velocity-decay-ms"),
                    "idleMillis", "--idle-ms", "resetAfterMillis", "--reset-after-ms",
                    "initialVelocitySigma", "--initial-velocity-sigma",
                    "initialAccelerationSigma", "--initial-acceleration-sigma", "horizons", "--horizons",
                    "alongTrackSpread", "--along-track"));
        }
    }

    private KalmanPredictor build() {
        KalmanPredictor.Builder b = KalmanPredictor.builder();
        Optional.ofNullable(model).ifPresent(b::model);
        Optional.ofNullable(kalmanQ).ifPresent(b::processNoise);
        Optional.ofNullable(measurementNoise).ifPresent(b::measurementNoise);
        Optional.ofNullable(velocityDecayMillis).ifPresent(b::velocityDecayMillis);
        Optional.ofNullable(alongTrack).ifPresent(b::alongTrackSpread);
        Optional.ofNullable(idleMillis).ifPresent(b::idleMillis);
        Optional.ofNullable(resetAfterMillis).ifPresent(b::resetAfterMillis);
        Optional.ofNullable(initialVelocitySigma).ifPresent(b::initialVelocitySigma);
        Optional.ofNullable(initialAccelerationSigma).ifPresent(b::initialAccelerationSigma);
        Optional.ofNullable(horizons).ifPresent(b::horizons);
        return b.build();
    }

    /**
     * The mosaic and server-predictor scale the options name.
     *
     * @throws IllegalArgumentException naming {@code --mosaic} or {@code --sigma-scale} for a bad value
     */
    GridScoring scoring() {
        return GridScoring.parse(mosaic, sigmaScale);
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
