package dev.khameleon.loadtest.server;

import dev.khameleon.core.Rect;
import dev.khameleon.core.predict.GaussianAtHorizon;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.predict.PointerForecast;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.spi.ServerPredictor;

import java.util.ArrayList;
import java.util.List;

/**
 * What the load application's sessions ask for: its request count, the predictor that decodes their
 * states, and the state a healthy session sends to ask for one request.
 *
 * <p>{@link #point} is the tools' original workload: {@link LoadApp#N} requests and
 * {@code {"request": k}} states. {@link #grid} is a square grid of {@code side × side} cells of
 * {@value #CELL_PX} px under the library's {@link GaussianGridPredictor} without its heavy tail: a
 * healthy state is a Gaussian forecast a tenth of a cell wide at the cell's centre, all its mass on
 * that cell, and a {@link #wideState wide} one covers much of the grid, the costliest state to
 * decode and plan.
 */
final class LoadWorkload {
    /** A grid cell's side, in pixels. */
    static final double CELL_PX = 10;
    /** The wide forecast's standard deviation, as a share of the grid's side. */
    static final double WIDE_SIGMA_SHARE = 0.3;

    private final int requests;
    private final ServerPredictor predictor;
    /** Null for the point workload. */
    private final GridLayout grid;

    private LoadWorkload(int requests, ServerPredictor predictor, GridLayout grid) {
        this.requests = requests;
        this.predictor = predictor;
        this.grid = grid;
    }

    /** {@link LoadApp#N} requests under the point predictor: each state names one request. */
    static LoadWorkload point() {
        return new LoadWorkload(LoadApp.N, ServerPredictor.point(LoadApp.N, LoadApp.HORIZONS), null);
    }

    /**
     * A {@code side × side} grid under the Gaussian grid predictor.
     *
     * @throws IllegalArgumentException if {@code side} is outside [2, 10,000]
     */
    static LoadWorkload grid(int side) {
        if (side < 2 || side > 10_000) {
            throw new IllegalArgumentException("grid side " + side + " is outside [2, 10000]");
        }
        GridLayout g = new GridLayout(side, side, 0, 0, CELL_PX, CELL_PX);
        // No heavy tail: a healthy state then puts all its mass on its cell, as the point workload's
        // does, so the first block a state brings is the one its client times.
        ServerPredictor predictor = GaussianGridPredictor.builder(g).horizons(LoadApp.HORIZONS)
                .tail(0, GaussianGridPredictor.DEFAULT_TAIL_WIDEN, GaussianGridPredictor.DEFAULT_TAIL_MIN_SIGMA).build();
        return new LoadWorkload(side * side, predictor, g);
    }

    /** The requests of the application. */
    int requests() {
        return requests;
    }

    /** Decodes the sessions' states. */
    ServerPredictor predictor() {
        return predictor;
    }

    /** Whether states are Gaussian forecasts over a grid (else point states). */
    boolean isGrid() {
        return grid != null;
    }

    /** The state (the {@code state} member's JSON) that puts nearly all mass on {@code request}. */
    String pointState(int request) {
        if (grid == null) {
            return "{\"request\":" + request + "}";
        }
        return forecast(grid.bounds(request), CELL_PX * CELL_PX / 100);
    }

    /**
     * A forecast centred near cell {@code seed} (so that successive states differ) with a standard
     * deviation of {@value #WIDE_SIGMA_SHARE} of the grid's side: the most work a state can ask of
     * the server, since the predictor integrates every cell over its threshold.
     *
     * @throws IllegalStateException for the point workload, whose states name one request
     */
    String wideState(long seed) {
        if (grid == null) {
            throw new IllegalStateException("wide forecasts need a grid workload");
        }
        int cell = (int) Math.floorMod(seed * 7919, (long) requests);
        double sigma = WIDE_SIGMA_SHARE * grid.cols() * CELL_PX;
        return forecast(grid.bounds(cell), sigma * sigma);
    }

    /** A forecast centred on {@code cell}'s centre, with {@code variance} on both axes at every horizon. */
    private static String forecast(Rect cell, double variance) {
        double x = cell.centerX();
        double y = cell.centerY();
        List<GaussianAtHorizon> hs = new ArrayList<>();
        for (long h : LoadApp.HORIZONS) {
            hs.add(new GaussianAtHorizon(h, x, y, variance, 0, variance));
        }
        return new PointerForecast(x, y, hs).toJson().toString();
    }
}
