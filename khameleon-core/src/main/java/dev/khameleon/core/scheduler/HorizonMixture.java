package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import java.util.Arrays;

/**
 * The union of the explicit ids over a distribution's horizons and one {@link SumTree} per
 * mixture component over it, with leaf {@code g_i(B_i) · p_j(i)}: the part of
 * {@link GreedyScheduler}'s draw that the explicit probabilities decide.
 *
 * <p>The components are the {@link #horizons} of the distribution plus, when the forecast fades,
 * the uniform distribution as one more with no explicit ids and {@code 1/n} per id. An id that is
 * not explicit at horizon {@code j} has {@code p_j(i) = ρ_j} ({@link #residual}). The arrays are
 * read directly by the scheduler's per-block loops. Not thread-safe.
 */
final class HorizonMixture {
    /** {@code index.get(i)}: the position of request {@code i} in {@link #ids}, or -1 outside the union. */
    final IdTable index;
    /** The union ids, in order of first appearance over the horizons; {@link #size} of them. */
    int[] ids = new int[0];
    int size;
    /**
     * Scratch of at least {@link #size} entries: the union's gains while {@link #build} runs, the
     * union's slot gains between the passes of a {@link Selection#MAX_GAIN} pick.
     */
    double[] scratch = new double[0];
    /** {@code probability[j][k]}: {@code p_j} of union id {@code k}. */
    private double[][] probability = new double[0][];
    /** {@code trees[j]}: leaf {@code k} is {@code g(B) · p_j} of union id {@code k}. */
    SumTree[] trees = new SumTree[0];
    /** {@code residual[j]}: {@code ρ_j}, the probability of each id not explicit at component {@code j}. */
    double[] residual = new double[0];
    /** The distribution's horizon count. */
    int horizons;
    /** The mixture's components: {@link #horizons}, plus one for the fade to uniform. */
    int parts;

    /**
     * An empty union over {@code requestCount} requests, with no components until {@link #build};
     * with {@code sparse}, {@link #index} holds the union's ids only.
     */
    HorizonMixture(int requestCount, boolean sparse) {
        this.index = IdTable.of(requestCount, IdTable.Defaults.constant(-1), sparse);
    }

    /**
     * Starts an empty union with room for every explicit id of {@code d}; the caller has already
     * set {@link #index} back to -1 for each id of the old union.
     */
    void reserve(Distribution d) {
        int m = d.horizonCount();
        int capacity = 0;
        for (int j = 0; j < m; j++) {
            capacity += d.explicitCount(j);
        }
        if (ids.length < capacity) {
            ids = new int[capacity];
            scratch = new double[capacity];
        }
        size = 0;
    }

    /** Appends {@code requestId} to the union unless it is in already; returns whether it was new. */
    boolean enter(int requestId) {
        if (index.get(requestId) >= 0) {
            return false;
        }
        index.set(requestId, size);
        ids[size++] = requestId;
        return true;
    }

    /**
     * Builds the components of {@code d} (plus the uniform one over {@code requestCount} ids when
     * {@code fades}) over the current union, whose gains the caller has put in {@link #scratch}.
     * Keeps the trees of the previous build when their size still fits, so that a re-plan
     * allocates nothing per block.
     */
    void build(Distribution d, boolean fades, int requestCount) {
        int m = d.horizonCount();
        int q = fades ? m + 1 : m;
        boolean reuse = parts == q && probability.length == q && probability[0].length >= size
                && trees[0].leaves() >= size && trees[0].leaves() <= 4 * Math.max(64, size);
        if (!reuse) {
            probability = new double[q][size];
            trees = new SumTree[q];
            for (int j = 0; j < q; j++) {
                trees[j] = new SumTree(size);
            }
        }
        residual = new double[q];
        double[] gains = scratch;
        for (int j = 0; j < m; j++) {
            double[] p = probability[j];
            residual[j] = d.residualPerRequest(j);
            Arrays.fill(p, 0, size, residual[j]);
            int count = d.explicitCount(j);
            for (int e = 0; e < count; e++) {
                p[index.get(d.explicitId(j, e))] = d.explicitProbability(j, e);
            }
            trees[j].build(gains, p, size);
        }
        if (q > m) {
            residual[m] = 1.0 / requestCount;
            Arrays.fill(probability[m], 0, size, residual[m]);
            trees[m].build(gains, probability[m], size);
        }
        this.horizons = m;
        this.parts = q;
    }

    /** Sets union id {@code k}'s leaf in every component to {@code gain · p_j}. */
    void setLeaves(int k, double gain) {
        for (int j = 0; j < parts; j++) {
            trees[j].set(k, gain * probability[j][k]);
        }
    }
}
