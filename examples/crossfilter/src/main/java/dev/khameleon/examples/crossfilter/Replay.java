package dev.khameleon.examples.crossfilter;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Replays a recorded session against a backend that runs {@code servers} queries at once, each
 * taking a service time drawn from a measured distribution, and returns each brush event's
 * latency: the time from the event until the charts show its state or a newer one (an event
 * whose own answer was dropped as stale is served by the newer answer that replaced it).
 * Latencies are the backend's only: no network, no rendering.
 */
final class Replay {
    private Replay() {
    }

    /**
     * On-demand: each brush event queries the histogram of every passive view; when a new
     * event arrives, the queries of older events that have not started yet are dropped.
     */
    static double[] onDemand(Workflow w, int servers, DoubleSupplier queryMs) {
        List<BrushEvent> events = w.events();
        double[] freeAt = new double[servers];
        double[] done = new double[events.size()];
        Arrays.fill(done, Double.NaN);
        boolean[] dropped = new boolean[events.size()];
        Deque<Integer> queue = new ArrayDeque<>(); // event index per queued query
        for (int i = 0; i < events.size(); i++) {
            double t = events.get(i).timeMs();
            start(queue, freeAt, done, dropped, events, t, queryMs);
            while (!queue.isEmpty()) { // stale: a newer brush replaces them
                dropped[queue.poll()] = true;
            }
            for (int q = 0; q < View.values().length - 1; q++) {
                queue.add(i);
            }
        }
        start(queue, freeAt, done, dropped, events, Double.POSITIVE_INFINITY, queryMs);
        double[] latency = new double[events.size()];
        double best = Double.POSITIVE_INFINITY;
        for (int i = events.size() - 1; i >= 0; i--) {
            if (!dropped[i] && !Double.isNaN(done[i])) {
                best = Math.min(best, done[i]);
            }
            latency[i] = best - events.get(i).timeMs();
        }
        return latency;
    }

    /** Starts queued queries on servers that free up before {@code until}, in arrival order. */
    private static void start(Deque<Integer> queue, double[] freeAt, double[] done, boolean[] dropped,
            List<BrushEvent> events, double until, DoubleSupplier queryMs) {
        while (!queue.isEmpty()) {
            int s = earliest(freeAt);
            int i = queue.peek();
            double begin = Math.max(freeAt[s], events.get(i).timeMs());
            if (begin >= until) {
                return;
            }
            queue.poll();
            freeAt[s] = begin + queryMs.getAsDouble();
            done[i] = Double.isNaN(done[i]) ? freeAt[s] : Math.max(done[i], freeAt[s]);
        }
    }

    /**
     * Falcon on hover: when a view becomes active, its tile (one query per passive view) is
     * requested, unless this session computed the same tile before; every brush event on the
     * view waits for the tile, and is answered at once when it is there. The recorded sessions
     * have no hover events, so the tile is requested at the view's first brush event: Falcon
     * gets no head start from the hover (its latency here is an upper bound).
     */
    static double[] falconOnHover(Workflow w, int servers, DoubleSupplier sliceMs) {
        List<BrushEvent> events = w.events();
        List<Filters> after = w.filtersAfter();
        double[] freeAt = new double[servers];
        Map<TileKey, Double> readyAt = new HashMap<>();
        double[] latency = new double[events.size()];
        double ready = 0;
        for (int i = 0; i < events.size(); i++) {
            BrushEvent e = events.get(i);
            if (w.isViewSwitch(i)) {
                TileKey key = new TileKey(e.view(), after.get(i));
                Double known = readyAt.get(key);
                if (known == null) {
                    double end = e.timeMs();
                    for (int q = 0; q < View.values().length - 1; q++) {
                        int s = earliest(freeAt);
                        freeAt[s] = Math.max(freeAt[s], e.timeMs()) + sliceMs.getAsDouble();
                        end = Math.max(end, freeAt[s]);
                    }
                    known = end;
                    readyAt.put(key, end);
                }
                ready = known;
            }
            latency[i] = Math.max(0, ready - e.timeMs());
        }
        return latency;
    }

    private static int earliest(double[] freeAt) {
        int best = 0;
        for (int s = 1; s < freeAt.length; s++) {
            if (freeAt[s] < freeAt[best]) {
                best = s;
            }
        }
        return best;
    }
}
