package dev.khameleon.core.scheduler;

/**
 * A complete binary tree over non-negative leaf values that keeps the maximum of every subtree:
 * set a leaf in {@code O(log K)}, read the largest value in {@code O(1)}, and find the leftmost
 * leaf whose value passes a monotone test in {@code O(log K)}. Each inner node holds one of its
 * leaves' values exactly, so a test applied to it is the same test applied to that leaf. Not
 * thread-safe.
 */
final class MaxTree {
    private final int base;
    private final double[] node;

    MaxTree(int leaves) {
        int size = 1;
        while (size < Math.max(1, leaves)) {
            size <<= 1;
        }
        this.base = size;
        this.node = new double[2 * size];
    }

    /** The largest leaf value; 0 when every leaf is 0. */
    double max() {
        return node[1];
    }

    void set(int k, double value) {
        int i = base + k;
        node[i] = value;
        for (i >>= 1; i >= 1; i >>= 1) {
            node[i] = Math.max(node[2 * i], node[2 * i + 1]);
        }
    }

    /**
     * The leftmost leaf whose value {@code v} has {@code factor · v >= threshold}, or -1 if none;
     * {@code factor > 0}, so the test is monotone in {@code v} and holds for some leaf of a
     * subtree exactly when it holds for the subtree's maximum.
     */
    int leftmostAtLeast(double factor, double threshold) {
        if (!(factor * node[1] >= threshold)) {
            return -1;
        }
        int i = 1;
        while (i < base) {
            i = factor * node[2 * i] >= threshold ? 2 * i : 2 * i + 1;
        }
        return i - base;
    }
}
