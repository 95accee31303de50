package dev.khameleon.core.scheduler;

/**
 * An int per key in {@code [0, n)} with a default for every key ({@link Defaults}): the per-request
 * and per-position state of one scheduler. {@link DenseIdTable} holds all {@code n} values in an
 * array; {@link SparseIdTable} holds only the keys whose value differs from the default, so a
 * session's scheduler costs memory for the requests it has touched, not for all of them. A
 * scheduler takes dense tables while {@code n <= DENSE_LIMIT} (at most 256 KiB each, and an array
 * read is cheaper than a probe), sparse ones above. Both give the same values, so the choice never
 * changes a schedule. Not thread-safe.
 */
abstract class IdTable {
    /**
     * The largest {@code n} for which {@link #of} returns dense tables. Above it a sparse table's
     * probes cost little next to the arrays' memory, which a session would hold however few
     * requests it touches (docs/benchmarks.md, "Scheduler memory per session").
     */
    static final int DENSE_LIMIT = 1 << 16;

    /** The default value of each key: a constant, the key itself, or an entry of a shared array. */
    static final class Defaults {
        private final int constant;
        private final int[] base;
        private final boolean identity;

        private Defaults(int constant, int[] base, boolean identity) {
            this.constant = constant;
            this.base = base;
            this.identity = identity;
        }

        /** Every key's default is {@code value}. */
        static Defaults constant(int value) {
            return new Defaults(value, null, false);
        }

        /** Key {@code k}'s default is {@code base[k]}, or {@code k} itself when {@code base} is null. */
        static Defaults of(int[] base) {
            return new Defaults(0, base, base == null);
        }

        int of(int key) {
            return base != null ? base[key] : identity ? key : constant;
        }

        void fill(int[] values) {
            if (base != null) {
                System.arraycopy(base, 0, values, 0, values.length);
            } else if (identity) {
                for (int k = 0; k < values.length; k++) {
                    values[k] = k;
                }
            } else if (constant != 0) {
                java.util.Arrays.fill(values, constant);
            }
        }
    }

    /** A table of {@code n} keys, each at its default: dense if {@code sparse} is false, else sparse. */
    static IdTable of(int n, Defaults defaults, boolean sparse) {
        return sparse ? new SparseIdTable(n, defaults) : new DenseIdTable(n, defaults);
    }

    /** Whether a scheduler over {@code n} requests takes sparse tables. */
    static boolean sparseFor(int n) {
        return n > DENSE_LIMIT;
    }

    /** The value of {@code key}. */
    abstract int get(int key);

    /** Sets the value of {@code key}. */
    abstract void set(int key, int value);

    /** Puts every key back to its default. Dense: {@code O(n)}; sparse: {@code O(1)}, and it shrinks to sparse. */
    abstract void reset();

    /**
     * How many keys differ from their default, or -1 for a {@link DenseIdTable}, which does not
     * count them.
     */
    abstract int changed();

    /** The ints this table holds, its arrays' lengths: {@code n} when dense. */
    abstract long retainedInts();
}
