package dev.khameleon.simulator.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.tool.Cli;
import dev.khameleon.simulator.GridSize;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.testing.SharedData;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.core.PointerEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

class ForecastCommandTest {

    /** Runs the bench CLI and returns {exit status, stdout, stderr}. */
    private static Object[] run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            int status = Cli.run(args);
            return new Object[] {status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8)};
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    private static void assertOneLineUsageError(String expected, String... args) {
        Object[] r = run(args);
        String err = (String) r[2];
        assertEquals(2, r[0], err);
        assertEquals("khameleon-simulator forecast: " + expected, err.strip());
        assertEquals(1, err.strip().lines().count(), err);
    }

    @Test
    void missingTraceFile_isOneLineErrorWithUsageStatus(@TempDir Path dir) {
        Path missing = dir.resolve("missing.gz");
        assertOneLineUsageError("trace file not found: " + missing.toAbsolutePath(), "forecast", "--trace",
                missing.toString());
    }

    @Test
    void badGridOrPredictorOption_isRejectedBeforeAnyTraceIsRead(@TempDir Path dir) {
        String missing = dir.resolve("missing.gz").toString();
        assertOneLineUsageError("--every-ms must be > 0, was 0", "forecast", "--trace", missing, "--every-ms", "0");
        assertOneLineUsageError("--rest-ms must be >= 0, was -5", "forecast", "--trace", missing, "--rest-ms", "-5");
        assertOneLineUsageError("--measurement-noise must be finite and > 0, was -1.0", "forecast", "--trace", missing,
                "--measurement-noise", "-1");
        assertOneLineUsageError("--horizons must be >= 0 and strictly increasing, was [150, 50]", "forecast",
                "--trace", missing, "--horizons", "150,50");
    }

    @Test
    void badMosaicOrSigmaScale_isOneLineNamingTheOptionBeforeAnyTraceIsRead(@TempDir Path dir) {
        String missing = dir.resolve("missing.gz").toString();
        assertOneLineUsageError("--mosaic 0x5: a grid needs 1 to 100000000 cells of at least 1 row and 1 column, was 0x5",
                "forecast", "--trace", missing, "--mosaic", "0x5");
        assertOneLineUsageError("--mosaic '100' is not ROWSxCOLS such as 100x100", "forecast", "--trace", missing,
                "--mosaic", "100");
        assertOneLineUsageError("--sigma-scale 0: sigmaScale must be in (0, 4], was 0.0", "forecast", "--trace",
                missing, "--sigma-scale", "0");
        assertOneLineUsageError("--sigma-scale 4.5: sigmaScale must be in (0, 4], was 4.5", "forecast", "--trace",
                missing, "--sigma-scale", "4.5");
        assertOneLineUsageError("--sigma-scale NaN: sigmaScale must be in (0, 4], was NaN", "forecast", "--trace",
                missing, "--sigma-scale", "NaN");
        assertOneLineUsageError("--sigma-scale 'wide' is not a number", "forecast", "--trace", missing,
                "--sigma-scale", "wide");
    }

    @Test
    void scoring_defaultsToTheSimulatorsMosaicAndTheLibrarysSigmaScale_andFollowsTheOptions() {
        ForecastCommand cmd = new ForecastCommand();
        new CommandLine(cmd).parseArgs("--trace", "t.gz");
        assertEquals(new ForecastCalibration.GridScoring(new GridSize(100, 100),
                GaussianGridPredictor.DEFAULT_SIGMA_SCALE), cmd.scoring());
        SimConfig sim = SimConfig.builder().build();
        assertEquals(new GridSize(sim.mosaicRows(), sim.mosaicCols()), cmd.scoring().mosaic());
        cmd = new ForecastCommand();
        new CommandLine(cmd).parseArgs("--trace", "t.gz", "--mosaic", "20x30", "--sigma-scale", "1.5");
        assertEquals(new ForecastCalibration.GridScoring(new GridSize(20, 30), 1.5), cmd.scoring());
    }

    /** The state after a short stroke, then after a pause: exercises every builder setting. */
    private static String behaviour(KalmanPredictor k) {
        k.onEvent(new PointerEvent(0, 0, 0));
        k.onEvent(new PointerEvent(10, 0, 16));
        k.onEvent(new PointerEvent(25, 5, 32));
        return k.state(40) + " " + k.state(100);
    }

    static Stream<Arguments> options() {
        return Stream.of(
                Arguments.of(List.of("--model", "CONSTANT_ACCELERATION"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.model(KalmanPredictor.Model.CONSTANT_ACCELERATION)),
                Arguments.of(List.of("--kalman-q", "1e5"), (UnaryOperator<KalmanPredictor.Builder>) b -> b.processNoise(1e5)),
                Arguments.of(List.of("--measurement-noise", "100"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.measurementNoise(100)),
                Arguments.of(List.of("--velocity-decay-ms", "0"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.velocityDecayMillis(0)),
                // simulate's name for the same setting, so one calibration command line works in both
                Arguments.of(List.of("--kalman-decay-ms", "0"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.velocityDecayMillis(0)),
                Arguments.of(List.of("--idle-ms", "5"), (UnaryOperator<KalmanPredictor.Builder>) b -> b.idleMillis(5)),
                Arguments.of(List.of("--reset-after-ms", "10"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.resetAfterMillis(10)),
                Arguments.of(List.of("--initial-velocity-sigma", "10"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.initialVelocitySigma(10)),
                Arguments.of(List.of("--model", "CONSTANT_ACCELERATION", "--initial-acceleration-sigma", "10"),
                        (UnaryOperator<KalmanPredictor.Builder>) b -> b.model(KalmanPredictor.Model.CONSTANT_ACCELERATION)
                                .initialAccelerationSigma(10)),
                Arguments.of(List.of("--horizons", "20,40"), (UnaryOperator<KalmanPredictor.Builder>) b -> b.horizons(20, 40)));
    }

    @ParameterizedTest
    @MethodSource("options")
    void predictorOption_setsTheBuilderSettingOfTheSameName(List<String> options,
                                                            UnaryOperator<KalmanPredictor.Builder> expected) {
        ForecastCommand cmd = new ForecastCommand();
        new CommandLine(cmd).parseArgs(Stream.concat(Stream.of("--trace", "t.gz"), options.stream())
                .toArray(String[]::new));
        String got = behaviour(cmd.predictor());
        assertEquals(behaviour(expected.apply(KalmanPredictor.builder()).build()), got);
        assertNotEquals(behaviour(KalmanPredictor.create()), got, "the option must change something");
    }

    @Test
    void predictor_withNoOptions_isTheLibraryDefault() {
        ForecastCommand cmd = new ForecastCommand();
        new CommandLine(cmd).parseArgs("--trace", "t.gz");
        assertEquals(behaviour(KalmanPredictor.create()), behaviour(cmd.predictor()));
        assertEquals(KalmanPredictor.create().toString(), cmd.predictor().toString());
    }

    @Test
    void realBalabitSegment_givesCountsAndOrderedCoveragesPerHorizon(@TempDir Path dir) throws IOException {
        Path session = SharedData.require("pointer/balabit/user7/session_0041905381.gz");
        Object[] r = run("forecast", "--trace", session + "#0", "--segment-s", "60", "--out", dir.toString());
        assertEquals(0, r[0], (String) r[2]);
        String table = (String) r[1];
        assertTrue(table.contains("| user7/session_0041905381#0 |"), table);
        assertTrue(table.contains("| 39.3 / 86.5 |"), table);

        List<String> csv = Files.readAllLines(dir.resolve("forecast.csv"));
        assertEquals(CalibrationReport.CSV_HEADER, csv.get(0));
        // One kind: 3 states × 4 horizons for "all", the same for the one trace.
        assertEquals(1 + 2 * 12, csv.size());
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",");
            assertTrue(f[1].equals("60hz") || f[1].equals("coalesced"), line);
            int n = Integer.parseInt(f[4]);
            assertTrue(n > 0, line);
            double median = Double.parseDouble(f[5]);
            double p90 = Double.parseDouble(f[6]);
            double c1 = Double.parseDouble(f[8]);
            double c2 = Double.parseDouble(f[9]);
            assertTrue(median >= 0 && median <= p90, line);
            assertTrue(Double.parseDouble(f[7]) > 0, "sigma > 0: " + line);
            assertTrue(c1 >= 0 && c1 <= c2 && c2 <= 1, line);
            double meanMass = Double.parseDouble(f[12]);
            double medianMass = Double.parseDouble(f[13]);
            double logLik = Double.parseDouble(f[14]);
            double explicit = Double.parseDouble(f[15]);
            assertTrue(meanMass > 0 && meanMass <= 1 && medianMass >= 0 && medianMass <= 1, line);
            assertTrue(logLik >= Math.log(ForecastCalibration.MIN_MASS) && logLik <= 0, line);
            // Jensen: the mean of the logarithms is at most the logarithm of the mean.
            assertTrue(logLik <= Math.log(meanMass) + 1e-3, line);
            assertTrue(explicit >= 0 && explicit <= 1, line);
            assertEquals(1e-4, Double.parseDouble(f[16]), 1e-12, line);
        }
        for (int j = 0; j < 4; j++) {
            int all = Integer.parseInt(csv.get(1 + j).split(",")[4]);
            int moving = Integer.parseInt(csv.get(5 + j).split(",")[4]);
            int atRest = Integer.parseInt(csv.get(9 + j).split(",")[4]);
            assertEquals(all, moving + atRest, "moving + at rest = all");
        }
    }
}
