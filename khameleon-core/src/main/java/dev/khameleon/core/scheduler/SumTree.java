package dev.khameleon.core.scheduler;

import java.util.Arrays;

/**
 * A complete binary sum tree over non-negative leaf weights: set a leaf in {@code O(log K)},
 * read the total in {@code O(1)}, draw a leaf with probability proportional to its weight in
 * {@code O(log K)}.
 *
 * <p>It plays the role of a Fenwick tree but recomputes each inner node from its two children
 * instead of adding deltas, so rounding never drifts: a subtree whose leaves are all zero sums
 * to exactly zero, and {@link #sample} therefore never returns a zero-weight leaf while the
 * total is positive. Not thread-safe.
 */
final class SumTree {
    private final int leaves;
    private final int base;
    private final double[] node;

    SumTree(int leaves) {
        this.leaves = leaves;
        int size = 1;
        while (size < Math.max(1, leaves)) {
            size <<= 1;
        }
        this.base = size;
        this.node = new double[2 * size];
    }

    int leaves() {
        return leaves;
    }

    double total() {
        return node[1];
    }

    double get(int k) {
        return node[base + k];
    }

    void set(int k, double weight) {
        int i = base + k;
        node[i] = weight;
        for (i >>= 1; i >= 1; i >>= 1) {
            node[i] = node[2 * i] + node[2 * i + 1];
        }
    }

    /** Sets every leaf to zero. */
    void clear() {
        Arrays.fill(node, 0.0);
    }

    /** Replaces all leaves at once from {@code weights[0..leaves)} in {@code O(K)}. */
    void build(double[] weights) {
        System.arraycopy(weights, 0, node, base, leaves);
        rebuildInnerNodes();
    }

    /**
     * Sets leaf {@code k} to {@code a[k] · b[k]} for {@code k < count} and every other leaf to
     * zero, in {@code O(capacity)}.
     */
    void build(double[] a, double[] b, int count) {
        for (int k = 0; k < count; k++) {
            node[base + k] = a[k] * b[k];
        }
        Arrays.fill(node, base + count, 2 * base, 0.0);
        rebuildInnerNodes();
    }

    private void rebuildInnerNodes() {
        for (int i = base - 1; i >= 1; i--) {
            node[i] = node[2 * i] + node[2 * i + 1];
        }
    }

    /**
     * The leaf at which the running sum first exceeds {@code u}, for {@code u} in
     * {@code [0, total())}; a zero-weight subtree is never entered. Requires {@code total() > 0}.
     */
    int sample(double u) {
        int i = 1;
        while (i < base) {
            int left = 2 * i;
            double l = node[left];
            double r = node[left + 1];
            if (r <= 0 || (u < l && l > 0)) {
                i = left;
            } else if (l <= 0) {
                i = left + 1;
            } else {
                u -= l;
                i = left + 1;
            }
        }
        return i - base;
    }
}
