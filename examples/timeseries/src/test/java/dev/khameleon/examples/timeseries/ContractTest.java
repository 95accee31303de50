package dev.khameleon.examples.timeseries;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.core.testkit.BlockSourceContract;
import dev.khameleon.core.testkit.ProgressiveEncoderContract;
import dev.khameleon.core.testkit.UtilityFunctionContract;
import org.junit.jupiter.api.Nested;

import java.util.ArrayList;
import java.util.List;

/** The core's SPI contract kits, run against the example's encoder, block source and utility curve. */
class ContractTest {
    private static final BucketSumEncoder ENCODER = new BucketSumEncoder(TimeseriesApp.BLOCK_SIZE);

    @Nested
    class Encoder extends ProgressiveEncoderContract<int[]> {
        @Override
        protected ProgressiveEncoder<int[]> encoder() {
            return ENCODER;
        }

        @Override
        protected List<int[]> sampleResponses() {
            return TraceData.windows().subList(0, 10);
        }
    }

    @Nested
    class Source extends BlockSourceContract {
        @Override
        protected BlockSource source() {
            List<List<Block>> blocks = new ArrayList<>();
            List<int[]> windows = TraceData.windows();
            for (int w = 0; w < windows.size(); w++) {
                blocks.add(ENCODER.encode(w, windows.get(w)));
            }
            return BlockSource.inMemory(TimeseriesApp.BLOCK_SIZE, blocks);
        }
    }

    @Nested
    class Utility extends UtilityFunctionContract {
        @Override
        protected UtilityFunction utility() {
            return ChartUtility.measure(TraceData.windows(), ENCODER).toUtilityFunction();
        }
    }
}
