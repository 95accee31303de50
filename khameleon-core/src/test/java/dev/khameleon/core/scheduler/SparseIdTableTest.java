package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link SparseIdTable} gives what an array of every key's value would, and holds only the changed keys. */
class SparseIdTableTest {
    private static final int N = 5000;

    @Test
    void constantDefault_matchesAnArrayUnderRandomSetsAndRemovals() {
        assertMatchesArray(IdTable.Defaults.constant(-1), 11);
    }

    @Test
    void identityDefault_matchesAnArrayUnderRandomSetsAndRemovals() {
        assertMatchesArray(IdTable.Defaults.of(null), 12);
    }

    @Test
    void sharedBaseDefault_matchesAnArrayUnderRandomSetsAndRemovals() {
        int[] base = new SplittableRandom(5).ints(N, 0, N).toArray();
        assertMatchesArray(IdTable.Defaults.of(base), 13);
    }

    @Test
    void reset_putsEveryKeyBackAndShrinks() {
        SparseIdTable t = new SparseIdTable(N, IdTable.Defaults.constant(0));
        for (int k = 0; k < N; k++) {
            t.set(k, k + 1);
        }
        assertEquals(N, t.changed());
        assertEquals(N, t.retainedInts(), "past n/8 changed keys it turned into an array of n");
        for (int k = 0; k < N; k += 2) {
            t.set(k, 0);
        }
        assertEquals(N / 2, t.changed());
        for (int k = 0; k < N; k++) {
            assertEquals(k % 2 == 0 ? 0 : k + 1, t.get(k));
        }
        t.reset();
        assertEquals(0, t.changed());
        assertEquals(32, t.retainedInts());
        for (int k = 0; k < N; k++) {
            assertEquals(0, t.get(k));
        }
    }

    private static void assertMatchesArray(IdTable.Defaults defaults, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int[] expected = new int[N];
        defaults.fill(expected);
        // n far above the keys used: the table stays sparse.
        SparseIdTable t = new SparseIdTable(1 << 20, defaults);
        // Keys from a narrow range most of the time: long probe runs, many removals inside them.
        for (int op = 0; op < 200_000; op++) {
            int key = rng.nextInt(4) == 0 ? rng.nextInt(N) : rng.nextInt(300);
            int value = rng.nextBoolean() ? defaults.of(key) : rng.nextInt(-1, N);
            t.set(key, value);
            expected[key] = value;
            int probe = rng.nextInt(N);
            assertEquals(expected[probe], t.get(probe), "key " + probe + " after op " + op);
        }
        int changed = 0;
        for (int k = 0; k < N; k++) {
            assertEquals(expected[k], t.get(k), "key " + k);
            changed += expected[k] != defaults.of(k) ? 1 : 0;
        }
        assertEquals(changed, t.changed());
        assertTrue(t.retainedInts() <= 2L * 4 * Math.max(16, changed), "capacity " + t.retainedInts() / 2);
    }
}
