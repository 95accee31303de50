package dev.khameleon.tiers;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.BlockSourceContract;
import org.junit.jupiter.api.AfterEach;

/** The BlockSource contract for a stack of the memory tier over an origin. */
class MemoryStackContractTest extends BlockSourceContract {
    private TieredBlockSource source;

    @Override
    protected BlockSource source() {
        source = TieredBlockSource.builder(new CountingOrigin(40, 3, 128, 0)).memoryBytes(4096).build();
        return source;
    }

    @AfterEach
    void close() {
        if (source != null) {
            source.close();
        }
    }
}
