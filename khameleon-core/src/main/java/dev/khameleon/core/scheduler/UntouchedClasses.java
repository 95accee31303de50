package dev.khameleon.core.scheduler;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * The requests of {@link GreedyScheduler}'s residual group that are still untouched, kept per
 * block-count class so that the group can draw a class {@code ∝ count · g(0)} and then an id of it
 * uniformly in {@code O(1)}, with no rejection.
 *
 * <p>A fixed class keeps its untouched ids in the prefix of its segment of a permutation of all
 * ids. A lazily counted request stays in the class of its bound until its exact count is told
 * ({@link #learn}); if that differs from the bound, it moves for good to a <em>learned class</em>
 * of its exact count (an array of members per count, its untouched ones in a prefix). Under
 * {@link Selection#MAX_GAIN} a max tree over the lazily counted requests gives the untouched
 * learned ids' largest gain and lowest id in {@code O(log L)}.
 *
 * <p>The caller decides which ids are untouched (outside the union and with no block in the
 * batch) and tells each change by {@link #remove} and {@link #add}. Not thread-safe.
 */
final class UntouchedClasses {
    private final BlockClasses classes;
    private final RandomGenerator random;

    /** Position → id: the class layout (or identity) changed by the swaps of {@link #remove} and {@link #add}. */
    private final IdTable perm;
    /** Id → position: the inverse of {@link #perm}. */
    private final IdTable pos;
    private final int[] available;
    /** Leaf {@code c}: {@code available[c] · g_c(0)}; read by the group draw. */
    final SumTree classTree;

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
    /**
     * Leaf {@code K}: {@code learnedAvailable[K] · g_K(0)}; read by the group draw. {@code null}
     * when every count is exact.
     */
    final SumTree learnedClassTree;
    /**
     * Leaf {@code k}: {@code g_K(0)} of lazily counted request {@code lazyIds[k]} while it is an
     * untouched member of learned class {@code K}, else 0; only under {@link Selection#MAX_GAIN}.
     */
    private final MaxTree learnedMax;

    /**
     * Every request untouched, in the class of its (bound) block count; draws take their
     * randomness from {@code random}, the scheduler's own source. With {@code sparse}, the
     * permutation keeps only the positions its swaps changed from the shared layout.
     */
    UntouchedClasses(BlockClasses classes, Selection selection, RandomGenerator random, boolean sparse) {
        this.classes = classes;
        this.random = random;
        int n = classes.requestCount;
        this.perm = IdTable.of(n, IdTable.Defaults.of(classes.layout), sparse);
        this.pos = IdTable.of(n, IdTable.Defaults.of(classes.layoutIndex), sparse);
        int d = classes.classCount();
        this.available = new int[d];
        this.classTree = new SumTree(d);
        fillClasses();
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
            this.learnedMax = selection == Selection.MAX_GAIN ? new MaxTree(lazy) : null;
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

    /** Counts every id of each fixed class as untouched. */
    private void fillClasses() {
        for (int c = 0; c < available.length; c++) {
            available[c] = classes.start[c + 1] - classes.start[c];
            classTree.set(c, available[c] * classes.gains[c][0]);
        }
    }

    /**
     * How many positions of the permutation differ from the layout, or -1 when it is dense. The
     * swaps never put the layout back, so this grows with the ids touched since the last
     * {@link #restart}, batch after batch.
     */
    int changedPositions() {
        return perm.changed();
    }

    /**
     * Puts the permutation back to the layout, every id of the fixed classes untouched except the
     * learned ones (which are out of them for good); the caller then {@link #remove}s the ids that
     * are not untouched. Keeps the draw exact (an id uniform among its class's untouched ones) but
     * not the order of the untouched ids, so later draws differ from those without the restart.
     */
    void restart() {
        perm.reset();
        pos.reset();
        fillClasses();
        if (learnedGains != null) {
            for (int k = 0; k < learnedGains.length; k++) {
                if (learnedGains[k] != null) {
                    removeFixed(classes.lazyIds[k]);
                }
            }
        }
    }

    /** The ints the permutation holds: {@code 2n} when dense. */
    long retainedInts() {
        return perm.retainedInts() + pos.retainedInts();
    }

    /**
     * The scheduling weight of block {@code b} of {@code requestId} under its current class, fixed
     * or learned; 0 for a block past a learned count.
     */
    double gain(int requestId, int b) {
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

    /** Whether {@code requestId} has moved to a learned class or was dropped. */
    boolean isLearned(int requestId) {
        return learnedGains != null && learnedOf(requestId) != null;
    }

    /** Whether learned {@code requestId} is an untouched member (in the prefix) of its class. */
    boolean isLearnedAvailable(int requestId) {
        int lk = classes.lazyIndex[requestId];
        int count = learnedGains[lk].length - 1;
        return count > 0 && learnedPos[lk] < learnedAvailable[count];
    }

    /**
     * Moves lazily counted {@code requestId} for good to the learned class of its exact count
     * {@code gains.length − 1} (none when dropped); {@code untouched} says whether it is now
     * counted as untouched, and it stays so in its new class.
     */
    void learn(int requestId, double[] gains, boolean untouched) {
        int lk = classes.lazyIndex[requestId];
        boolean wasLearned = learnedGains[lk] != null;
        if (untouched) {
            remove(requestId);
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
            add(requestId);
        }
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

    /** {@code rho · g(0)} of {@code requestId} if it is untouched, else 0. */
    double weight(int requestId, double rho) {
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            return isLearnedAvailable(requestId) ? rho * learned[0] : 0.0;
        }
        int c = classes.classOf(requestId);
        boolean isAvailable = pos.get(requestId) < classes.start[c] + available[c];
        return isAvailable ? rho * classes.gains[c][0] : 0.0;
    }

    /**
     * An untouched id of a fixed class, the class being the leaf {@link #classTree} gives for
     * {@code u} and the id uniform among its untouched ones; requires {@code classTree.total() > 0}.
     */
    int drawFixed(double u) {
        int c = classTree.sample(u);
        return perm.get(classes.start[c] + random.nextInt(available[c]));
    }

    /** As {@link #drawFixed}, from the learned classes and {@link #learnedClassTree}. */
    int drawLearned(double u) {
        int count = learnedClassTree.sample(u);
        return learnedMembers[count][random.nextInt(learnedAvailable[count])];
    }

    /**
     * The larger of {@code max} and the largest {@code rho · g(0)} of an untouched id; one step
     * per fixed class and {@code O(1)} for the learned ones.
     */
    double largestGain(double rho, double max) {
        int classCount = classes.classCount();
        for (int c = 0; c < classCount; c++) {
            if (available[c] > 0) {
                max = Math.max(max, rho * classes.gains[c][0]);
            }
        }
        if (learnedMax != null) {
            max = Math.max(max, rho * learnedMax.max());
        }
        return max;
    }

    /**
     * The smaller of {@code best} and the lowest untouched id whose {@code rho · g(0)} is at least
     * {@code threshold}; {@code rho > 0}.
     */
    int lowestAtLeast(double rho, double threshold, int best) {
        int classCount = classes.classCount();
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
        return best;
    }

    /**
     * The lowest untouched id of class {@code c} (which must have one): walks the class's ids in
     * increasing order, skipping the unavailable ones, so it costs at most one step per union or
     * touched id of the class, {@code O(K + C)}.
     */
    private int lowestAvailable(int c) {
        int end = classes.start[c] + available[c];
        int[] layout = classes.layout;
        for (int p = classes.start[c]; ; p++) {
            int id = layout == null ? p : layout[p];
            if (pos.get(id) < end) {
                return id;
            }
        }
    }

    /** Takes untouched {@code requestId} out of its class's untouched ids. */
    void remove(int requestId) {
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            moveLearned(requestId, learned.length - 1, -1);
            return;
        }
        removeFixed(requestId);
    }

    private void removeFixed(int requestId) {
        int c = classes.classOf(requestId);
        int last = classes.start[c] + available[c] - 1;
        swap(pos.get(requestId), last);
        available[c]--;
        classTree.set(c, available[c] * classes.gains[c][0]);
    }

    /** Puts {@code requestId}, which has just become untouched, among its class's untouched ids. */
    void add(int requestId) {
        double[] learned = learnedGains == null ? null : learnedOf(requestId);
        if (learned != null) {
            moveLearned(requestId, learned.length - 1, +1);
            return;
        }
        int c = classes.classOf(requestId);
        int first = classes.start[c] + available[c];
        swap(pos.get(requestId), first);
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
        if (a == b) {
            return;
        }
        int ia = perm.get(a);
        int ib = perm.get(b);
        perm.set(a, ib);
        perm.set(b, ia);
        pos.set(ib, a);
        pos.set(ia, b);
    }
}
