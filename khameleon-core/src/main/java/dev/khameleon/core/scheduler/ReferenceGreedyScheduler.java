package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import java.util.Arrays;

/**
 * The paper's Listing 1 as written: it materialises {@code P_{i,t}} for every request and every
 * remaining slot of the batch ({@code O(n·C)} time and memory per batch or re-plan), faded to
 * uniform past the last horizon ({@link SchedulerConfig#uniformShare}) and cut to the planning
 * horizon ({@link BatchScheduler#beyondHorizonFactor}), and for each
 * slot computes {@code u_i = P_{i,t} · g_i(B_i)} for all {@code n} requests and draws one by a
 * linear scan ({@code O(n)} per block); under {@link Selection#MAX_GAIN} the same scan finds the
 * largest {@code u_i}.
 *
 * <p>It exists to check {@link GreedyScheduler} against and to benchmark it; it takes the
 * probabilities straight from {@link Distribution#probabilityAt}, independently of the fast
 * scheduler's per-horizon decomposition. Not thread-safe.
 */
final class ReferenceGreedyScheduler extends BatchScheduler {
    private final int[] blocks;
    /** The gains of lazily counted requests whose told count differs from the bound; else null. */
    private final double[][] learned;
    private double[][] tail;
    private double[] current;
    private double[] following;

    ReferenceGreedyScheduler(SchedulerConfig config) {
        super(config);
        this.blocks = new int[requestCount];
        this.learned = classes.lazyIds.length > 0 ? new double[requestCount][] : null;
    }

    @Override
    void countKnown(int requestId, double[] gains) {
        learned[requestId] = gains;
    }

    /** {@code g_i(b)}: 0 past the request's count (which a lazily told count may leave {@code B} above). */
    private double gain(int requestId, int b) {
        double[] g = learned != null && learned[requestId] != null ? learned[requestId] : classes.gainsOf(requestId);
        return b < g.length ? g[b] : 0.0;
    }

    @Override
    int increment(int requestId) {
        return blocks[requestId]++;
    }

    @Override
    void decrement(int requestId) {
        blocks[requestId]--;
    }

    @Override
    void resetBatch() {
        Arrays.fill(blocks, 0);
    }

    @Override
    void install(Distribution distribution) {
        // Nothing to precompute: prepare() reads the distribution directly.
    }

    @Override
    void prepare(long batchStartSeq, int fromPos) {
        int c = cacheBlocks;
        int n = requestCount;
        if (tail == null) {
            tail = new double[c + 1][];
            current = new double[n];
            following = new double[n];
        }
        for (int t = fromPos; t <= c; t++) {
            if (tail[t] == null) {
                tail[t] = new double[n];
            }
        }
        Arrays.fill(tail[c], 0.0);
        probabilities(batchStartSeq + c, following);
        for (int t = c - 1; t >= fromPos; t--) {
            probabilities(batchStartSeq + t, current);
            double[] row = tail[t];
            double[] next = tail[t + 1];
            for (int i = 0; i < n; i++) {
                row[i] = 0.5 * (current[i] + discount * following[i]) + discount * next[i];
            }
            double[] swap = following;
            following = current;
            current = swap;
        }
        // Ascending, so that row t + L still holds its suffix sum when row t is cut to the horizon.
        int horizon = horizonSlots();
        double cut = beyondHorizonFactor(horizon);
        for (int t = fromPos; t < c - horizon; t++) {
            double[] row = tail[t];
            double[] beyond = tail[t + horizon];
            for (int i = 0; i < n; i++) {
                row[i] -= cut * beyond[i];
            }
        }
    }

    private void probabilities(long seq, double[] out) {
        double millis = slotTime(seq);
        double uniform = config.uniformShare(millis, distribution.horizonMillis(distribution.horizonCount() - 1));
        double perRequest = uniform / out.length;
        for (int i = 0; i < out.length; i++) {
            out[i] = (1 - uniform) * distribution.probabilityAt(millis, i) + perRequest;
        }
    }

    @Override
    double weight(int t, int requestId) {
        return tail[t][requestId] * gain(requestId, blocks[requestId]);
    }

    @Override
    int sample(int t) {
        double[] row = tail[t];
        int n = requestCount;
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += row[i] * gain(i, blocks[i]);
        }
        if (!(total > 0)) {
            return -1;
        }
        double x = random.nextDouble() * total;
        double cumulative = 0;
        int lastPositive = -1;
        for (int i = 0; i < n; i++) {
            double u = row[i] * gain(i, blocks[i]);
            if (u > 0) {
                cumulative += u;
                lastPositive = i;
                if (x < cumulative) {
                    return i;
                }
            }
        }
        return lastPositive;
    }

    @Override
    int best(int t) {
        int n = requestCount;
        double max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, weight(t, i));
        }
        if (!(max > 0)) {
            return -1;
        }
        double threshold = tieThreshold(max);
        for (int i = 0; i < n; i++) {
            if (weight(t, i) >= threshold) {
                return i;
            }
        }
        throw new AssertionError("the largest gain " + max + " was not found again");
    }
}
