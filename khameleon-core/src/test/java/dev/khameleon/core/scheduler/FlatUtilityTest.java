package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Blocks that add no utility (a flat stretch of the curve) are still planned once nothing
 * better is left, so the push never stalls with blocks of likely requests unsent: regression
 * for the 3-of-8-blocks stall of {@code tabulated({0.3, 0.5, 1}, {0.75, 0.75, 1})}.
 */
class FlatUtilityTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;

    /**
     * The curve through {@code (0.3, 0.75), (0.5, 0.75), (1, 1)} as given, not repaired by
     * {@code tabulated}: with 8 blocks, block 3 (from 3/8 to 4/8) adds exactly nothing.
     */
    static final UtilityFunction FLAT_STRETCH = f -> f <= 0.3 ? 2.5 * f : f <= 0.5 ? 0.75 : 0.75 + 0.5 * (f - 0.5);

    /** Nothing until the whole response is there: every block but the last adds nothing. */
    static final UtilityFunction ALL_OR_NOTHING = f -> f < 1 ? 0 : 1;

    static Stream<Arguments> implementationsAndSelections() {
        return TestInstances.implementations().flatMap(a -> Stream.of(Selection.values())
                .map(s -> Arguments.of(a.get()[0], a.get()[1], s)));
    }

    @ParameterizedTest(name = "{0}, {2}")
    @MethodSource("implementationsAndSelections")
    void flatStretch_pointRequestStillGetsEveryBlock(String name, Function<SchedulerConfig, Scheduler> factory,
                                                     Selection selection) {
        assertEquals(0.0, FLAT_STRETCH.marginalGains(8)[3], 1e-15, "the curve really is flat over block 3");
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(50).requestCount(20).blocksPerRequest(8)
                .utility(FLAT_STRETCH).selection(selection).seed(2).build();
        TestInstances.assertPointRequestBlocksFirst(factory.apply(config), 8);
    }

    @ParameterizedTest(name = "{0}, {2}")
    @MethodSource("implementationsAndSelections")
    void allGainsZeroButTheLast_stillFillsEverySlot(String name, Function<SchedulerConfig, Scheduler> factory,
                                                    Selection selection) {
        int n = 10;
        int blocks = 4;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(n * blocks).requestCount(n)
                .blocksPerRequest(blocks).utility(ALL_OR_NOTHING).selection(selection).seed(5).build();
        Scheduler scheduler = factory.apply(config);
        scheduler.replan(Distribution.uniform(n, HORIZONS), 0, 5.0);
        ScheduleChunk chunk = scheduler.next(n * blocks);
        assertEquals(n * blocks, chunk.size(), "every slot of the batch is filled");
        int[] given = new int[n];
        for (int k = 0; k < chunk.size(); k++) {
            int id = chunk.requestId(k);
            assertEquals(given[id]++, chunk.blockIndex(k), "blocks of a request come in order");
        }
        for (int id = 0; id < n; id++) {
            assertEquals(blocks, given[id], "request " + id + " got all its blocks");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void zeroGainBlocks_comeAfterTheBlocksThatAddUtility(String name, Function<SchedulerConfig, Scheduler> factory) {
        // Request 0 has 8 blocks (block 3 adds nothing), request 1 has 2 (both add utility). The
        // paper's plain gains (share 0): the default share would weigh block 3 like any block of
        // an 8-block response's even share, which is the point of it.
        for (long seed = 1; seed <= 50; seed++) {
            SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(10).blockCounts(new int[] {8, 2})
                    .utility(FLAT_STRETCH).blockGainShare(0).seed(seed).build();
            Scheduler scheduler = factory.apply(config);
            scheduler.replan(Distribution.builder(2, HORIZONS).explicit(0, 0, 0.5).explicit(0, 1, 0.5)
                    .explicit(1, 0, 0.5).explicit(1, 1, 0.5).explicit(2, 0, 0.5).explicit(2, 1, 0.5)
                    .explicit(3, 0, 0.5).explicit(3, 1, 0.5).build(), 0, 10.0);
            ScheduleChunk chunk = scheduler.next(10);
            assertEquals(10, chunk.size(), "seed " + seed + ": both requests complete within the batch");
            int lastOfRequest1 = -1;
            int zeroGainBlock = -1;
            for (int k = 0; k < chunk.size(); k++) {
                if (chunk.requestId(k) == 1) {
                    lastOfRequest1 = k;
                } else if (chunk.blockIndex(k) == 3) {
                    zeroGainBlock = k;
                }
            }
            assertTrue(zeroGainBlock > lastOfRequest1, "seed " + seed + ": the zero-gain block 3 of request 0 went out"
                    + " at slot " + zeroGainBlock + ", before request 1's last block at slot " + lastOfRequest1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void tabulatedFlatStretch_isRepairedSoEveryBlockIsPlannedByGain(String name,
                                                                      Function<SchedulerConfig, Scheduler> factory) {
        UtilityFunction tabulated = UtilityFunction.tabulated(new double[] {0.3, 0.5, 1}, new double[] {0.75, 0.75, 1});
        double[] gains = tabulated.marginalGains(8);
        for (int b = 0; b < 8; b++) {
            assertTrue(gains[b] > SchedulerConfig.MIN_BLOCK_GAIN, "block " + b + " adds utility: " + gains[b]);
        }
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(50).requestCount(20).blocksPerRequest(8)
                .utility(tabulated).seed(3).build();
        TestInstances.assertPointRequestBlocksFirst(factory.apply(config), 8);
    }
}
