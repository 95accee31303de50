package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The least block gain: a likely response's low-gain blocks are weighed at least at the floor,
 * so they come before first blocks of unlikely responses more often, and the setting is
 * validated like every other.
 */
class MinBlockGainTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;
    /** The first of 10 blocks is worth 0.9, each later one about 0.011: a very concave picture. */
    private static final UtilityFunction CONCAVE = f -> f <= 0.1 ? 9 * f : 0.9 + (f - 0.1) / 9;

    /**
     * Among 400 seeds, how often block 1 of the likely request (p = 0.95) is planned before
     * block 0 of the unlikely one (p = 0.05). Greedy draws each block with probability
     * proportional to its weight: about 0.0105 / (0.0105 + 0.045) = 19 % with the default
     * floor, 0.0475 / (0.0475 + 0.045) = 51 % with a floor of 0.05.
     */
    private static double likelyFirstShare(double minBlockGain, double share) {
        int likelyFirst = 0;
        int seeds = 400;
        for (long seed = 1; seed <= seeds; seed++) {
            SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(20).requestCount(2).blocksPerRequest(10)
                    .utility(CONCAVE).minBlockGain(minBlockGain).blockGainShare(share).seed(seed).build();
            Scheduler scheduler = Schedulers.greedy(config);
            Distribution.Builder d = Distribution.builder(2, HORIZONS);
            for (int j = 0; j < HORIZONS.length; j++) {
                d.explicit(j, 0, 0.95).explicit(j, 1, 0.05);
            }
            scheduler.replan(d.build(), 0, 5.0);
            ScheduleChunk chunk = scheduler.next(20);
            int likelyBlock1 = -1;
            int unlikelyBlock0 = -1;
            for (int k = 0; k < chunk.size(); k++) {
                if (chunk.requestId(k) == 0 && chunk.blockIndex(k) == 1 && likelyBlock1 < 0) {
                    likelyBlock1 = k;
                }
                if (chunk.requestId(k) == 1 && chunk.blockIndex(k) == 0 && unlikelyBlock0 < 0) {
                    unlikelyBlock0 = k;
                }
            }
            assertTrue(likelyBlock1 >= 0 && unlikelyBlock0 >= 0, "both blocks are planned in a batch of 20");
            if (likelyBlock1 < unlikelyBlock0) {
                likelyFirst++;
            }
        }
        return (double) likelyFirst / seeds;
    }

    @Test
    void raisedFloor_putsALikelyResponsesLateBlocksAheadOfUnlikelyFirstBlocksMoreOften() {
        double plain = likelyFirstShare(SchedulerConfig.MIN_BLOCK_GAIN, 0);
        double withFloor = likelyFirstShare(0.05, 0);
        assertTrue(withFloor > plain + 0.15, "floor 0.05: " + withFloor + ", plain gains: " + plain);
    }

    @Test
    void share_floorsEachBlockAtThatShareOfItsEvenShare() {
        // Ten blocks: a share of 0.5 is a floor of 0.05 per block, and schedules exactly so.
        assertEquals(likelyFirstShare(0.05, 0), likelyFirstShare(SchedulerConfig.MIN_BLOCK_GAIN, 0.5));
        assertEquals(likelyFirstShare(SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE / 10, 0),
                likelyFirstShare(SchedulerConfig.MIN_BLOCK_GAIN, SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE));
        assertTrue(likelyFirstShare(SchedulerConfig.MIN_BLOCK_GAIN, SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE)
                > likelyFirstShare(SchedulerConfig.MIN_BLOCK_GAIN, 0), "the default differs from plain gains");
    }

    @Test
    void shareAndAbsoluteFloor_theLargerWins() {
        assertEquals(likelyFirstShare(0.08, 0), likelyFirstShare(0.08, 0.5), "0.08 > 0.5 / 10");
        assertEquals(likelyFirstShare(0.05, 0), likelyFirstShare(0.02, 0.5), "0.5 / 10 > 0.02");
    }

    @ParameterizedTest
    @ValueSource(doubles = {-0.1, 1.5, Double.NaN})
    void shareOutOfRange_isRefusedWithTheSettingsName(double share) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SchedulerConfig.builder().blockGainShare(share));
        assertTrue(e.getMessage().startsWith("blockGainShare must be in [0, 1]"), e.getMessage());
    }

    @Test
    void defaultIsTheLeastGain() {
        SchedulerConfig a = SchedulerConfig.builder().cacheBlocks(20).requestCount(2).blocksPerRequest(10)
                .utility(CONCAVE).seed(3).build();
        SchedulerConfig b = SchedulerConfig.builder().cacheBlocks(20).requestCount(2).blocksPerRequest(10)
                .utility(CONCAVE).minBlockGain(SchedulerConfig.MIN_BLOCK_GAIN).seed(3).build();
        Distribution d = Distribution.uniform(2, HORIZONS);
        Scheduler sa = Schedulers.greedy(a);
        Scheduler sb = Schedulers.greedy(b);
        sa.replan(d, 0, 5.0);
        sb.replan(d, 0, 5.0);
        ScheduleChunk ca = sa.next(20);
        ScheduleChunk cb = sb.next(20);
        for (int k = 0; k < 20; k++) {
            assertEquals(ca.requestId(k), cb.requestId(k), "slot " + k);
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, 1e-10, -0.1, 1.5, Double.NaN})
    void outOfRange_isRefusedWithTheSettingsName(double gain) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SchedulerConfig.builder().minBlockGain(gain));
        assertTrue(e.getMessage().startsWith("minBlockGain must be in"), e.getMessage());
    }
}
