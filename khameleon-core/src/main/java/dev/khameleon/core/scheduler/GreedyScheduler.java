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
 * learned ids' largest gain and lowest id in {@code O(log L)}.
 *
 * <p>This class keeps the block counts and the touched ids, and combines three parts that it
 * drives: {@link HorizonMixture} (the union and its trees), {@link UntouchedClasses} (the
 * untouched ids per class, fixed and learned) and {@link SlotWeights} (the scalars per slot).
 * Not thread-safe.
 */
final class GreedyScheduler extends BatchScheduler {
    private final HorizonMixture mixture;
    private final UntouchedClasses untouched;
    // The per-slot and per-touched state of a batch of C slots: null until startPlanning().
    private SlotWeights slots;
    /** The requests with a block in this batch, {@link #touchedCount} of them. */
    private int[] touched;
    /** {@code touchedBlocks[x]}: {@code B} of {@code touched[x]}; every other request has {@code B = 0}. */
    private int[] touchedBlocks;
    private SumTree touchedTree;
    /** {@code touchedIndex.get(i)}: the position of request {@code i} in {@link #touched}, or -1. */
    private final IdTable touchedIndex;
    private int touchedCount;
    /** How often {@link #compactIfDrifted} has put the permutation back to the layout. */
    private int compactions;

    /** Scratch for {@link #install}: the untouched learned ids of the old union. */
    private int[] leavingLearned = new int[0];

    GreedyScheduler(SchedulerConfig config) {
        this(config, IdTable.sparseFor(config.requestCount()));
    }

    /**
     * A scheduler whose per-request state is in sparse tables ({@link SparseIdTable}) if
     * {@code sparse}, else in arrays of {@code n}; {@link Schedulers#greedy} chooses by {@code n}
     * ({@link IdTable#DENSE_LIMIT}), tests choose either.
     */
    GreedyScheduler(SchedulerConfig config, boolean sparse) {
        super(config, sparse);
        int n = requestCount;
        this.mixture = new HorizonMixture(n, sparse);
        this.untouched = new UntouchedClasses(classes, config.selection(), random, sparse);
        this.touchedIndex = IdTable.of(n, IdTable.Defaults.constant(-1), sparse);
    }

    @Override
    void startPlanning() {
        this.slots = new SlotWeights(cacheBlocks);
        this.touched = new int[cacheBlocks];
        this.touchedBlocks = new int[cacheBlocks];
        this.touchedTree = new SumTree(cacheBlocks);
    }

    /** {@code B} of {@code requestId}: its blocks planned in this batch. */
    private int blocks(int requestId) {
        int ti = touchedIndex.get(requestId);
        return ti < 0 ? 0 : touchedBlocks[ti];
    }

    @Override
    void countKnown(int requestId, double[] gains) {
        int k = mixture.index.get(requestId);
        int ti = touchedIndex.get(requestId);
        int b = ti < 0 ? 0 : touchedBlocks[ti];
        untouched.learn(requestId, gains, k < 0 && b == 0);
        if (k >= 0) {
            mixture.setLeaves(k, untouched.gain(requestId, b));
        } else if (b > 0) {
            touchedTree.set(ti, untouched.gain(requestId, b));
        }
    }

    private static int[] grow(int[] a, int size) {
        return size < a.length ? a : Arrays.copyOf(a, Math.max(16, 2 * a.length));
    }

    @Override
    int increment(int requestId) {
        int ti = touchedIndex.get(requestId);
        int k = mixture.index.get(requestId);
        int b;
        if (ti < 0) {
            b = 0;
            ti = touchedCount++;
            touched[ti] = requestId;
            touchedBlocks[ti] = 1;
            touchedIndex.set(requestId, ti);
            if (k < 0) {
                untouched.remove(requestId);
            }
        } else {
            b = touchedBlocks[ti]++;
        }
        double g = untouched.gain(requestId, b + 1);
        if (k >= 0) {
            mixture.setLeaves(k, g);
        } else {
            touchedTree.set(ti, g);
        }
        return b;
    }

    @Override
    void decrement(int requestId) {
        int ti = touchedIndex.get(requestId);
        int b = --touchedBlocks[ti];
        int k = mixture.index.get(requestId);
        if (b == 0) {
            removeTouched(requestId, ti);
            if (k < 0) {
                untouched.add(requestId);
            }
        } else if (k < 0) {
            touchedTree.set(ti, untouched.gain(requestId, b));
        }
        if (k >= 0) {
            mixture.setLeaves(k, untouched.gain(requestId, b));
        }
    }

    @Override
    void resetBatch() {
        for (int x = 0; x < touchedCount; x++) {
            int id = touched[x];
            touchedBlocks[x] = 0;
            touchedIndex.set(id, -1);
            int k = mixture.index.get(id);
            if (k >= 0) {
                mixture.setLeaves(k, untouched.gain(id, 0));
            } else {
                untouched.add(id);
            }
        }
        touchedCount = 0;
        touchedTree.clear();
        compactIfDrifted();
    }

    /**
     * With sparse tables, puts the permutation of the untouched ids back to the layout once the
     * positions its swaps changed are many more than the ids out of it (the union, the touched and
     * the learned ones) need: a swap never restores the layout, so without this the changed
     * positions would grow towards {@code n} over a long session. {@code O(K + C + L)}, at most
     * once per {@code C} touched ids or so. Keeps every draw's distribution exact; the draws after
     * the first restart differ from a dense scheduler's (which never needs one).
     */
    private void compactIfDrifted() {
        int changed = untouched.changedPositions();
        if (changed < 0 || changed <= compactionThreshold()) {
            return;
        }
        untouched.restart();
        for (int k = 0; k < mixture.size; k++) {
            int id = mixture.ids[k];
            if (!untouched.isLearned(id)) {
                untouched.remove(id);
            }
        }
        for (int x = 0; x < touchedCount; x++) {
            int id = touched[x];
            if (mixture.index.get(id) < 0 && !untouched.isLearned(id)) {
                untouched.remove(id);
            }
        }
        compactions++;
    }

    /**
     * The changed positions above which {@link #compactIfDrifted} restarts the permutation: twice
     * what the restart itself leaves at most ({@code 2} per id removed from the layout), plus
     * room for one batch of touched ids, so that the first batch never restarts.
     */
    private long compactionThreshold() {
        return 4L * cacheBlocks + 2L * (mixture.size + classes.lazyIds.length) + 1024;
    }

    /** How often the permutation was restarted ({@link #compactIfDrifted}); for tests. */
    int compactions() {
        return compactions;
    }

    /**
     * The ints this scheduler's per-request and per-position tables hold (their arrays' lengths):
     * {@code 4n} when dense ({@code 5n} with a concurrency limit), about {@code 2} per changed entry when sparse; for tests.
     */
    long requestStateInts() {
        return untouched.retainedInts() + mixture.index.retainedInts() + touchedIndex.retainedInts()
                + chunkMarkInts();
    }

    @Override
    void install(Distribution d) {
        HorizonMixture mix = mixture;
        // An untouched learned id leaving the old union joins its class's prefix only once the new
        // union is known: one that stays in the union then costs no move.
        int leaving = 0;
        for (int x = 0; x < mix.size; x++) {
            int id = mix.ids[x];
            mix.index.set(id, -1);
            int b = blocks(id);
            if (b == 0) {
                if (untouched.isLearned(id)) {
                    leavingLearned = grow(leavingLearned, leaving);
                    leavingLearned[leaving++] = id;
                } else {
                    untouched.add(id);
                }
            } else {
                touchedTree.set(touchedIndex.get(id), untouched.gain(id, b));
            }
        }
        mix.reserve(d);
        // Number the union in order of first appearance: O(m·K), no sort needed.
        int m = d.horizonCount();
        for (int j = 0; j < m; j++) {
            int count = d.explicitCount(j);
            for (int e = 0; e < count; e++) {
                int id = d.explicitId(j, e);
                if (mix.enter(id)) {
                    int ti = touchedIndex.get(id);
                    if (ti < 0) {
                        if (!untouched.isLearned(id) || untouched.isLearnedAvailable(id)) {
                            untouched.remove(id);
                        }
                    } else {
                        touchedTree.set(ti, 0.0);
                    }
                }
            }
        }
        for (int x = 0; x < leaving; x++) {
            int id = leavingLearned[x];
            if (mix.index.get(id) < 0) {
                untouched.add(id);
            }
        }
        compactIfDrifted();
        double[] gains = mix.scratch;
        for (int k = 0; k < mix.size; k++) {
            int id = mix.ids[k];
            gains[k] = untouched.gain(id, blocks(id));
        }
        mix.build(d, config.fades(), requestCount);
    }

    @Override
    void prepare(long batchStartSeq, int fromPos) {
        slots.prepare(this, mixture, batchStartSeq, fromPos);
    }

    @Override
    double weight(int t, int requestId) {
        // Read back from the sampling structures themselves, so a test of this also tests them.
        int parts = mixture.parts;
        int k = mixture.index.get(requestId);
        if (k >= 0) {
            double w = 0;
            for (int j = 0; j < parts; j++) {
                w += slots.perSlot[t * parts + j] * mixture.trees[j].get(k);
            }
            return w;
        }
        int ti = touchedIndex.get(requestId);
        if (ti >= 0) {
            return slots.residual[t] * touchedTree.get(ti);
        }
        return untouched.weight(requestId, slots.residual[t]);
    }

    @Override
    int sample(int t) {
        int m = mixture.parts;
        int row = t * m;
        double[] w = slots.perSlot;
        SumTree[] trees = mixture.trees;
        double groupTotal = untouched.classTree.total() + touchedTree.total();
        if (untouched.learnedClassTree != null) {
            groupTotal += untouched.learnedClassTree.total();
        }
        double groupWeight = slots.residual[t] * groupTotal;
        double z = groupWeight;
        for (int j = 0; j < m; j++) {
            z += w[row + j] * trees[j].total();
        }
        if (!(z > 0)) {
            return -1;
        }
        double x = random.nextDouble() * z;
        int lastPositive = -1;
        for (int j = 0; j < m; j++) {
            double c = w[row + j] * trees[j].total();
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
     * {@link HorizonMixture#scratch} between the passes) and so are the touched ids ({@code O(C)};
     * a touched union id has leaf 0 in the touched tree and never qualifies there). Untouched ids
     * outside the union share one gain per block-count class, {@code residualWeight · g_c(0)}, so
     * a class is compared once ({@link UntouchedClasses#largestGain}).
     */
    @Override
    int best(int t) {
        int m = mixture.parts;
        int row = t * m;
        int unionSize = mixture.size;
        double[] w = slots.perSlot;
        SumTree[] trees = mixture.trees;
        double[] gains = mixture.scratch;
        double max = 0;
        for (int k = 0; k < unionSize; k++) {
            double v = 0;
            for (int j = 0; j < m; j++) {
                v += w[row + j] * trees[j].get(k);
            }
            gains[k] = v;
            max = Math.max(max, v);
        }
        double rho = slots.residual[t];
        if (rho > 0) {
            for (int x = 0; x < touchedCount; x++) {
                max = Math.max(max, rho * touchedTree.get(x));
            }
            max = untouched.largestGain(rho, max);
        }
        if (!(max > 0)) {
            return -1;
        }
        double threshold = tieThreshold(max);
        int best = Integer.MAX_VALUE;
        int[] unionIds = mixture.ids;
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
            best = untouched.lowestAtLeast(rho, threshold, best);
        }
        return best;
    }

    private int sampleHorizon(int j) {
        SumTree tree = mixture.trees[j];
        return mixture.ids[tree.sample(random.nextDouble() * tree.total())];
    }

    private int sampleGroup() {
        SumTree learnedClassTree = untouched.learnedClassTree;
        double su = untouched.classTree.total();
        double st = touchedTree.total();
        double sl = learnedClassTree == null ? 0.0 : learnedClassTree.total();
        double v = random.nextDouble() * (su + st + sl);
        if (su > 0 && ((st <= 0 && sl <= 0) || v < su)) {
            return untouched.drawFixed(v);
        }
        double x = su > 0 ? v - su : v;
        if (sl <= 0 || (st > 0 && x < st)) {
            return touched[touchedTree.sample(x)];
        }
        return untouched.drawLearned(st > 0 ? x - st : x);
    }

    /** Takes {@code requestId}, at {@code ti} in {@link #touched} and now with no block, out of it. */
    private void removeTouched(int requestId, int ti) {
        int last = --touchedCount;
        int moved = touched[last];
        touched[ti] = moved;
        touchedBlocks[ti] = touchedBlocks[last];
        touchedBlocks[last] = 0;
        touchedIndex.set(moved, ti);
        touchedTree.set(ti, touchedTree.get(last));
        touchedTree.set(last, 0.0);
        touchedIndex.set(requestId, -1);
    }
}
