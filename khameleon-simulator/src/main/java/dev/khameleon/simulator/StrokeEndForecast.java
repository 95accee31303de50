package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The forecast of a {@code stroke-end-oracle-W-E-S} system: during the last {@code W} ms of each
 * stroke (see {@link Strokes}), where that stroke stops, read from the trace — exactly (the cell
 * itself, {@code E = 0}) or as a forecast {@code E} px off: the stop point moved by a random offset,
 * x and y each normal with standard deviation {@code E}, drawn once per stroke, and spread as an
 * isotropic Gaussian of standard deviation {@code E} over the grid's cells. {@code S} percent of the
 * mass goes to it, the rest to the library's own forecast. It measures how accurate, and how early,
 * a forecast of where a stroke ends must be to pay.
 *
 * <p>Deterministic for a given seed. Single-threaded.
 */
final class StrokeEndForecast {
    /** Gaussian weights below this share of the peak are left out (beyond about 4.3 standard deviations). */
    private static final double NEGLIGIBLE = 1e-4;

    private final PointerTrace trace;
    private final GridLayout layout;
    private final Strokes strokes;
    private final double windowMillis;
    private final double errorPx;
    private final double share;
    private final long seed;

    /**
     * @param windowMillis W, ms, positive
     * @param errorPx E, px, 0 or more
     * @param share S as a fraction in (0, 1]
     * @param seed the offsets' seed
     */
    StrokeEndForecast(PointerTrace trace, GridLayout layout, double windowMillis, double errorPx, double share,
            long seed) {
        if (!(windowMillis > 0) || !(errorPx >= 0) || !(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("window " + windowMillis + " ms, error " + errorPx + " px, share "
                    + share + ": need a positive window, an error >= 0 and a share in (0, 1]");
        }
        this.trace = trace;
        this.layout = layout;
        this.strokes = Strokes.of(trace, Strokes.restGapMillis(trace));
        this.windowMillis = windowMillis;
        this.errorPx = errorPx;
        this.share = share;
        this.seed = seed;
    }

    /** The share of the mass on the stroke's end, in (0, 1]. */
    double share() {
        return share;
    }

    /**
     * Where the current stroke ends, at {@code tMillis} after the trace's start, or {@code null}
     * outside the last {@code W} ms of every stroke.
     */
    Distribution endAt(double tMillis, long[] horizons) {
        int k = strokes.lastStartedBy(tMillis);
        if (k < 0 || tMillis > strokes.endMillis(k) || strokes.endMillis(k) - tMillis > windowMillis) {
            return null;
        }
        int end = strokes.endIndex(k);
        int n = layout.requestCount();
        if (errorPx == 0) {
            int cell = layout.requestAt(trace.x(end), trace.y(end));
            return cell >= 0 ? Distribution.point(n, cell, horizons) : Distribution.uniform(n, horizons);
        }
        // One offset per stroke, the same at every state of it: a forecast's error persists.
        SplittableRandom r = new SplittableRandom(seed ^ (k * 0x9E3779B97F4A7C15L));
        double cx = trace.x(end) + r.nextGaussian() * errorPx;
        double cy = trace.y(end) + r.nextGaussian() * errorPx;
        return gaussianOverCells(cx, cy, errorPx, horizons);
    }

    /** {@code share} of {@code end} plus the rest of {@code library}, horizon by horizon (same horizons). */
    static Distribution mix(Distribution end, Distribution library, double share) {
        if (end.horizonCount() != library.horizonCount()) {
            throw new IllegalArgumentException("horizons differ: " + end.horizonCount() + " and "
                    + library.horizonCount());
        }
        Distribution.Builder b = Distribution.builder(end.requestCount(), end.horizonsMillis());
        for (int j = 0; j < end.horizonCount(); j++) {
            Map<Integer, Double> mass = new HashMap<>();
            for (int i = 0; i < end.explicitCount(j); i++) {
                mass.merge(end.explicitId(j, i), share * end.explicitProbability(j, i), Double::sum);
            }
            for (int i = 0; i < library.explicitCount(j); i++) {
                mass.merge(library.explicitId(j, i), (1 - share) * library.explicitProbability(j, i), Double::sum);
            }
            int horizon = j;
            mass.forEach((id, p) -> b.explicit(horizon, id, p));
            b.residual(j, share * end.residualMass(j) + (1 - share) * library.residualMass(j));
        }
        return b.build();
    }

    private Distribution gaussianOverCells(double cx, double cy, double sigma, long[] horizons) {
        int c0 = index(cx - 5 * sigma, layout.originX(), layout.cellWidth(), layout.cols());
        int c1 = index(cx + 5 * sigma, layout.originX(), layout.cellWidth(), layout.cols());
        int r0 = index(cy - 5 * sigma, layout.originY(), layout.cellHeight(), layout.rows());
        int r1 = index(cy + 5 * sigma, layout.originY(), layout.cellHeight(), layout.rows());
        int cells = (r1 - r0 + 1) * (c1 - c0 + 1);
        int[] ids = new int[cells];
        double[] weights = new double[cells];
        int m = 0;
        double total = 0;
        for (int r = r0; r <= r1; r++) {
            double dy = layout.originY() + (r + 0.5) * layout.cellHeight() - cy;
            for (int c = c0; c <= c1; c++) {
                double dx = layout.originX() + (c + 0.5) * layout.cellWidth() - cx;
                double w = Math.exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
                if (w > NEGLIGIBLE) {
                    ids[m] = r * layout.cols() + c;
                    weights[m++] = w;
                    total += w;
                }
            }
        }
        int n = layout.requestCount();
        if (m == 0) {
            // The offset put the forecast far off the grid: the nearest cell stands for it.
            return Distribution.point(n, r0 * layout.cols() + c0, horizons);
        }
        Distribution.Builder b = Distribution.builder(n, horizons);
        for (int j = 0; j < horizons.length; j++) {
            for (int i = 0; i < m; i++) {
                b.explicit(j, ids[i], weights[i] / total);
            }
        }
        return b.build();
    }

    /** The row or column holding {@code v}, clamped to the grid. */
    private static int index(double v, double origin, double size, int count) {
        return (int) Math.max(0, Math.min(count - 1, Math.floor((v - origin) / size)));
    }
}
