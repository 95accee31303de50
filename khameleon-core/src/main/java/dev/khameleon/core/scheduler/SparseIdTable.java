package dev.khameleon.core.scheduler;

import java.util.Arrays;

/**
 * An {@link IdTable} that holds only the keys whose value differs from their default, in an
 * open-addressing hash table (linear probing, Fibonacci hashing, deletion by backward shift so
 * that no tombstones pile up). Setting a key back to its default removes it. The table doubles at
 * three quarters full and never shrinks except on {@link #reset}.
 *
 * <p>Past {@code n/8} changed keys (a distribution with most ids explicit, say) probes would cost
 * more than the memory saved: the table then moves its values into an array of {@code n}, as a
 * {@link DenseIdTable}, and stays so until {@link #reset}.
 */
final class SparseIdTable extends IdTable {
    private static final int EMPTY = -1;
    private static final int MIN_CAPACITY = 16;

    private final Defaults defaults;
    private final int n;
    /** Every key's value once the table has turned dense, else null. */
    private int[] dense;
    private int[] keys;
    private int[] values;
    private int size;
    private int shift;

    /** All {@code n} keys at their default. */
    SparseIdTable(int n, Defaults defaults) {
        this.n = n;
        this.defaults = defaults;
        allocate(MIN_CAPACITY);
    }

    private void allocate(int capacity) {
        dense = null;
        keys = new int[capacity];
        Arrays.fill(keys, EMPTY);
        values = new int[capacity];
        shift = Integer.numberOfLeadingZeros(capacity) + 1;
        size = 0;
    }

    private int slot(int key) {
        return (key * 0x9E3779B9) >>> shift;
    }

    @Override
    int get(int key) {
        if (dense != null) {
            return dense[key];
        }
        int mask = keys.length - 1;
        for (int s = slot(key); ; s = (s + 1) & mask) {
            int k = keys[s];
            if (k == key) {
                return values[s];
            }
            if (k == EMPTY) {
                return defaults.of(key);
            }
        }
    }

    @Override
    void set(int key, int value) {
        if (dense != null) {
            int d = defaults.of(key);
            size += (value != d ? 1 : 0) - (dense[key] != d ? 1 : 0);
            dense[key] = value;
            return;
        }
        if (value == defaults.of(key)) {
            remove(key);
            return;
        }
        int mask = keys.length - 1;
        int s = slot(key);
        for (; ; s = (s + 1) & mask) {
            int k = keys[s];
            if (k == key) {
                values[s] = value;
                return;
            }
            if (k == EMPTY) {
                break;
            }
        }
        keys[s] = key;
        values[s] = value;
        if (++size > keys.length - (keys.length >>> 2)) {
            if (size > n >>> 3) {
                turnDense();
            } else {
                grow();
            }
        }
    }

    private void turnDense() {
        int[] values = new int[n];
        defaults.fill(values);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                values[keys[i]] = this.values[i];
            }
        }
        int changed = size;
        allocate(0);
        this.size = changed;
        this.dense = values;
    }

    private void remove(int key) {
        int mask = keys.length - 1;
        int s = slot(key);
        for (; ; s = (s + 1) & mask) {
            int k = keys[s];
            if (k == key) {
                break;
            }
            if (k == EMPTY) {
                return;
            }
        }
        size--;
        // Backward shift: pull later entries of the probe run into the hole unless that would
        // put one before its home slot.
        int hole = s;
        for (int t = (hole + 1) & mask; ; t = (t + 1) & mask) {
            int k = keys[t];
            if (k == EMPTY) {
                break;
            }
            int home = slot(k);
            if (((t - home) & mask) >= ((t - hole) & mask)) {
                keys[hole] = k;
                values[hole] = values[t];
                hole = t;
            }
        }
        keys[hole] = EMPTY;
    }

    private void grow() {
        int[] oldKeys = keys;
        int[] oldValues = values;
        allocate(2 * oldKeys.length);
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            int k = oldKeys[i];
            if (k != EMPTY) {
                int s = slot(k);
                while (keys[s] != EMPTY) {
                    s = (s + 1) & mask;
                }
                keys[s] = k;
                values[s] = oldValues[i];
                size++;
            }
        }
    }

    @Override
    void reset() {
        allocate(MIN_CAPACITY);
    }

    @Override
    int changed() {
        return size;
    }

    @Override
    long retainedInts() {
        return 2L * keys.length + (dense == null ? 0 : dense.length);
    }
}
