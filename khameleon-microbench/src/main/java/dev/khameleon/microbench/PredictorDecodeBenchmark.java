package dev.khameleon.microbench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the server pays, on a scheduler thread, to decode one client state with the built-in
 * {@link GaussianGridPredictor} (library defaults: the heavy tail, four horizons): the first half
 * of every re-plan, and with {@code stateInterval} what bounds a session's share of a scheduler
 * thread. Grids of {@code rows × cols} cells over a 1920 × 1080 screen; states:
 * {@code resting} (a pointer at rest for 5 s: σ 2 px, no tail), {@code moving} (mid-stroke at
 * 1,000 px/s: σ 3, 6, 9 and 15 px at 50, 150, 250 and 500 ms, the tail on), {@code wide} (σ 300 px
 * and correlation 0.99 at every horizon, the tail on: a valid but useless state; the predictor's
 * threshold leaves its many small cells to the uniform residual, which bounds the work).
 *
 * <p>Run:
 * <pre>
 * mvn -B -q package -pl khameleon-microbench -am -DskipTests
 * java -jar khameleon-microbench/target/benchmarks.jar PredictorDecodeBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
public class PredictorDecodeBenchmark extends MicroBenchmark {
    private static final double SCREEN_WIDTH = 1920;
    private static final double SCREEN_HEIGHT = 1080;

    @Param({"30x40", "100x100", "1000x1000"})
    public String grid;

    @Param({"resting", "moving", "wide"})
    public String state;

    private GaussianGridPredictor predictor;
    private JsonNode json;

    @Setup(Level.Trial)
    public void setUp() {
        String[] rowsCols = grid.split("x", -1);
        if (rowsCols.length != 2) {
            throw new IllegalArgumentException("grid '" + grid + "' is not ROWSxCOLS such as 100x100");
        }
        int rows = Integer.parseInt(rowsCols[0]);
        int cols = Integer.parseInt(rowsCols[1]);
        predictor = GaussianGridPredictor.builder(new GridLayout(rows, cols, 0, 0,
                SCREEN_WIDTH / cols, SCREEN_HEIGHT / rows)).build();
        json = state(state);
    }

    /** The state as a {@code KalmanPredictor} would send it, near the middle of the screen (inside a cell). */
    static JsonNode state(String kind) {
        double x = 970;
        double y = 550;
        double[] sigmas;
        double rho;
        double speed;
        long rest;
        switch (kind) {
            case "resting" -> { sigmas = new double[] {2, 2, 2, 2}; rho = 0; speed = 0; rest = 5_000; }
            case "moving" -> { sigmas = new double[] {3, 6, 9, 15}; rho = 0.3; speed = 1_000; rest = 0; }
            case "wide" -> { sigmas = new double[] {300, 300, 300, 300}; rho = 0.99; speed = 0; rest = 0; }
            default -> throw new IllegalArgumentException("unknown state kind " + kind);
        }
        long[] horizons = {50, 150, 250, 500};
        List<GaussianAtHorizon> forecast = new ArrayList<>();
        for (int j = 0; j < horizons.length; j++) {
            double v = sigmas[j] * sigmas[j];
            forecast.add(new GaussianAtHorizon(horizons[j], x + speed * horizons[j] / 1000.0 * 0.6, y, v, rho * v, v));
        }
        return new PointerForecast(x, y, forecast, rest).toJson();
    }

    /** One decode: the distribution a re-plan installs. */
    @Benchmark
    public Distribution decode() {
        return predictor.decode(json);
    }
}
