package dev.khameleon.core;

import java.util.Arrays;

/**
 * What some request ids mean in one session: each listed request id answers the content with the
 * given <em>content key</em> instead of its default content. Every id not listed keeps its
 * default meaning, whose content key is the id itself; binding an id to its own id is that default
 * and is not stored.
 *
 * <p>A {@link dev.khameleon.core.spi.RequestScope} returns one of these for each scope a client
 * sends (e.g. "the histogram of view 2 at brush position 17 means the counts under the brushes on
 * views 0 and 1"); the server then tells the client which ids changed meaning and pushes their new
 * content. Content keys are the application's own numbering (a hash, an index into its table of
 * filters, …); the {@link dev.khameleon.core.spi.BlockSource} fetches by them.
 *
 * <p>Immutable and thread-safe; ids are kept in ascending order, so {@link #contentKey(int)} is a
 * binary search.
 */
public final class Bindings {
    private static final Bindings NONE = new Bindings(new int[0], new long[0]);

    private final int[] ids;
    private final long[] keys;

    private Bindings(int[] ids, long[] keys) {
        this.ids = ids;
        this.keys = keys;
    }

    /** No bindings: every request id has its default meaning. */
    public static Bindings none() {
        return NONE;
    }

    /** Starts an empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** How many request ids are bound to other content than their default. */
    public int size() {
        return ids.length;
    }

    /** The {@code k}-th bound request id, in ascending order, {@code 0 <= k < size()}. */
    public int requestId(int k) {
        return ids[k];
    }

    /** The content key the {@code k}-th bound request id answers. */
    public long contentKeyAt(int k) {
        return keys[k];
    }

    /** The content key {@code requestId} answers: its binding, or {@code requestId} itself if unbound. */
    public long contentKey(int requestId) {
        int k = indexOf(requestId);
        return k >= 0 ? keys[k] : requestId;
    }

    /** The position of {@code requestId} among the bound ids, or a negative number if it is unbound. */
    public int indexOf(int requestId) {
        return Arrays.binarySearch(ids, requestId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bindings b && Arrays.equals(ids, b.ids) && Arrays.equals(keys, b.keys);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(ids) + Arrays.hashCode(keys);
    }

    @Override
    public String toString() {
        return "Bindings[" + ids.length + " ids" + (ids.length == 0 ? "" : ", first " + ids[0] + " -> " + keys[0])
                + "]";
    }

    /** Collects bindings in any order; not thread-safe. */
    public static final class Builder {
        private int[] ids = new int[16];
        private long[] keys = new long[16];
        private int size;

        private Builder() {
        }

        /**
         * Binds {@code requestId} to the content {@code contentKey} ({@code contentKey == requestId}
         * is the default meaning: accepted, not stored).
         *
         * @throws IllegalArgumentException if {@code requestId < 0}
         */
        public Builder bind(int requestId, long contentKey) {
            if (requestId < 0) {
                throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
            }
            if (contentKey == requestId) {
                return this;
            }
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, 2 * size);
                keys = Arrays.copyOf(keys, 2 * size);
            }
            ids[size] = requestId;
            keys[size] = contentKey;
            size++;
            return this;
        }

        /**
         * The bindings, ids sorted.
         *
         * @throws IllegalArgumentException if a request id was bound twice
         */
        public Bindings build() {
            if (size == 0) {
                return NONE;
            }
            long[] order = new long[size];
            for (int k = 0; k < size; k++) {
                order[k] = ((long) ids[k] << 32) | k;
            }
            Arrays.sort(order);
            int[] sortedIds = new int[size];
            long[] sortedKeys = new long[size];
            for (int k = 0; k < size; k++) {
                int from = (int) order[k];
                sortedIds[k] = ids[from];
                sortedKeys[k] = keys[from];
                if (k > 0 && sortedIds[k] == sortedIds[k - 1]) {
                    throw new IllegalArgumentException("request " + sortedIds[k] + " is bound twice");
                }
            }
            return new Bindings(sortedIds, sortedKeys);
        }
    }
}
