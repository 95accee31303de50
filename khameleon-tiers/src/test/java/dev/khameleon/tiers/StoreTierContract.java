package dev.khameleon.tiers;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The {@link TierContract} of a tier that keeps responses in a store of its own (a directory, Redis,
 * an object store), and what it promises besides: a store that fails is passed over, so the lookup is
 * answered from below.
 */
abstract class StoreTierContract extends TierContract {
    /** Makes every call to the tier's store fail from now on. */
    abstract void breakStore() throws Exception;

    @Test
    void failingStore_isPassedOver() throws Exception {
        breakStore();
        assertResponseOf(HELD, load(HELD));
        assertEquals(1, below.lookups.size(), "the held response came from below: " + below.lookups);
    }
}
