package dev.khameleon.client;

import java.util.Arrays;

/**
 * A map from non-negative {@code int} keys to values that does not box its keys: a
 * {@link LongIntMap} from each key to its entry's position in two dense arrays, which a removal
 * keeps dense by moving the last entry into the hole. Lookups, insertions and removals are O(1);
 * the arrays double when full. Not thread-safe.
 *
 * @param <V> the value type
 */
final class IntObjectMap<V> {
    private static final int ABSENT = -1;

    private final LongIntMap positions;
    private int[] keys;
    private Object[] values;
    private int size;

    /** An empty map with room for {@code expectedSize} entries before its first resize. */
    IntObjectMap(int expectedSize) {
        int n = Math.max(4, expectedSize);
        positions = new LongIntMap(n);
        keys = new int[n];
        values = new Object[n];
    }

    /** The value of {@code key}, or null when absent. */
    @SuppressWarnings("unchecked")
    V get(int key) {
        int at = key < 0 ? ABSENT : positions.get(key, ABSENT);
        return at == ABSENT ? null : (V) values[at];
    }

    /**
     * Maps {@code key} to {@code value}, replacing any old value.
     *
     * @throws IllegalArgumentException if {@code key < 0}
     */
    void put(int key, V value) {
        if (key < 0) {
            throw new IllegalArgumentException("key must be >= 0, was " + key);
        }
        int at = positions.get(key, ABSENT);
        if (at != ABSENT) {
            values[at] = value;
            return;
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        keys[size] = key;
        values[size] = value;
        positions.put(key, size);
        size++;
    }

    /** Removes {@code key} if present. */
    void remove(int key) {
        int at = key < 0 ? ABSENT : positions.get(key, ABSENT);
        if (at == ABSENT) {
            return;
        }
        positions.remove(key);
        int last = --size;
        if (at != last) {
            keys[at] = keys[last];
            values[at] = values[last];
            positions.put(keys[at], at);
        }
        values[last] = null;
    }

    /** How many entries it holds. */
    int size() {
        return size;
    }

    /** Removes every entry. */
    void clear() {
        positions.clear();
        Arrays.fill(values, 0, size, null);
        size = 0;
    }
}
