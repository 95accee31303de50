package dev.khameleon.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IntObjectMapTest {

    /** Random puts, replacements and removals, past the size the map was made for, agree with a HashMap. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void randomOperations_agreeWithAHashMap(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        IntObjectMap<String> map = new IntObjectMap<>(1 + rnd.nextInt(8));
        Map<Integer, String> model = new HashMap<>();
        for (int step = 0; step < 20_000; step++) {
            int key = rnd.nextInt(200);
            if (rnd.nextInt(3) > 0) {
                String value = "v" + rnd.nextInt(1000);
                map.put(key, value);
                model.put(key, value);
            } else {
                map.remove(key);
                model.remove(key);
            }
            assertEquals(model.size(), map.size());
            if (step % 100 == 0) {
                for (int k = 0; k < 200; k++) {
                    assertEquals(model.get(k), map.get(k), "key " + k + " at step " + step);
                }
            }
        }
        map.clear();
        assertEquals(0, map.size());
        for (int k = 0; k < 200; k++) {
            assertNull(map.get(k));
        }
    }

    @Test
    void negativeKey_isAbsent_andCannotBePut() {
        IntObjectMap<String> map = new IntObjectMap<>(4);
        assertNull(map.get(-1));
        map.remove(-1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> map.put(-1, "x"));
        assertEquals("key must be >= 0, was -1", e.getMessage());
        assertEquals(0, map.size());
    }
}
