package dev.khameleon.client;

import java.util.Arrays;

/**
 * A fixed-capacity open-addressing map from non-negative {@code long} keys to {@code int}
 * values, with linear probing and backward-shift deletion (no tombstones, so lookups stay
 * O(1) however many insertions and removals happen). Sized for {@code maxSize} entries at a load
 * of at most one half, so up to {@code maxSize} entries it never resizes (the cache's index relies
 * on that); beyond, it doubles its table. Not thread-safe.
 */
final class LongIntMap {
    private static final long EMPTY = -1L;

    private long[] keys;
    private int[] values;
    private int mask;
    private int size;

    /** An empty map with room for {@code maxSize} entries before its first resize. */
    LongIntMap(int maxSize) {
        allocate(Integer.highestOneBit(Math.max(4, maxSize) * 2 - 1) << 1);
    }

    /** The value of {@code key}, or {@code missing} when absent. */
    int get(long key, int missing) {
        for (int i = slot(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return missing;
            }
        }
    }

    /** Maps {@code key} (which must be {@code >= 0}) to {@code value}, replacing any old value. */
    void put(long key, int value) {
        for (int i = slot(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                values[i] = value;
                return;
            }
            if (k == EMPTY) {
                if (size >= keys.length / 2) {
                    grow();
                    put(key, value);
                    return;
                }
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
        }
    }

    /** Removes {@code key} if present. */
    void remove(long key) {
        int i = slot(key);
        while (keys[i] != key) {
            if (keys[i] == EMPTY) {
                return;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift: move later entries of the probe run into the hole so no lookup
        // ever stops early at it.
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int home = slot(keys[j]);
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
        size--;
    }

    /** How many entries it holds. */
    int size() {
        return size;
    }

    /** Removes every entry, keeping the table. */
    void clear() {
        Arrays.fill(keys, EMPTY);
        size = 0;
    }

    private void allocate(int tableSize) {
        keys = new long[tableSize];
        values = new int[tableSize];
        mask = tableSize - 1;
        Arrays.fill(keys, EMPTY);
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        allocate(oldKeys.length * 2);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
