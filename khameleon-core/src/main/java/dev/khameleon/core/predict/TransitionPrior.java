package dev.khameleon.core.predict;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * A first-order Markov prior over the next request, learned from recorded sequences of request
 * ids (for example the views a crossfilter user brushed, in order): {@code apply(current)} is
 * the smoothed frequency of each request following {@code current} in the sequences, and
 * {@code apply(-1)} the smoothed frequency of each request overall. Smoothing adds
 * {@code smoothing} to every count, so a transition never seen keeps some probability.
 *
 * <p>Meant for {@link GaussianLayoutPredictor.Builder#prior}. Immutable and thread-safe; each
 * call returns a fresh array.
 */
public final class TransitionPrior implements IntFunction<double[]> {
    private final double[][] rows;
    private final double[] overall;

    private TransitionPrior(double[][] rows, double[] overall) {
        this.rows = rows;
        this.overall = overall;
    }

    /**
     * Learns the prior over {@code requestCount} requests from {@code sequences}.
     *
     * @throws IllegalArgumentException if {@code requestCount < 1}, {@code smoothing} is negative
     *     or not finite, or a sequence holds an id outside {@code [0, requestCount)}
     */
    public static TransitionPrior learn(int requestCount, Iterable<int[]> sequences, double smoothing) {
        if (requestCount < 1) {
            throw new IllegalArgumentException("requestCount must be >= 1, was " + requestCount);
        }
        if (!(smoothing >= 0) || Double.isInfinite(smoothing)) {
            throw new IllegalArgumentException("smoothing must be finite and >= 0, was " + smoothing);
        }
        double[][] counts = new double[requestCount][requestCount];
        double[] all = new double[requestCount];
        for (int[] seq : sequences) {
            for (int k = 0; k < seq.length; k++) {
                int id = seq[k];
                if (id < 0 || id >= requestCount) {
                    throw new IllegalArgumentException("request id " + id + " out of range [0, " + requestCount + ")");
                }
                all[id]++;
                if (k > 0) {
                    counts[seq[k - 1]][id]++;
                }
            }
        }
        for (double[] row : counts) {
            normalise(row, smoothing);
        }
        normalise(all, smoothing);
        return new TransitionPrior(counts, all);
    }

    private static void normalise(double[] row, double smoothing) {
        double sum = 0;
        for (int i = 0; i < row.length; i++) {
            row[i] += smoothing;
            sum += row[i];
        }
        if (sum == 0) {
            Arrays.fill(row, 1.0 / row.length);
            return;
        }
        for (int i = 0; i < row.length; i++) {
            row[i] /= sum;
        }
    }

    /**
     * The probability of each request following {@code current}, or of each request overall
     * when {@code current} is {@code -1} (or out of range: no request under the pointer).
     */
    @Override
    public double[] apply(int current) {
        return current >= 0 && current < rows.length ? rows[current].clone() : overall.clone();
    }

    /** The number of requests this prior covers. */
    public int requestCount() {
        return overall.length;
    }
}
