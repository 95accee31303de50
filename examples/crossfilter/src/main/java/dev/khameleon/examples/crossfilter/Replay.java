package dev.khameleon.examples.crossfilter;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;

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
            for (int q = 0; q < events.get(i).view().views().size() - 1; q++) {
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
        return falconOnHover(w, servers, sliceMs, k -> false);
    }

    /**
     * As {@link #falconOnHover(Workflow, int, DoubleSupplier)}, on a server that computed the
     * tiles {@code computed} accepts at start-up: those are ready at once, without a query.
     */
    static double[] falconOnHover(Workflow w, int servers, DoubleSupplier sliceMs, Predicate<TileKey> computed) {
        return tiles(w, servers, sliceMs, null, 0, 0, computed);
    }

    /**
     * Falcon with predicted next views: as {@link #falconOnHover}, and in addition, when the
     * user pauses ({@code pauseMs} without a brush event), the tiles of the {@code top} most
     * likely next views under {@code prior}, for the brushes in force, are requested. Such a
     * tile helps only if the user then switches to that view without moving the brush again;
     * otherwise it only loads the backend, which the replay charges to the later requests.
     */
    static double[] predictedPrefetch(Workflow w, int servers, DoubleSupplier sliceMs, MarkovPrior prior, int top,
            long pauseMs) {
        return predictedPrefetch(w, servers, sliceMs, prior, top, pauseMs, k -> false);
    }

    /**
     * As {@link #predictedPrefetch(Workflow, int, DoubleSupplier, MarkovPrior, int, long)}, on a
     * server that computed the tiles {@code computed} accepts at start-up.
     */
    static double[] predictedPrefetch(Workflow w, int servers, DoubleSupplier sliceMs, MarkovPrior prior, int top,
            long pauseMs, Predicate<TileKey> computed) {
        return tiles(w, servers, sliceMs, prior, top, pauseMs, computed);
    }

    private static double[] tiles(Workflow w, int servers, DoubleSupplier sliceMs, MarkovPrior prior, int top,
            long pauseMs, Predicate<TileKey> computed) {
        List<BrushEvent> events = w.events();
        List<Filters> after = w.filtersAfter();
        double[] freeAt = new double[servers];
        Map<TileKey, Double> readyAt = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            for (View v : events.get(i).view().views()) {
                TileKey k = new TileKey(v, after.get(i));
                if (computed.test(k)) {
                    readyAt.put(k, Double.NEGATIVE_INFINITY); // computed before the session: no query
                }
            }
        }
        double[] latency = new double[events.size()];
        double ready = 0;
        for (int i = 0; i < events.size(); i++) {
            BrushEvent e = events.get(i);
            if (w.isViewSwitch(i)) {
                ready = request(new TileKey(e.view(), after.get(i)), e.timeMs(), freeAt, readyAt, sliceMs);
            }
            latency[i] = Math.max(0, ready - e.timeMs());
            boolean paused = i + 1 < events.size() && events.get(i + 1).timeMs() - e.timeMs() > pauseMs;
            if (prior != null && paused) {
                for (View next : prior.likelyNext(e.view(), top)) {
                    request(new TileKey(next, after.get(i)), e.timeMs() + pauseMs, freeAt, readyAt, sliceMs);
                }
            }
        }
        return latency;
    }

    /** When the tile {@code key} is ready: known, or requested at {@code t} (one query per passive view). */
    private static double request(TileKey key, double t, double[] freeAt, Map<TileKey, Double> readyAt,
            DoubleSupplier sliceMs) {
        Double known = readyAt.get(key);
        if (known != null) {
            return known;
        }
        double end = t;
        for (int q = 0; q < key.active().views().size() - 1; q++) {
            int s = earliest(freeAt);
            freeAt[s] = Math.max(freeAt[s], t) + sliceMs.getAsDouble();
            end = Math.max(end, freeAt[s]);
        }
        readyAt.put(key, end);
        return end;
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
