package dev.khameleon.core.protocol;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * The block count of every request, compactly: a default count plus the requests whose count
 * differs ("exceptions"), as carried by the welcome message.
 *
 * <p>When {@link #complete()} is false the exceptions were cut at a limit, and the count of a
 * request not listed is unknown (a client learns it from that request's block frames). Immutable.
 */
public final class BlockCounts {
    private final int defaultCount;
    private final int[] ids;
    private final int[] counts;
    private final boolean complete;

    private BlockCounts(int defaultCount, int[] ids, int[] counts, boolean complete) {
        this.defaultCount = defaultCount;
        this.ids = ids;
        this.counts = counts;
        this.complete = complete;
    }

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

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockCounts other && defaultCount == other.defaultCount && complete == other.complete
                && Arrays.equals(ids, other.ids) && Arrays.equals(counts, other.counts);
    }

    @Override
    public int hashCode() {
        return (defaultCount * 31 + Arrays.hashCode(ids)) * 31 + Arrays.hashCode(counts) + (complete ? 1 : 0);
    }

    @Override
    public String toString() {
        return "BlockCounts[default=" + defaultCount + ", exceptions=" + ids.length + ", complete=" + complete + "]";
    }
}
