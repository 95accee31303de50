package dev.khameleon.tiers;

import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The {@link TierContract} of a tier that keeps responses in a store of its own (a directory, Redis,
 * an object store), and what it promises besides: a store that fails is passed over, so the lookup is
 * answered from below, and an operator is warned.
 */
abstract class StoreTierContract extends TierContract {
    /** Makes every call to the tier's store fail from now on. */
    abstract void breakStore() throws Exception;

    /** The logger that warns when the store fails ({@link TieredBlockSource}'s for lookup events). */
    abstract Class<?> failureLogger();

    /** A part of that warning's message that only a failure of the store broken by {@link #breakStore} logs. */
    abstract String failureWarning();

    @Test
    void failingStore_isPassedOver() throws Exception {
        try (LogCapture warning = LogCapture.warnings(failureLogger(), failureWarning())) {
            breakStore();
            assertResponseOf(HELD, load(HELD));
            assertEquals(1, below.lookups.size(), "the held response came from below: " + below.lookups);
            warning.await(10);
        }
    }
}
