package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.UtilityFunction;

/**
 * Exact, brute-force facts about one batch of the greedy rule on a tiny instance, computed
 * independently of both schedulers: the tail probabilities {@code P_{i,t}} straight from
 * {@link Distribution#probabilityAt}, faded to uniform past the last horizon, and the trapezoid
 * rule cut to the planning horizon, and, by enumerating every possible schedule with its probability, each slot's exact
 * allocation distribution.
 */
final class ExactGreedy {
    final int cache;
    final int[] counts;
    final double[][] gains;
    final double discount;
    /** {@code tail[t][i]}: {@code P_{i,t}}, discounted relative to slot {@code t}. */
    final double[][] tail;

    /**
     * @param switchAt the batch position from which {@code second} replaces {@code first}
     *                 (the second's time origin is that slot); {@code cache} for no switch
     */
    ExactGreedy(int cache, int[] counts, UtilityFunction utility, double discount, double horizonMillis,
                double fadeMillis, Distribution first, Distribution second, int switchAt, double slotMillis) {
        this.cache = cache;
        this.counts = counts.clone();
        this.discount = discount;
        this.gains = new double[counts.length][];
        for (int i = 0; i < counts.length; i++) {
            gains[i] = utility.marginalGains(counts[i]);
        }
        int n = counts.length;
        double[][] a = OptimalScheduler.tails(cache, n, discount, horizonMillis, fadeMillis, first, 0, slotMillis);
        double[][] b = second == null ? a
                : OptimalScheduler.tails(cache, n, discount, horizonMillis, fadeMillis, second, switchAt, slotMillis);
        this.tail = new double[cache + 1][];
        for (int t = 0; t <= cache; t++) {
            tail[t] = t < switchAt ? a[t] : b[t];
        }
    }

    /** {@code marginals[t][i]}: the exact probability that slot {@code t} goes to request {@code i}. */
    double[][] marginals() {
        double[][] out = new double[cache][counts.length];
        enumerate(0, new int[counts.length], 1.0, out);
        return out;
    }

    private void enumerate(int t, int[] b, double prob, double[][] marginals) {
        if (t == cache) {
            return;
        }
        int n = counts.length;
        double total = 0;
        double[] u = new double[n];
        for (int i = 0; i < n; i++) {
            u[i] = tail[t][i] * gains[i][b[i]];
            total += u[i];
        }
        if (total <= 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            if (u[i] > 0) {
                double q = prob * u[i] / total;
                marginals[t][i] += q;
                b[i]++;
                enumerate(t + 1, b, q, marginals);
                b[i]--;
            }
        }
    }
}
