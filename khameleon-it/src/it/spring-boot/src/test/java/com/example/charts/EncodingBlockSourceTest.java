package com.example.charts;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.BlockSourceContract;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;

/** The charts' lazily encoding block source keeps the {@link BlockSource} contract. */
class EncodingBlockSourceTest extends BlockSourceContract {
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @Override
    protected BlockSource source() {
        SeriesEncoder encoder = new SeriesEncoder(2048);
        int[] blockCounts = new int[ChartsApplication.CHARTS];
        Arrays.fill(blockCounts, encoder.encode(0, ChartsApplication.query(0)).size());
        return new EncodingBlockSource<>(encoder, ChartsApplication::query, blockCounts, executor);
    }

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }
}
