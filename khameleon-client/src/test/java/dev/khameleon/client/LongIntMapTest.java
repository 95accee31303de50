package dev.khameleon.client;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LongIntMapTest {

    /** Random puts and removals on a small key space (many collisions) agree with a HashMap. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void backwardShiftDeletion_keepsEveryKeyFindable(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int capacity = 1 + rnd.nextInt(64);
        LongIntMap map = new LongIntMap(capacity);
        Map<Long, Integer> model = new HashMap<>();
        for (int step = 0; step < 20_000; step++) {
            long key = ((long) rnd.nextInt(40) << 32) | rnd.nextInt(3);
            if (rnd.nextBoolean() && (model.size() < capacity || model.containsKey(key))) {
                int value = rnd.nextInt(1000);
                map.put(key, value);
                model.put(key, value);
            } else {
                map.remove(key);
                model.remove(key);
            }
            assertEquals(model.size(), map.size());
            assertEquals(model.getOrDefault(key, -1), map.get(key, -1));
            if (step % 50 != 0) {
                continue;
            }
            for (int q = 0; q < 40; q++) {
                for (int b = 0; b < 3; b++) {
                    long k = ((long) q << 32) | b;
                    int qq = q;
                    int bb = b;
                    int at = step;
                    assertEquals(model.getOrDefault(k, -1), map.get(k, -1), () -> "key " + qq + "/" + bb + " at step " + at);
                }
            }
        }
    }

    /** Past the size it was made for, the map grows and keeps every entry findable. */
    @ParameterizedTest
    @ValueSource(longs = {6, 7, 8})
    void beyondItsSize_growsAndKeepsEveryEntry(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        LongIntMap map = new LongIntMap(4);
        Map<Long, Integer> model = new HashMap<>();
        while (model.size() < 500) {
            long key = rnd.nextLong(1L << 40);
            int value = rnd.nextInt();
            map.put(key, value);
            model.put(key, value);
        }
        assertEquals(500, map.size());
        model.forEach((k, v) -> assertEquals(v, map.get(k, -1), () -> "key " + k));
        assertEquals(-1, map.get(1L << 41, -1));
    }
}
