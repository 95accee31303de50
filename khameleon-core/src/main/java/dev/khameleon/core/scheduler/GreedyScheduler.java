package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import java.util.Arrays;

/**
 * The default scheduler: draws each slot's request from exactly the distribution of the
 * paper's Listing 1 ({@link ReferenceGreedyScheduler}) in {@code O(m log K)} per block, with
 * {@code m} horizons and {@code K} the union of the explicit ids over all horizons.
 *
 * <p>How: interpolation is linear in the horizon values, so
 * {@code P_{i,t} = Σ_j W_j(t) p_j(i)}, where the {@code m} scalars {@code W_j(t)} per slot are
 * computed once per batch or re-plan. The union ids live in one {@link SumTree} per horizon
 * with leaf {@code g_i(B_i) · p_j(i)} ({@code p_j(i) = ρ_j}, the per-id residual, where the id
 * is not explicit at horizon {@code j}). Every other id has probability {@code ρ_j} at every
 * horizon, so together they form one group of weight {@code (Σ_j W_j(t) ρ_j) · Σ_i g_i(B_i)}
 * inside which an id is drawn {@code ∝ g_i(B_i)}: the ids already touched in this batch (at
 * most {@code C}) sit in a sum tree of their own; the untouched ones are kept per block-count
 * class in the prefix of a permutation, so a class is drawn {@code ∝ count · g(0)} and an id
 * uniformly from its prefix in {@code O(1)}, with no rejection.
 *
 * <p>The fade to uniform past the last horizon is one more component of the mixture, with no
 * explicit ids and {@code 1/n} per id (one more tree and a share of the group's weight); the
 * planning horizon only changes the scalars {@code W_j(t)}, each cut to
 * {@code S_j(t) − c·S_j(t+L)} from its suffix sum ({@link BatchScheduler#beyondHorizonFactor}).
 *
 * <p>Under {@link Selection#MAX_GAIN} the largest gain of a union id is not something a sum
 * tree can give, so {@link #best} scans the union and the touched ids, and compares the
 * untouched residual ids one block-count class at a time: {@code O(m·K + C + d)} per block
 * with {@code d} distinct block counts.
 *
 * <p>A lazily counted request sits in the class of its bound until its exact count is told
 * ({@link #blockCountKnown}); if that differs from the bound, it moves for good to a class of its
 * exact count, one of the <em>learned classes</em> that grow as counts are told (an array of
 * members per count, its untouched ones in a prefix, as in the permutation of the fixed classes).
 * The group then draws a fixed class, a learned class or a touched id, and within a learned
 * class an id uniformly in {@code O(1)}, so the draw stays exact. Under {@link Selection#MAX_GAIN}
 * a max tree over the lazily counted requests ({@code L} of them) gives {@link #best} the untouched
 * learned ids' largest gain and lowest id in {@code O(log L)}. Not thread-safe.
 */
final class GreedyScheduler extends BatchScheduler {
    private final int[] blocks;

    private final int[] unionIndex;
    private int[] unionIds = new int[0];
    private int unionSize;
    private double[] scratch = new double[0];
    private double[][] unionProbability = new double[0][];
    private SumTree[] horizonTrees = new SumTree[0];
    private double[] residual = new double[0];
    private int horizons;
    /**
     * The mixture's components: the {@link #horizons} of the distribution, plus, when the
     * forecast fades, the uniform distribution as one more with no explicit ids and
     * {@code 1/n} per id.
     */
    private int parts;

    private final int[] perm;
    private final int[] pos;
    private final int[] available;
    private final SumTree classTree;

    private final int[] touched;
    private final int[] touchedIndex;
    private int touchedCount;
    private final SumTree touchedTree;

    private double[] slotWeights = new double[0];
    private final double[] residualWeight;

    /**
     * The gains of each lazily counted request whose told count differs from its bound (its
     * learned class is {@code gains.length − 1}; 0 for a dropped request, which is in no class),
     * by its position in {@link BlockClasses#lazyIds}; null entries while it is in its fixed
     * class. {@code null} when every count is exact.
     */
    private final double[][] learnedGains;
    /** {@code learnedMembers[K]}: the requests of learned class {@code K}, its untouched ones first. */
    private final int[][] learnedMembers;
    private final int[] learnedSize;
    private final int[] learnedAvailable;
    /** The position of each learned request (by lazy index) in its class's members. */
    private final int[] learnedPos;
    /** Leaf {@code K}: {@code learnedAvailable[K] · g_K(0)}. */
    private final SumTree learnedClassTree;
    /**
     * Leaf {@code k}: {@code g_K(0)} of lazily counted request {@code lazyIds[k]} while it is an
     * untouched member of learned class {@code K}, else 0; only under {@link Selection#MAX_GAIN}.
     */
    private final MaxTree learnedMax;
    /** Scratch for {@link #install}: the untouched learned ids of the old union. */
    private int[] leavingLearned = new int[0];

    GreedyScheduler(SchedulerConfig config) {
        super(config);
        int n = requestCount;
        this.blocks = new int[n];
        this.unionIndex = new int[n];
        Arrays.fill(unionIndex, -1);
        this.perm = classes.layout != null ? classes.layout.clone() : identity(n);
        this.pos = new int[n];
        for (int p = 0; p < n; p++) {
            pos[perm[p]] = p;
        }
        int d = classes.classCount();
        this.available = new int[d];
        this.classTree = new SumTree(d);
        for (int c = 0; c < d; c++) {
            available[c] = classes.start[c + 1] - classes.start[c];
            classTree.set(c, available[c] * classes.gains[c][0]);
        }
        this.touched = new int[cacheBlocks];
        this.touchedIndex = new int[n];
        Arrays.fill(touchedIndex, -1);
        this.touchedTree = new SumTree(cacheBlocks);
        this.residualWeight = new double[cacheBlocks + 1];
        int lazy = classes.lazyIds.length;
        if (lazy > 0) {
            int maxBound = 0;
            for (int id : classes.lazyIds) {
                maxBound = Math.max(maxBound, classes.blockCount(id));
            }
            this.learnedGains = new double[lazy][];
            this.learnedMembers = new int[maxBound + 1][];
            this.learnedSize = new int[maxBound + 1];
            this.learnedAvailable = new int[maxBound + 1];
            this.learnedPos = new int[lazy];
            this.learnedClassTree = new SumTree(maxBound + 1);
            this.learnedMax = config.selection() == Selection.MAX_GAIN ? new MaxTree(lazy) : null;
        } else {
            this.learnedGains = null;
            this.learnedMembers = null;
            this.learnedSize = null;
            this.learnedAvailable = null;
            this.learnedPos = null;
            this.learnedClassTree = null;
            this.learnedMax = null;
        }
    }

    private static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    private double gain(int requestId, int b) {
        if (learnedGains != null) {
            double[] g = learnedOf(requestId);
            if (g != null) {
                // Until a re-plan takes back blocks planned on the bound, B may exceed the count.
                return b < g.length ? g[b] : 0.0;
            }
        }
        return classes.gainsOf(requestId)[b];
    }

    /** The gains of {@code requestId} if it moved to a learned class (or was dropped), else null. */
    private double[] learnedOf(int requestId) {
        int k = classes.lazyIndex[requestId];
        return k >= 0 ? learnedGains[k] : null;
    }

    @Override
    void countKnown(int requestId, double[] gains) {
        int lk = classes.lazyIndex[requestId];
        boolean wasLearned = learnedGains[lk] != null;
        boolean untouched = unionIndex[requestId] < 0 && blocks[requestId] == 0;
        if (untouched) {
            removeAvailable(requestId);
        }
        if (wasLearned) {
            removeLearnedMember(requestId);
        }
        learnedGains[lk] = gains;
        int count = gains.length - 1;
        if (count > 0) {
            int[] members = learnedMembers[count];
            if (members == null || learnedSize[count] == members.length) {
                members = Arrays.copyOf(members == null ? new int[0] : members, Math.max(16, 2 * learnedSize[count]));
                learnedMembers[count] = members;
            }
            learnedPos[lk] = learnedSize[count];
            members[learnedSize[count]++] = requestId;
        }
        if (untouched) {
            addAvailable(requestId);
        }
        int k = unionIndex[requestId];
        if (k >= 0) {
            setUnionLeaves(k, gain(requestId, blocks[requestId]));
        } else if (blocks[requestId] > 0) {
            touchedTree.set(touchedIndex[requestId], gain(requestId, blocks[requestId]));
        }
    }

    /** Whether learned {@code requestId} is an untouched member (in the prefix) of its class. */
    private boolean isLearnedAvailable(int requestId) {
        int lk = classes.lazyIndex[requestId];
        int count = learnedGains[lk].length - 1;
        return count > 0 && learnedPos[lk] < learnedAvailable[count];
    }

    private static int[] grow(int[] a, int size) {
        return size < a.length ? a : Arrays.copyOf(a, Math.max(16, 2 * a.length));
    }

    /** Takes an unavailable learned request out of its class's members (it is dropped). */
    private void removeLearnedMember(int requestId) {
        int count = learnedGains[classes.lazyIndex[requestId]].length - 1;
        if (count == 0) {
            return;
        }
        int[] members = learnedMembers[count];
        int last = --learnedSize[count];
        int p = learnedPos[classes.lazyIndex[requestId]];
        int moved = members[last];
        members[p] = moved;
        learnedPos[classes.lazyIndex[moved]] = p;
    }

    @Override
    int increment(int requestId) {
        int b = blocks[requestId];
        blocks[requestId] = b + 1;
        int k = unionIndex[requestId];
        if (b == 0) {
            int ti = touchedCount++;
            touched[ti] = requestId;
            touchedIndex[requestId] = ti;
            if (k < 0) {
                removeAvailable(requestId);
            }
        }
        double g = gain(requestId, b + 1);
        if (k >= 0) {
            setUnionLeaves(k, g);
        } else {
            touchedTree.set(touchedIndex[requestId], g);
        }
        return b;
    }

    @Override
    void decrement(int requestId) {
        int b = blocks[requestId] - 1;
        blocks[requestId] = b;
        int k = unionIndex[requestId];
        if (b == 0) {
            removeTouched(requestId);
            if (k < 0) {
                addAvailable(requestId);
            }
        } else if (k < 0) {
            touchedTree.set(touchedIndex[requestId], gain(requestId, b));
        }
        if (k >= 0) {
            setUnionLeaves(k, gain(requestId, b));
        }
    }

    @Override
    void resetBatch() {
        for (int x = 0; x < touchedCount; x++) {
            int id = touched[x];
            blocks[id] = 0;
            touchedIndex[id] = -1;
            int k = unionIndex[id];
            if (k >= 0) {
                setUnionLeaves(k, gain(id, 0));
            } else {
                addAvailable(id);
            }
        }
        touchedCount = 0;
        touchedTree.clear();
    }

    @Override
    void install(Distribution d) {
        // An untouched learned id leaving the old union joins its class's prefix only once the new
        // union is known: one that stays in the union then costs no move.
        int leaving = 0;
        for (int x = 0; x < unionSize; x++) {
            int id = unionIds[x];
            unionIndex[id] = -1;
            if (blocks[id] == 0) {
                if (learnedGains != null && learnedOf(id) != null) {
                    leavingLearned = grow(leavingLearned, leaving);
                    leavingLearned[leaving++] = id;
                } else {
                    addAvailable(id);
                }
            } else {
                touchedTree.set(touchedIndex[id], gain(id, blocks[id]));
            }
        }
        int m = d.horizonCount();
        int capacity = 0;
        for (int j = 0; j < m; j++) {
            capacity += d.explicitCount(j);
        }
        if (unionIds.length < capacity) {
            unionIds = new int[capacity];
            scratch = new double[capacity];
        }
        // Number the union in order of first appearance: O(m·K), no sort needed.
        int size = 0;
        for (int j = 0; j < m; j++) {
            int count = d.explicitCount(j);
            for (int e = 0; e < count; e++) {
                int id = d.explicitId(j, e);
                if (unionIndex[id] < 0) {
                    unionIndex[id] = size;
                    unionIds[size++] = id;
                    if (blocks[id] == 0) {
                        if (learnedGains == null || learnedOf(id) == null || isLearnedAvailable(id)) {
                            removeAvailable(id);
                        }
                    } else {
                        touchedTree.set(touchedIndex[id], 0.0);
                    }
                }
            }
        }
        unionSize = size;
        for (int x = 0; x < leaving; x++) {
            int id = leavingLearned[x];
            if (unionIndex[id] < 0) {
                addAvailable(id);
            }
        }
        int q = config.fades() ? m + 1 : m;
        boolean reuse = parts == q && unionProbability.length == q && unionProbability[0].length >= size
                && horizonTrees[0].leaves() >= size && horizonTrees[0].leaves() <= 4 * Math.max(64, size);
        if (!reuse) {
            unionProbability = new double[q][size];
            horizonTrees = new SumTree[q];
            for (int j = 0; j < q; j++) {
                horizonTrees[j] = new SumTree(size);
            }
        }
        residual = new double[q];
        double[] gains = scratch;
        for (int k = 0; k < size; k++) {
            int id = unionIds[k];
            gains[k] = gain(id, blocks[id]);
        }
        for (int j = 0; j < m; j++) {
            double[] probability = unionProbability[j];
            residual[j] = d.residualPerRequest(j);
            Arrays.fill(probability, 0, size, residual[j]);
            int count = d.explicitCount(j);
            for (int e = 0; e < count; e++) {
                probability[unionIndex[d.explicitId(j, e)]] = d.explicitProbability(j, e);
            }
            horizonTrees[j].build(gains, probability, size);
        }
        if (q > m) {
            residual[m] = 1.0 / requestCount;
            Arrays.fill(unionProbability[m], 0, size, residual[m]);
            horizonTrees[m].build(gains, unionProbability[m], size);
        }
        this.horizons = m;
        this.parts = q;
    }

    @Override
    void prepare(long batchStartSeq, int fromPos) {
        int m = parts;
        int c = cacheBlocks;
        if (slotWeights.length != (c + 1) * m) {
            slotWeights = new double[(c + 1) * m];
        }
        double[] w = slotWeights;
        double[] hat = new double[m];
        double[] hatNext = new double[m];
        Arrays.fill(w, c * m, (c + 1) * m, 0.0);
        residualWeight[c] = 0.0;
        hatWeights(slotTime(batchStartSeq + c), hatNext);
        for (int t = c - 1; t >= fromPos; t--) {
            hatWeights(slotTime(batchStartSeq + t), hat);
            int row = t * m;
            for (int j = 0; j < m; j++) {
                w[row + j] = 0.5 * (hat[j] + discount * hatNext[j]) + discount * w[row + m + j];
            }
            double[] swap = hatNext;
            hatNext = hat;
            hat = swap;
        }
        // Ascending, so that row t + L still holds its suffix sum when row t is cut to the horizon.
        int horizon = horizonSlots();
        double cut = beyondHorizonFactor(horizon);
        for (int t = fromPos; t < c; t++) {
            int row = t * m;
            double rho = 0;
            for (int j = 0; j < m; j++) {
                if (t < c - horizon) {
                    w[row + j] -= cut * w[row + horizon * m + j];
                }
                rho += w[row + j] * residual[j];
            }
            residualWeight[t] = rho;
        }
    }

    /**
     * The weight of each mixture component at {@code millis}: the interpolation weights of the
     * horizons as in {@link Distribution#probabilityAt}, scaled by {@code 1 − α}, and
     * {@code α} = {@link SchedulerConfig#uniformShare} for the uniform component, if any.
     */
    private void hatWeights(double millis, double[] out) {
        Arrays.fill(out, 0.0);
        Distribution d = distribution;
        int m = horizons;
        if (millis <= d.horizonMillis(0)) {
            out[0] = 1;
        } else if (millis >= d.horizonMillis(m - 1)) {
            out[m - 1] = 1;
        } else {
            int j = 1;
            while (d.horizonMillis(j) < millis) {
                j++;
            }
            double a = d.horizonMillis(j - 1);
            double b = d.horizonMillis(j);
            double x = (millis - a) / (b - a);
            out[j - 1] = 1 - x;
            out[j] = x;
        }
        if (parts > m) {
            double uniform = config.uniformShare(millis, d.horizonMillis(m - 1));
            for (int j = 0; j < m; j++) {
                out[j] *= 1 - uniform;
            }
            out[m] = uniform;
        }
    }

    @Override
    double weight(int t, int requestId) {
        // Read back from the sampling structures themselves, so a test of this also tests them.
        int k = unionIndex[requestId];
        if (k >= 0) {
            double w = 0;
            for (int j = 0; j < parts; j++) {
                w += slotWeights[t * parts + j] * horizonTrees[j].get(k);
            }
            return w;
        }
        if (blocks[requestId] > 0) {
            return residualWeight[t] * touchedTree.get(touchedIndex[requestId]);
        }
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            return isLearnedAvailable(requestId) ? residualWeight[t] * learned[0] : 0.0;
        }
        int c = classes.classOf(requestId);
        boolean isAvailable = pos[requestId] < classes.start[c] + available[c];
        return isAvailable ? residualWeight[t] * classes.gains[c][0] : 0.0;
    }

    @Override
    int sample(int t) {
        int m = parts;
        int row = t * m;
        double groupTotal = classTree.total() + touchedTree.total();
        if (learnedClassTree != null) {
            groupTotal += learnedClassTree.total();
        }
        double groupWeight = residualWeight[t] * groupTotal;
        double z = groupWeight;
        for (int j = 0; j < m; j++) {
            z += slotWeights[row + j] * horizonTrees[j].total();
        }
        if (!(z > 0)) {
            return -1;
        }
        double x = random.nextDouble() * z;
        int lastPositive = -1;
        for (int j = 0; j < m; j++) {
            double c = slotWeights[row + j] * horizonTrees[j].total();
            if (c > 0) {
                if (x < c) {
                    return sampleHorizon(j);
                }
                x -= c;
                lastPositive = j;
            }
        }
        // x landed in the group, or past every weight by rounding: take the last positive part.
        return groupWeight > 0 ? sampleGroup() : sampleHorizon(lastPositive);
    }

    /**
     * {@link Selection#MAX_GAIN}: one pass finds the largest gain, a second the lowest id within
     * {@link #tieThreshold} of it. Union ids are scanned ({@code O(m·K)}, their gains kept in
     * {@link #scratch} between the passes) and so are the touched ids ({@code O(C)}; a touched
     * union id has leaf 0 in the touched tree and never qualifies there). Untouched ids outside
     * the union share one gain per block-count class, {@code residualWeight · g_c(0)}, so a
     * class is compared once, and its lowest id found by {@link #lowestAvailable}.
     */
    @Override
    int best(int t) {
        int m = parts;
        int row = t * m;
        double[] gains = scratch;
        double max = 0;
        for (int k = 0; k < unionSize; k++) {
            double v = 0;
            for (int j = 0; j < m; j++) {
                v += slotWeights[row + j] * horizonTrees[j].get(k);
            }
            gains[k] = v;
            max = Math.max(max, v);
        }
        double rho = residualWeight[t];
        int classCount = classes.classCount();
        if (rho > 0) {
            for (int x = 0; x < touchedCount; x++) {
                max = Math.max(max, rho * touchedTree.get(x));
            }
            for (int c = 0; c < classCount; c++) {
                if (available[c] > 0) {
                    max = Math.max(max, rho * classes.gains[c][0]);
                }
            }
            if (learnedMax != null) {
                max = Math.max(max, rho * learnedMax.max());
            }
        }
        if (!(max > 0)) {
            return -1;
        }
        double threshold = tieThreshold(max);
        int best = Integer.MAX_VALUE;
        for (int k = 0; k < unionSize; k++) {
            if (gains[k] >= threshold) {
                best = Math.min(best, unionIds[k]);
            }
        }
        if (rho > 0) {
            for (int x = 0; x < touchedCount; x++) {
                if (rho * touchedTree.get(x) >= threshold) {
                    best = Math.min(best, touched[x]);
                }
            }
            for (int c = 0; c < classCount; c++) {
                if (available[c] > 0 && rho * classes.gains[c][0] >= threshold) {
                    best = Math.min(best, lowestAvailable(c));
                }
            }
            // Leaves are ordered by id (lazyIds ascends), so the leftmost passing leaf is the lowest id.
            int k = learnedMax == null ? -1 : learnedMax.leftmostAtLeast(rho, threshold);
            if (k >= 0) {
                best = Math.min(best, classes.lazyIds[k]);
            }
        }
        return best;
    }

    /**
     * The lowest untouched non-union id of class {@code c} (which must have one): walks the
     * class's ids in increasing order, skipping the unavailable ones, so it costs at most one
     * step per union or touched id of the class, {@code O(K + C)}.
     */
    private int lowestAvailable(int c) {
        int end = classes.start[c] + available[c];
        int[] layout = classes.layout;
        for (int p = classes.start[c]; ; p++) {
            int id = layout == null ? p : layout[p];
            if (pos[id] < end) {
                return id;
            }
        }
    }

    private int sampleHorizon(int j) {
        SumTree tree = horizonTrees[j];
        return unionIds[tree.sample(random.nextDouble() * tree.total())];
    }

    private int sampleGroup() {
        double su = classTree.total();
        double st = touchedTree.total();
        double sl = learnedClassTree == null ? 0.0 : learnedClassTree.total();
        double v = random.nextDouble() * (su + st + sl);
        if (su > 0 && ((st <= 0 && sl <= 0) || v < su)) {
            int c = classTree.sample(v);
            return perm[classes.start[c] + random.nextInt(available[c])];
        }
        double x = su > 0 ? v - su : v;
        if (sl <= 0 || (st > 0 && x < st)) {
            return touched[touchedTree.sample(x)];
        }
        int count = learnedClassTree.sample(st > 0 ? x - st : x);
        return learnedMembers[count][random.nextInt(learnedAvailable[count])];
    }

    private void setUnionLeaves(int k, double gain) {
        for (int j = 0; j < parts; j++) {
            horizonTrees[j].set(k, gain * unionProbability[j][k]);
        }
    }

    private void removeAvailable(int requestId) {
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            moveLearned(requestId, learned.length - 1, -1);
            return;
        }
        int c = classes.classOf(requestId);
        int last = classes.start[c] + available[c] - 1;
        swap(pos[requestId], last);
        available[c]--;
        classTree.set(c, available[c] * classes.gains[c][0]);
    }

    private void addAvailable(int requestId) {
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            moveLearned(requestId, learned.length - 1, +1);
            return;
        }
        int c = classes.classOf(requestId);
        int first = classes.start[c] + available[c];
        swap(pos[requestId], first);
        available[c]++;
        classTree.set(c, available[c] * classes.gains[c][0]);
    }

    /**
     * Moves learned {@code requestId} of class {@code count} out of ({@code delta} -1) or into
     * (+1) its class's untouched prefix; a dropped request (count 0) is in no class and stays out.
     */
    private void moveLearned(int requestId, int count, int delta) {
        if (count == 0) {
            return;
        }
        int[] members = learnedMembers[count];
        int lk = classes.lazyIndex[requestId];
        int edge = delta < 0 ? learnedAvailable[count] - 1 : learnedAvailable[count];
        int p = learnedPos[lk];
        int other = members[edge];
        members[edge] = requestId;
        members[p] = other;
        learnedPos[classes.lazyIndex[other]] = p;
        learnedPos[lk] = edge;
        learnedAvailable[count] += delta;
        double[] g = learnedGains[lk];
        learnedClassTree.set(count, learnedAvailable[count] * g[0]);
        if (learnedMax != null) {
            learnedMax.set(lk, delta > 0 ? g[0] : 0.0);
        }
    }

    private void swap(int a, int b) {
        int ia = perm[a];
        int ib = perm[b];
        perm[a] = ib;
        perm[b] = ia;
        pos[ib] = a;
        pos[ia] = b;
    }

    private void removeTouched(int requestId) {
        int ti = touchedIndex[requestId];
        int last = --touchedCount;
        int moved = touched[last];
        touched[ti] = moved;
        touchedIndex[moved] = ti;
        touchedTree.set(ti, touchedTree.get(last));
        touchedTree.set(last, 0.0);
        touchedIndex[requestId] = -1;
    }
}
