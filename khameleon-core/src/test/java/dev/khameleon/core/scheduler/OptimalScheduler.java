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
 * use, computed straight from {@link Distribution#probabilityAt}. Cost grows like
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
        return tails(config.cacheBlocks(), config.requestCount(), config.discount(), d, 0, slotMillis);
    }

    /**
     * {@code P_{i,t}} for positions {@code origin..C} of a batch whose position {@code t} is at
     * {@code (t − origin) · slotMillis}; rows before {@code origin} stay zero.
     */
    static double[][] tails(int cache, int n, double gamma, Distribution d, int origin, double slotMillis) {
        double[][] p = new double[cache + 1][n];
        for (int i = 0; i < n; i++) {
            double next = d.probabilityAt((cache - origin) * slotMillis, i);
            for (int t = cache - 1; t >= origin; t--) {
                double here = d.probabilityAt((t - origin) * slotMillis, i);
                p[t][i] = 0.5 * (here + gamma * next) + gamma * p[t + 1][i];
                next = here;
            }
        }
        return p;
    }

    private record Pair(int request, int block) {
    }
}
