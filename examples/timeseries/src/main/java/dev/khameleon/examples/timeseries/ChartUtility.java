package dev.khameleon.examples.timeseries;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.List;

/**
 * The utility of a chart drawn from a prefix, measured on real windows: {@code 1 − e}, where
 * {@code e} is the prefix chart's mean absolute error against the full series divided by that of a
 * flat line at the series' mean (so 0 is "no better than knowing the mean", 1 the exact chart),
 * clamped to [0, 1] and averaged over windows.
 */
record ChartUtility(double[] fractions, double[] utilities) {

    /**
     * Measures the curve at every block count of the windows' encodings (all windows have the
     * same length, hence the same block count); windows whose series is flat carry no
     * information about the curve and are skipped.
     *
     * @throws IllegalArgumentException if the windows differ in length or none varies
     */
    static ChartUtility measure(List<int[]> windows, BucketSumEncoder encoder) {
        int blockCount = encoder.encode(0, windows.get(0)).size();
        double[] sum = new double[blockCount];
        int measured = 0;
        for (int[] series : windows) {
            List<Block> blocks = encoder.encode(0, series);
            if (blocks.size() != blockCount) {
                throw new IllegalArgumentException("windows must have the same length");
            }
            double mean = 0;
            for (int v : series) {
                mean += v / (double) series.length;
            }
            double flatError = 0;
            for (int v : series) {
                flatError += Math.abs(v - mean);
            }
            if (flatError == 0) {
                continue;
            }
            measured++;
            for (int k = 0; k < blockCount; k++) {
                double[] chart = BucketSumEncoder.decode(BucketSumEncoder.content(blocks.subList(0, k + 1)));
                double error = 0;
                for (int i = 0; i < series.length; i++) {
                    error += Math.abs(chart[i] - series[i]);
                }
                sum[k] += Math.max(0, 1 - error / flatError);
            }
        }
        if (measured == 0) {
            throw new IllegalArgumentException("no window varies: nothing to measure");
        }
        double[] fractions = new double[blockCount];
        double[] utilities = new double[blockCount];
        for (int k = 0; k < blockCount; k++) {
            fractions[k] = (k + 1) / (double) blockCount;
            utilities[k] = sum[k] / measured;
        }
        return new ChartUtility(fractions, utilities);
    }

    /** The curve for the scheduler ({@link UtilityFunction#tabulated}, which repairs flat stretches). */
    UtilityFunction toUtilityFunction() {
        return UtilityFunction.tabulated(fractions, utilities);
    }
}
