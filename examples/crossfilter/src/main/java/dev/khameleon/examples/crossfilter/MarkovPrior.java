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
    private final Views views;
    private final long[][] counts;
    private final long[] firstCounts;

    private MarkovPrior(Views views, long[][] counts, long[] firstCounts) {
        this.views = views;
        this.counts = counts;
        this.firstCounts = firstCounts;
    }

    /** Learns over {@code views} from every session except {@code exclude} (leave-one-out; null to use all). */
    static MarkovPrior learn(Views views, List<Workflow> workflows, Workflow exclude) {
        int n = views.size();
        long[][] counts = new long[n][n];
        long[] firstCounts = new long[n];
        for (Workflow w : workflows) {
            if (w == exclude) {
                continue;
            }
            if (!w.events().isEmpty()) {
                firstCounts[w.events().get(0).view().index()]++;
            }
            for (int i = 1; i < w.events().size(); i++) {
                if (w.isViewSwitch(i)) {
                    counts[w.events().get(i - 1).view().index()][w.events().get(i).view().index()]++;
                }
            }
        }
        return new MarkovPrior(views, counts, firstCounts);
    }

    /** The views this prior is over. */
    Views views() {
        return views;
    }

    /**
     * {@code P(first active view = v)}, add-one smoothed, indexed by view index: what a session
     * is likely to brush first, before it has an active view.
     */
    double[] first() {
        double total = views.size();
        for (long c : firstCounts) {
            total += c;
        }
        double[] p = new double[views.size()];
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
        for (View v : views) {
            if (v != from) {
                total += counts[from.index()][v.index()];
            }
        }
        return (counts[from.index()][to.index()] + 1.0) / (total + views.size() - 1);
    }

    /** The {@code k} most likely next views after {@code from}, most likely first (ties in view order). */
    List<View> likelyNext(View from, int k) {
        List<View> others = new ArrayList<>(Tile.passives(from));
        others.sort(Comparator.comparingDouble((View v) -> -probability(from, v)).thenComparing(View::index));
        return List.copyOf(others.subList(0, Math.min(k, others.size())));
    }
}
