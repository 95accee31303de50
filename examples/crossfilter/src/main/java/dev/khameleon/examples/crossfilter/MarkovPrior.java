package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A view-transition prior: the probability that the next active view is B given that the
 * current one is A, counted over the view switches of recorded sessions with add-one smoothing;
 * and the probability that a session's first active view is B, counted over the sessions' first
 * events with the same smoothing. Immutable.
 */
final class MarkovPrior {
    private final long[][] counts;
    private final long[] firstCounts;

    private MarkovPrior(long[][] counts, long[] firstCounts) {
        this.counts = counts;
        this.firstCounts = firstCounts;
    }

    /** Learns from every session except {@code exclude} (leave-one-out; null to use all). */
    static MarkovPrior learn(List<Workflow> workflows, Workflow exclude) {
        int n = View.values().length;
        long[][] counts = new long[n][n];
        long[] firstCounts = new long[n];
        for (Workflow w : workflows) {
            if (w == exclude) {
                continue;
            }
            if (!w.events().isEmpty()) {
                firstCounts[w.events().get(0).view().ordinal()]++;
            }
            for (int i = 1; i < w.events().size(); i++) {
                if (w.isViewSwitch(i)) {
                    counts[w.events().get(i - 1).view().ordinal()][w.events().get(i).view().ordinal()]++;
                }
            }
        }
        return new MarkovPrior(counts, firstCounts);
    }

    /**
     * {@code P(first active view = v)}, add-one smoothed, indexed by view ordinal: what a session
     * is likely to brush first, before it has an active view.
     */
    double[] first() {
        double total = View.values().length;
        for (long c : firstCounts) {
            total += c;
        }
        double[] p = new double[View.values().length];
        for (int v = 0; v < p.length; v++) {
            p[v] = (firstCounts[v] + 1.0) / total;
        }
        return p;
    }

    /** {@code P(next = to | current = from)} for {@code to != from}, add-one smoothed. */
    double probability(View from, View to) {
        if (from == to) {
            return 0;
        }
        long total = 0;
        for (View v : View.values()) {
            if (v != from) {
                total += counts[from.ordinal()][v.ordinal()];
            }
        }
        return (counts[from.ordinal()][to.ordinal()] + 1.0) / (total + View.values().length - 1);
    }

    /** The {@code k} most likely next views after {@code from}, most likely first (ties in view order). */
    List<View> likelyNext(View from, int k) {
        List<View> others = new ArrayList<>(Tile.passives(from));
        others.sort(Comparator.comparingDouble((View v) -> -probability(from, v)).thenComparing(View::ordinal));
        return List.copyOf(others.subList(0, Math.min(k, others.size())));
    }
}
