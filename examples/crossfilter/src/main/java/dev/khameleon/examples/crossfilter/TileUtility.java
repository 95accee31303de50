package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The measured utility of a prefix of a progressive tile: for each fraction {@code f} of a
 * tile's blocks, {@code 1 − mean TVD} between the histograms the prefix draws and the exact
 * ones, averaged over the passive views and over real brush states. {@code U(0) = 0} (no block,
 * no chart); {@code U(1) = 1} (all blocks are exact).
 *
 * <p>A tile's block count depends on its active view, so each state's curve is measured at
 * {@code k/N} for {@code k = 0..N} and read at the common fractions by linear interpolation.
 *
 * @param fractions the fractions of blocks, from 0 to 1
 * @param utilities the measured utility at each fraction
 * @param states    how many brush states were averaged
 */
public record TileUtility(double[] fractions, double[] utilities, int states) {

    /** The fractions measured by default: 0, 0.1, ..., 1. */
    public static double[] defaultFractions() {
        double[] f = new double[11];
        for (int i = 0; i < f.length; i++) {
            f[i] = i / 10.0;
        }
        return f;
    }

    /**
     * The default fractions and every {@code k/N} of {@code encoder}'s block counts {@code N}, so
     * that the utility of a prefix of whole blocks is measured, not interpolated.
     */
    public static double[] blockFractions(TileEncoder encoder) {
        TreeSet<Double> f = new TreeSet<>();
        for (double d : defaultFractions()) {
            f.add(d);
        }
        for (View v : encoder.views()) {
            int n = encoder.blockCount(v);
            for (int k = 0; k <= n; k++) {
                f.add((double) k / n);
            }
        }
        return f.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Measures the utility over {@code states}, with {@code tiles} giving the exact tile of each
     * state's key (called once per distinct key).
     *
     * @throws IllegalArgumentException if {@code states} is empty or the fractions do not start at 0
     *     and end at 1
     */
    public static TileUtility measure(List<BrushState> states, Function<TileKey, Tile> tiles, TileEncoder encoder,
            double[] fractions) {
        if (states.isEmpty()) {
            throw new IllegalArgumentException("no brush states to measure the utility over");
        }
        if (fractions.length < 2 || fractions[0] != 0 || fractions[fractions.length - 1] != 1) {
            throw new IllegalArgumentException("fractions must run from 0 to 1");
        }
        Map<TileKey, List<BrushState>> byKey = new LinkedHashMap<>();
        for (BrushState s : states) {
            byKey.computeIfAbsent(s.key(), k -> new java.util.ArrayList<>()).add(s);
        }
        double[] sums = new double[fractions.length];
        for (Map.Entry<TileKey, List<BrushState>> e : byKey.entrySet()) {
            Tile tile = tiles.apply(e.getKey());
            List<Block> blocks = encoder.encode(0, tile);
            int n = blocks.size();
            double[][] curve = new double[e.getValue().size()][n + 1]; // curve[s][0] = 0
            for (int k = 1; k <= n; k++) {
                DecodedTile d = TileDecoder.decode(encoder.views(), blocks.subList(0, k));
                for (int s = 0; s < curve.length; s++) {
                    BrushState st = e.getValue().get(s);
                    double tvd = 0;
                    for (View passive : Tile.passives(st.key().active())) {
                        tvd += HistogramDistance.tvd(tile.slice(passive).histogram(st.from(), st.to()),
                                d.histogram(passive, st.from(), st.to()));
                    }
                    curve[s][k] = 1 - tvd / (st.key().active().views().size() - 1);
                }
            }
            for (double[] c : curve) {
                for (int i = 0; i < fractions.length; i++) {
                    double x = fractions[i] * n;
                    int k0 = Math.min(n - 1, (int) Math.floor(x));
                    sums[i] += c[k0] + (c[k0 + 1] - c[k0]) * (x - k0);
                }
            }
        }
        double[] utilities = new double[fractions.length];
        for (int i = 0; i < fractions.length; i++) {
            utilities[i] = sums[i] / states.size();
        }
        return new TileUtility(fractions.clone(), utilities, states.size());
    }

    /**
     * The measurement as the scheduler's utility ({@link UtilityFunction#tabulated}: made
     * monotone and concave where the measurement is not).
     */
    public UtilityFunction function() {
        return UtilityFunction.tabulated(fractions, utilities);
    }
}
