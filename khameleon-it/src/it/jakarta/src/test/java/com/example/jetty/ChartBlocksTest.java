package com.example.jetty;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.BlockSourceContract;

/** The charts' blocks keep the {@link BlockSource} contract. */
class ChartBlocksTest extends BlockSourceContract {
    @Override
    protected BlockSource source() {
        return ChartsServer.chartBlocks(new SeriesEncoder(2048));
    }
}
