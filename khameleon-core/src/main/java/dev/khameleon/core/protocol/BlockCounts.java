package dev.khameleon.core.protocol;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/**
 * The block count of every request, compactly: a default count plus the requests whose count
 * differs ("exceptions"), as carried by the welcome message.
 *
 * <p>When {@link #complete()} is false the exceptions were cut at a limit, and the count of a
 * request not listed is unknown (a client learns it from that request's block frames).
 *
 * <p>Requests in the {@linkplain #lazyRangeCount() lazy ranges} have counts told lazily: their
 * count here is an upper bound, and the exact count comes with their block frames. A range may
 * cover requests whose count is exact (a bound that is reached is still a bound). Immutable.
 */
public final class BlockCounts {
    private final int defaultCount;
    private final int[] ids;
    private final int[] counts;
    private final boolean complete;
    private final int[] lazyFirst;
    private final int[] lazyLast;

    private BlockCounts(int defaultCount, int[] ids, int[] counts, boolean complete) {
        this(defaultCount, ids, counts, complete, NONE, NONE);
    }

    private BlockCounts(int defaultCount, int[] ids, int[] counts, boolean complete, int[] lazyFirst, int[] lazyLast) {
        this.defaultCount = defaultCount;
        this.ids = ids;
        this.counts = counts;
        this.complete = complete;
        this.lazyFirst = lazyFirst;
        this.lazyLast = lazyLast;
    }

    private static final int[] NONE = new int[0];

    /** Every request has {@code count} blocks. */
    public static BlockCounts uniform(int count) {
        return of(count, new int[0], new int[0], true);
    }

    /**
     * Creates counts from a default and exceptions, copying the arrays.
     *
     * @throws ProtocolException if {@code defaultCount < 1}, the arrays differ in length, ids are
     *     negative or not strictly ascending, or a count is {@code < 1}
     */
    public static BlockCounts of(int defaultCount, int[] ids, int[] counts, boolean complete) {
        Fields.checkMin("blockCounts.default", defaultCount, 1);
        if (ids.length != counts.length) {
            throw Fields.invalid("blockCounts: " + ids.length + " ids but " + counts.length + " counts");
        }
        for (int k = 0; k < ids.length; k++) {
            Fields.checkMin("blockCounts.exceptions[" + k + "] request id", ids[k], 0);
            Fields.checkMin("blockCounts.exceptions[" + k + "] count", counts[k], 1);
            if (k > 0 && ids[k] <= ids[k - 1]) {
                throw Fields.invalid("blockCounts.exceptions: request ids must be strictly ascending, but "
                        + ids[k] + " follows " + ids[k - 1]);
            }
        }
        return new BlockCounts(defaultCount, ids.clone(), counts.clone(), complete);
    }

    /**
     * These counts with the requests {@code lazyFirst[k]..lazyLast[k]} (inclusive) counted lazily:
     * their counts are upper bounds. Copies the arrays.
     *
     * @throws ProtocolException if the arrays differ in length, a range is empty or starts below 0,
     *     or the ranges are not ascending and disjoint ({@code lazyFirst[k] > lazyLast[k-1]})
     */
    public BlockCounts withLazyRanges(int[] lazyFirst, int[] lazyLast) {
        if (lazyFirst.length != lazyLast.length) {
            throw Fields.invalid("blockCounts.lazy: " + lazyFirst.length + " starts but " + lazyLast.length + " ends");
        }
        for (int k = 0; k < lazyFirst.length; k++) {
            Fields.checkMin("blockCounts.lazy[" + k + "] first request id", lazyFirst[k], 0);
            if (lazyLast[k] < lazyFirst[k]) {
                throw Fields.invalid("blockCounts.lazy[" + k + "]: last request id " + lazyLast[k]
                        + " is below the first " + lazyFirst[k]);
            }
            if (k > 0 && lazyFirst[k] <= lazyLast[k - 1]) {
                throw Fields.invalid("blockCounts.lazy: ranges must be ascending and disjoint, but range " + k
                        + " starts at " + lazyFirst[k] + ", not after " + lazyLast[k - 1]);
            }
        }
        return new BlockCounts(defaultCount, ids, counts, complete, lazyFirst.clone(), lazyLast.clone());
    }

    /**
     * {@link #summarize(int, IntUnaryOperator, int)}, and the requests for which {@code isBound}
     * holds as lazy ranges: at most {@code maxExceptions} of them; when there would be more, one
     * range from the first such request to the last (it then covers some exact counts too, which
     * is harmless). Costs {@code O(n)} time once.
     *
     * @throws IllegalArgumentException as {@link #summarize(int, IntUnaryOperator, int)}
     */
    public static BlockCounts summarize(int requestCount, IntUnaryOperator blockCount, IntPredicate isBound,
                                        int maxExceptions) {
        BlockCounts exact = summarize(requestCount, blockCount, maxExceptions);
        boolean[] bound = new boolean[requestCount];
        int ranges = 0;
        int first = -1;
        int last = -1;
        for (int i = 0; i < requestCount; i++) {
            bound[i] = isBound.test(i);
            if (bound[i]) {
                if (i == 0 || !bound[i - 1]) {
                    ranges++;
                }
                first = first < 0 ? i : first;
                last = i;
            }
        }
        if (ranges == 0) {
            return exact;
        }
        if (ranges > maxExceptions) {
            return new BlockCounts(exact.defaultCount, exact.ids, exact.counts, exact.complete, new int[] {first},
                    new int[] {last});
        }
        int[] from = new int[ranges];
        int[] to = new int[ranges];
        int k = -1;
        for (int i = 0; i < requestCount; i++) {
            if (bound[i]) {
                if (i == 0 || !bound[i - 1]) {
                    from[++k] = i;
                }
                to[k] = i;
            }
        }
        return new BlockCounts(exact.defaultCount, exact.ids, exact.counts, exact.complete, from, to);
    }

    /**
     * Summarises the counts of requests {@code 0..requestCount-1}: the most frequent count becomes
     * the default and the others are listed, up to {@code maxExceptions} of them (the result is
     * then not {@link #complete()}). Costs {@code O(n)} time once; call it once per application.
     *
     * @throws IllegalArgumentException if {@code requestCount < 1}, {@code maxExceptions < 0} or a
     *     count is {@code < 1}
     */
    public static BlockCounts summarize(int requestCount, IntUnaryOperator blockCount, int maxExceptions) {
        if (requestCount < 1) {
            throw new IllegalArgumentException("requestCount must be >= 1, was " + requestCount);
        }
        if (maxExceptions < 0) {
            throw new IllegalArgumentException("maxExceptions must be >= 0, was " + maxExceptions);
        }
        int[] all = new int[requestCount];
        Map<Integer, Integer> frequency = new HashMap<>();
        for (int i = 0; i < requestCount; i++) {
            int c = blockCount.applyAsInt(i);
            if (c < 1) {
                throw new IllegalArgumentException("block count of request " + i + " must be >= 1, was " + c);
            }
            all[i] = c;
            frequency.merge(c, 1, Integer::sum);
        }
        int mode = all[0];
        int best = 0;
        for (Map.Entry<Integer, Integer> e : frequency.entrySet()) {
            if (e.getValue() > best || (e.getValue() == best && e.getKey() < mode)) {
                mode = e.getKey();
                best = e.getValue();
            }
        }
        int others = requestCount - best;
        int listed = Math.min(others, maxExceptions);
        int[] ids = new int[listed];
        int[] counts = new int[listed];
        int k = 0;
        for (int i = 0; i < requestCount && k < listed; i++) {
            if (all[i] != mode) {
                ids[k] = i;
                counts[k++] = all[i];
            }
        }
        return new BlockCounts(mode, ids, counts, listed == others);
    }

    /** The count of every request not listed as an exception (when {@link #complete()}). */
    public int defaultCount() {
        return defaultCount;
    }

    /** The number of listed exceptions. */
    public int exceptionCount() {
        return ids.length;
    }

    /** The request id of the {@code k}-th exception (ids ascend with {@code k}). */
    public int exceptionId(int k) {
        return ids[k];
    }

    /** The block count of the {@code k}-th exception. */
    public int exceptionBlockCount(int k) {
        return counts[k];
    }

    /** Whether every exception is listed, so that {@link #countOf} is exact for every request. */
    public boolean complete() {
        return complete;
    }

    /**
     * The block count of {@code requestId}: its exception if listed, else the default (which is
     * exact only when {@link #complete()}). {@code O(log k)}.
     */
    public int countOf(int requestId) {
        int k = Arrays.binarySearch(ids, requestId);
        return k >= 0 ? counts[k] : defaultCount;
    }

    /** The number of lazy ranges; 0 when every count is exact. */
    public int lazyRangeCount() {
        return lazyFirst.length;
    }

    /** The first request id of the {@code k}-th lazy range (ranges ascend with {@code k}). */
    public int lazyFirst(int k) {
        return lazyFirst[k];
    }

    /** The last request id (inclusive) of the {@code k}-th lazy range. */
    public int lazyLast(int k) {
        return lazyLast[k];
    }

    /**
     * Whether the count of {@code requestId} is only an upper bound (it lies in a lazy range): its
     * exact count comes with its block frames. {@code O(log r)} for {@code r} ranges.
     */
    public boolean isBound(int requestId) {
        int k = Arrays.binarySearch(lazyFirst, requestId);
        if (k >= 0) {
            return true;
        }
        int before = -k - 2;
        return before >= 0 && requestId <= lazyLast[before];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockCounts other && defaultCount == other.defaultCount && complete == other.complete
                && Arrays.equals(ids, other.ids) && Arrays.equals(counts, other.counts)
                && Arrays.equals(lazyFirst, other.lazyFirst) && Arrays.equals(lazyLast, other.lazyLast);
    }

    @Override
    public int hashCode() {
        int h = (defaultCount * 31 + Arrays.hashCode(ids)) * 31 + Arrays.hashCode(counts) + (complete ? 1 : 0);
        return (h * 31 + Arrays.hashCode(lazyFirst)) * 31 + Arrays.hashCode(lazyLast);
    }

    @Override
    public String toString() {
        return "BlockCounts[default=" + defaultCount + ", exceptions=" + ids.length + ", complete=" + complete
                + (lazyFirst.length > 0 ? ", lazyRanges=" + lazyFirst.length : "") + "]";
    }
}
