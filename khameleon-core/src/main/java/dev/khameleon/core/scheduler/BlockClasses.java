package dev.khameleon.core.scheduler;

import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/**
 * The requests grouped by block count {@code N}: one marginal-gain array per distinct
 * {@code N} (computed once with {@link UtilityFunction#marginalGains}, each gain of an existing
 * block raised to the configured floor), and the ids laid out
 * class by class so that a scheduler can keep, per class, the ids that are still untouched in
 * a prefix of its segment. Requests whose count is only an upper bound (counted lazily, see
 * {@link SchedulerConfig.Builder#lazyBlockCounts}) sit in the class of their bound and are also
 * numbered densely in {@link #lazyIds}. Immutable once built; shared by every scheduler built from
 * one {@link SchedulerConfig}.
 */
final class BlockClasses {
    final int requestCount;
    /** {@code counts[c]}: the block count {@code N} of class {@code c}. */
    final int[] counts;
    /**
     * {@code gains[c][b]}: the scheduling weight of block {@code b} in class {@code c}, its
     * marginal gain but at least the configured floor; {@code gains[c][N] = 0}.
     */
    final double[][] gains;
    /** {@code classOf[i]}: the class of request {@code i}, or {@code null} when there is a single class. */
    final int[] classOf;
    /** {@code start[c] .. start[c+1]}: the segment of class {@code c} in {@link #layout}. */
    final int[] start;
    /** The request ids ordered by class; {@code null} when there is a single class (identity). */
    final int[] layout;
    /**
     * {@code layoutIndex[i]}: the position of request {@code i} in {@link #layout} (its inverse);
     * {@code null} when there is a single class. With {@link #layout} the permutation every
     * scheduler of these classes starts from, shared instead of copied per scheduler.
     */
    final int[] layoutIndex;
    /**
     * {@code lazyIndex[i]}: the position of request {@code i} in {@link #lazyIds} if its count is
     * an upper bound, else -1; {@code null} when every count is exact.
     */
    final int[] lazyIndex;
    /** The requests whose count is an upper bound, ascending; empty when every count is exact. */
    final int[] lazyIds;

    private BlockClasses(int requestCount, int[] counts, double[][] gains, int[] classOf, int[] start, int[] layout) {
        this(requestCount, counts, gains, classOf, start, layout, layout == null ? null : inverse(layout), null,
                new int[0]);
    }

    private BlockClasses(int requestCount, int[] counts, double[][] gains, int[] classOf, int[] start, int[] layout,
                         int[] layoutIndex, int[] lazyIndex, int[] lazyIds) {
        this.requestCount = requestCount;
        this.counts = counts;
        this.gains = gains;
        this.classOf = classOf;
        this.start = start;
        this.layout = layout;
        this.layoutIndex = layoutIndex;
        this.lazyIndex = lazyIndex;
        this.lazyIds = lazyIds;
    }

    /**
     * These classes with the requests for which {@code isBound} holds counted lazily: their count
     * is an upper bound. Calls {@code isBound} once per request (twice when it holds for some, which
     * only then costs memory); returns {@code this} when it holds for none.
     */
    BlockClasses withLazyCounts(IntPredicate isBound) {
        int lazy = 0;
        for (int i = 0; i < requestCount; i++) {
            lazy += isBound.test(i) ? 1 : 0;
        }
        if (lazy == 0) {
            return this;
        }
        int[] index = new int[requestCount];
        lazy = 0;
        for (int i = 0; i < requestCount; i++) {
            index[i] = isBound.test(i) ? lazy++ : -1;
        }
        int[] ids = new int[lazy];
        for (int i = 0; i < requestCount; i++) {
            if (index[i] >= 0) {
                ids[index[i]] = i;
            }
        }
        return new BlockClasses(requestCount, counts, gains, classOf, start, layout, layoutIndex, index, ids);
    }

    private static int[] inverse(int[] permutation) {
        int[] inverse = new int[permutation.length];
        for (int p = 0; p < permutation.length; p++) {
            inverse[permutation[p]] = p;
        }
        return inverse;
    }

    /** Whether the count of {@code requestId} is an upper bound. */
    boolean isLazy(int requestId) {
        return lazyIndex != null && lazyIndex[requestId] >= 0;
    }

    static BlockClasses uniform(int requestCount, int blockCount, UtilityFunction utility, double minGain,
                                double gainShare) {
        return new BlockClasses(requestCount, new int[] {blockCount},
                new double[][] {schedulingGains(utility, blockCount, minGain, gainShare)}, null,
                new int[] {0, requestCount}, null);
    }

    static BlockClasses perRequest(int requestCount, IntUnaryOperator blockCount, UtilityFunction utility,
                                   double minGain, double gainShare) {
        Map<Integer, Integer> classByCount = new HashMap<>();
        int[] classOf = new int[requestCount];
        int[] countsBuf = new int[16];
        int[] sizes = new int[16];
        for (int i = 0; i < requestCount; i++) {
            int n = blockCount.applyAsInt(i);
            if (n < 1) {
                throw new IllegalArgumentException("blockCounts: request " + i + " has " + n + " blocks, must be >= 1");
            }
            Integer c = classByCount.get(n);
            if (c == null) {
                c = classByCount.size();
                classByCount.put(n, c);
                if (c == countsBuf.length) {
                    countsBuf = Arrays.copyOf(countsBuf, 2 * c);
                    sizes = Arrays.copyOf(sizes, 2 * c);
                }
                countsBuf[c] = n;
            }
            classOf[i] = c;
            sizes[c]++;
        }
        int classes = classByCount.size();
        if (classes == 1) {
            return uniform(requestCount, countsBuf[0], utility, minGain, gainShare);
        }
        int[] counts = Arrays.copyOf(countsBuf, classes);
        double[][] gains = new double[classes][];
        for (int c = 0; c < classes; c++) {
            gains[c] = schedulingGains(utility, counts[c], minGain, gainShare);
        }
        int[] start = new int[classes + 1];
        for (int c = 0; c < classes; c++) {
            start[c + 1] = start[c] + sizes[c];
        }
        int[] fill = Arrays.copyOf(start, classes);
        int[] layout = new int[requestCount];
        for (int i = 0; i < requestCount; i++) {
            layout[fill[classOf[i]]++] = i;
        }
        return new BlockClasses(requestCount, counts, gains, classOf, start, layout);
    }

    /**
     * The marginal gains of {@code blockCount} blocks, each raised to at least
     * {@code max(minGain, gainShare / blockCount)} (see {@link SchedulerConfig.Builder#minBlockGain}
     * and {@link SchedulerConfig.Builder#blockGainShare}): a request whose next block adds no
     * utility must still get it once nothing better is left, or the push would stall; and the
     * last blocks of a likely response must not be outbid by first blocks of unlikely ones.
     */
    static double[] schedulingGains(UtilityFunction utility, int blockCount, double minGain, double gainShare) {
        double[] g = utility.marginalGains(blockCount);
        double floor = Math.max(minGain, gainShare / blockCount);
        for (int b = 0; b < blockCount; b++) {
            g[b] = Math.max(g[b], floor);
        }
        return g;
    }

    int classCount() {
        return counts.length;
    }

    int classOf(int requestId) {
        return classOf == null ? 0 : classOf[requestId];
    }

    int blockCount(int requestId) {
        return counts[classOf(requestId)];
    }

    double[] gainsOf(int requestId) {
        return gains[classOf(requestId)];
    }
}
