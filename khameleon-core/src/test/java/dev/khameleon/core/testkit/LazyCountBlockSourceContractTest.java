package dev.khameleon.core.testkit;

import dev.khameleon.core.spi.BlockSource;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** The block source contract for a source that tells its counts lazily, and that it catches a source that misreports. */
class LazyCountBlockSourceContractTest extends BlockSourceContract {

    @Override
    protected BlockSource source() {
        return new LazyCountBlockSource(30, 8, 64, id -> 1 + id % 8, false);
    }

    @Test
    void contract_catchesACountAboveTheBound() {
        BlockSourceContract kit = new BlockSourceContract() {
            @Override
            protected BlockSource source() {
                return new LazyCountBlockSource(30, 8, 64, id -> 1 + id % 8, false)
                        .misreporting((id, index, count) -> id == 3 ? 9 : count);
            }
        };
        assertThrows(AssertionFailedError.class, kit::lazyCounts_everyBlockCarriesTheSameCountWithinTheBound);
    }

    @Test
    void contract_catchesACountThatChanges() {
        BlockSourceContract kit = new BlockSourceContract() {
            @Override
            protected BlockSource source() {
                return new LazyCountBlockSource(30, 8, 64, id -> 4, false)
                        .misreporting((id, index, count) -> index == 0 ? count : count + 1);
            }
        };
        assertThrows(AssertionFailedError.class, kit::lazyCounts_everyBlockCarriesTheSameCountWithinTheBound);
    }
}
