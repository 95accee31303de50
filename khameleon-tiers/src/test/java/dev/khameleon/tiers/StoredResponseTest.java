package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one value per response the shared tier stores: round trip, and refusal of anything else. */
class StoredResponseTest {
    private final CountingOrigin origin = new CountingOrigin(5, 3, 64, 0);

    private StoredResponse response(long key) {
        return StoredResponse.of(key, 64, List.of(origin.expected(1, key, 0), origin.expected(1, key, 1),
                origin.expected(1, key, 2)));
    }

    @Test
    void decode_ofEncode_givesTheSameBlocks_underAnyRequestId() {
        StoredResponse r = StoredResponse.decode(response(7).encode(), 7, 64);
        for (int i = 0; i < 3; i++) {
            Block b = r.block(4, i);
            assertEquals(origin.expected(4, 7, i), b);
        }
        assertEquals(3, r.block(4, 2).padding());
    }

    @Test
    void decode_refusesEveryFlippedByte() {
        byte[] value = response(7).encode();
        for (int i = 0; i < value.length; i++) {
            byte[] bad = value.clone();
            bad[i] ^= 0x10;
            assertThrows(StoredResponse.CorruptValueException.class, () -> StoredResponse.decode(bad, 7, 64),
                    "flipped byte " + i);
        }
    }

    @Test
    void decode_refusesAnotherKeysValue_otherBlockSize_andTruncation() {
        byte[] value = response(7).encode();
        assertTrue(assertThrows(StoredResponse.CorruptValueException.class,
                () -> StoredResponse.decode(value, 8, 64)).getMessage().contains("content 7"));
        assertThrows(StoredResponse.CorruptValueException.class, () -> StoredResponse.decode(value, 7, 32));
        assertThrows(StoredResponse.CorruptValueException.class,
                () -> StoredResponse.decode(java.util.Arrays.copyOf(value, value.length - 5), 7, 64));
        assertThrows(StoredResponse.CorruptValueException.class, () -> StoredResponse.decode(new byte[3], 7, 64));
    }

    @Test
    void of_refusesBlocksOutOfOrder() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoredResponse.of(7, 64,
                List.of(origin.expected(1, 7, 1), origin.expected(1, 7, 0), origin.expected(1, 7, 2))));
        assertTrue(e.getMessage().contains("block 0 of 3"), e.getMessage());
    }
}
