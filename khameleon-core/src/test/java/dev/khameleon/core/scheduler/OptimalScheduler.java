package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.jgrapht.Graph;
import org.jgrapht.alg.interfaces.MatchingAlgorithm;
import org.jgrapht.alg.matching.MaximumWeightBipartiteMatching;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

/**
 * The exact optimum of one batch (the paper's Eq. 2) for small instances, to measure the greedy
 * scheduler against (the paper's Figure 17 comparison).
 *
 * <p>With a concave utility the value of putting block {@code b} of request {@code i} in slot
 * {@code t} is {@code γ^t · g_i(b) · P_{i,t}}, independent of the other choices, so the batch
 * problem is a maximum-weight assignment of slots to (request, block) pairs, solved here with
 * JGraphT's bipartite matching. {@code P_{i,t}} is the same trapezoid-rule tail the schedulers
 * use, computed straight from {@link Distribution#probabilityAt}, faded to uniform past the
 * last horizon and cut to the planning horizon as the config says. Cost grows like
 * {@code (C + n·N)^3}: keep {@code C} and {@code n·N} in the tens.
 */
public final class OptimalScheduler {

    /** An optimal batch: the request of each slot ({@code -1} for an unused slot) and its value. */
    public record Solution(int[] schedule, double value) {
    }

    private OptimalScheduler() {
    }

    /**
     * Solves the batch that starts at slot 0 of {@code distribution}'s time origin.
     *
     * @param slotMillis the time of one slot; slot {@code t} is at {@code t · slotMillis}
     */
    public static Solution solve(SchedulerConfig config, Distribution distribution, double slotMillis) {
        int n = config.requestCount();
        int cache = config.cacheBlocks();
        double gamma = config.discount();
        double[][] tail = tails(config, distribution, slotMillis);
        Graph<Object, DefaultWeightedEdge> graph = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
        Set<Object> slots = new HashSet<>();
        Set<Object> pairs = new HashSet<>();
        for (int t = 0; t < cache; t++) {
            Integer slot = t;
            graph.addVertex(slot);
            slots.add(slot);
        }
        for (int i = 0; i < n; i++) {
            double[] g = config.classes().gainsOf(i);
            for (int b = 0; b < config.blockCount(i); b++) {
                Pair pair = new Pair(i, b);
                graph.addVertex(pair);
                pairs.add(pair);
                for (int t = 0; t < cache; t++) {
                    double w = Math.pow(gamma, t) * g[b] * tail[t][i];
                    if (w > 0) {
                        graph.setEdgeWeight(graph.addEdge(t, pair), w);
                    }
                }
            }
        }
        MatchingAlgorithm.Matching<Object, DefaultWeightedEdge> matching =
                new MaximumWeightBipartiteMatching<>(graph, slots, pairs).getMatching();
        int[] schedule = new int[cache];
        Arrays.fill(schedule, -1);
        for (DefaultWeightedEdge e : matching.getEdges()) {
            Object a = graph.getEdgeSource(e);
            Object b = graph.getEdgeTarget(e);
            int slot = (Integer) (a instanceof Integer ? a : b);
            Pair pair = (Pair) (a instanceof Pair ? a : b);
            schedule[slot] = pair.request;
        }
        return new Solution(schedule, value(config, tail, schedule));
    }

    /**
     * The value {@code Σ_t γ^t g_i(b) P_{i,t}} of a schedule, each request's blocks taken in
     * slot order (which, for concave utilities, is how an optimal assignment orders them).
     */
    public static double value(SchedulerConfig config, double[][] tail, int[] schedule) {
        int[] b = new int[config.requestCount()];
        double v = 0;
        for (int t = 0; t < schedule.length; t++) {
            int i = schedule[t];
            if (i >= 0) {
                v += Math.pow(config.discount(), t) * config.classes().gainsOf(i)[b[i]] * tail[t][i];
                b[i]++;
            }
        }
        return v;
    }

    /** {@code P_{i,t}} for {@code t = 0..C}, relative discount, as the schedulers compute it. */
    public static double[][] tails(SchedulerConfig config, Distribution d, double slotMillis) {
        return tails(config.cacheBlocks(), config.requestCount(), config.discount(), config.planningHorizonMillis(),
                config.forecastFadeMillis(), d, 0, slotMillis);
    }

    /**
     * {@code P_{i,t}} for positions {@code origin..C} of a batch whose position {@code t} is at
     * {@code (t − origin) · slotMillis}; rows before {@code origin} stay zero. Past the last
     * horizon the probability fades linearly to {@code 1/n} over {@code fadeMillis}; trapezoid
     * steps more than {@code horizonMillis} ahead of {@code t} count
     * {@link SchedulerConfig#BEYOND_HORIZON_WEIGHT} as much. Summed term by term, {@code O(n·C²)}.
     */
    static double[][] tails(int cache, int n, double gamma, double horizonMillis, double fadeMillis, Distribution d,
                            int origin, double slotMillis) {
        double horizonSteps = Math.max(1, Math.ceil(horizonMillis / slotMillis));
        double[][] p = new double[cache + 1][n];
        double[] step = new double[cache];
        for (int i = 0; i < n; i++) {
            for (int k = origin; k < cache; k++) {
                step[k] = 0.5 * (faded(d, fadeMillis, (k - origin) * slotMillis, i)
                        + gamma * faded(d, fadeMillis, (k + 1 - origin) * slotMillis, i));
            }
            for (int t = origin; t < cache; t++) {
                double sum = 0;
                for (int k = t; k < cache; k++) {
                    double weight = k - t < horizonSteps ? 1 : SchedulerConfig.BEYOND_HORIZON_WEIGHT;
                    sum += weight * Math.pow(gamma, k - t) * step[k];
                }
                p[t][i] = sum;
            }
        }
        return p;
    }

    /** The probability of {@code i} at {@code millis}, blended with {@code 1/n} past the last horizon. */
    static double faded(Distribution d, double fadeMillis, double millis, int i) {
        double past = millis - d.horizonMillis(d.horizonCount() - 1);
        double uniform = past <= 0 ? 0 : past >= fadeMillis ? 1 : past / fadeMillis;
        return (1 - uniform) * d.probabilityAt(millis, i) + uniform / d.requestCount();
    }

    private record Pair(int request, int block) {
    }
}
