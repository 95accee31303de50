package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.Scheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Invalid settings are rejected at once with a message naming the setting and the value. */
class SchedulerConfigTest {

    private static void assertRejected(Executable call, String... words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "message '" + e.getMessage() + "' should mention '" + w + "'");
        }
    }

    @Test
    void builder_rejectsEachBadSettingNamingIt() {
        assertRejected(() -> SchedulerConfig.builder().cacheBlocks(0), "cacheBlocks", "0");
        assertRejected(() -> SchedulerConfig.builder().requestCount(-3), "requestCount", "-3");
        assertRejected(() -> SchedulerConfig.builder().blocksPerRequest(0), "blocksPerRequest", "0");
        assertRejected(() -> SchedulerConfig.builder().blockCounts(new int[] {2, 0, 1}), "blockCounts", "request 1", "0");
        assertRejected(() -> SchedulerConfig.builder().blockCounts(new int[0]), "blockCounts");
        assertRejected(() -> SchedulerConfig.builder().chunkSize(0), "chunkSize", "0");
        assertRejected(() -> SchedulerConfig.builder().discount(0.0), "discount", "0.0");
        assertRejected(() -> SchedulerConfig.builder().discount(1.5), "discount", "1.5");
        assertRejected(() -> SchedulerConfig.builder().discount(Double.NaN), "discount", "NaN");
        assertRejected(() -> SchedulerConfig.builder().backendConcurrency(0, BackendLoad.idle()), "backendConcurrency", "0");
        assertRejected(() -> SchedulerConfig.builder().planningHorizonMillis(0), "planningHorizonMillis", "0.0");
        assertRejected(() -> SchedulerConfig.builder().planningHorizonMillis(Double.NaN), "planningHorizonMillis", "NaN");
        assertRejected(() -> SchedulerConfig.builder().forecastFadeMillis(-1), "forecastFadeMillis", "-1.0");
        assertRejected(() -> SchedulerConfig.builder().forecastFadeMillis(Double.NaN), "forecastFadeMillis", "NaN");
    }

    @Test
    void selection_defaultsToSampleAndRejectsNull() {
        SchedulerConfig.Builder builder = SchedulerConfig.builder().cacheBlocks(5).requestCount(4);
        assertEquals(Selection.SAMPLE, builder.build().selection());
        assertEquals(Selection.MAX_GAIN, builder.selection(Selection.MAX_GAIN).build().selection());
        NullPointerException e = assertThrows(NullPointerException.class, () -> builder.selection(null));
        assertTrue(e.getMessage().contains("selection"), "message '" + e.getMessage() + "' should name the setting");
        assertEquals(Selection.MAX_GAIN, builder.build().selection(), "a rejected setting leaves the builder as it was");
    }

    @Test
    void build_rejectsMissingOrContradictorySettings() {
        assertRejected(() -> SchedulerConfig.builder().requestCount(5).build(), "cacheBlocks");
        assertRejected(() -> SchedulerConfig.builder().cacheBlocks(5).build(), "requestCount");
        assertRejected(() -> SchedulerConfig.builder().cacheBlocks(5).requestCount(4).blockCounts(new int[] {1, 2, 3}).build(),
                "requestCount", "4", "3");
        assertRejected(() -> SchedulerConfig.builder().cacheBlocks(5).requestCount(4).blockCounts(i -> i).build(),
                "blockCounts", "request 0", "0");
        assertRejected(() -> SchedulerConfig.builder().cacheBlocks(5).requestCount(4).utility(f -> f * f * 2).build(),
                "utility");
    }

    @Test
    void build_appliesDefaultsAndSharesGainsPerDistinctBlockCount() {
        int[] calls = new int[1];
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(10).requestCount(1000)
                .blockCounts(i -> 1 + i % 3)
                .utility(f -> {
                    calls[0]++;
                    return f;
                }).build();
        assertEquals(SchedulerConfig.DEFAULT_CHUNK_SIZE, config.chunkSize());
        assertEquals(1.0, config.discount());
        assertEquals(500.0, config.planningHorizonMillis());
        assertEquals(1000.0, config.forecastFadeMillis());
        assertEquals(0, config.backendConcurrency());
        assertEquals(3, config.distinctBlockCounts());
        assertEquals(3, config.blockCount(2));
        assertEquals(2 + 3 + 4, calls[0], "the utility is evaluated once per point of each distinct block count");
    }

    @Test
    void replan_rejectsMismatchedOrOutOfRangeArguments() {
        Scheduler s = Schedulers.greedy(SchedulerConfig.builder().cacheBlocks(4).requestCount(10).build());
        Distribution other = Distribution.uniform(11, 50);
        assertRejected(() -> s.replan(other, 0, 1.0), "11", "10");
        Distribution d = Distribution.uniform(10, 50);
        assertRejected(() -> s.replan(d, 0, 0.0), "slotMillis", "0.0");
        assertRejected(() -> s.replan(d, 0, Double.POSITIVE_INFINITY), "slotMillis", "Infinity");
        assertRejected(() -> s.replan(d, 1, 1.0), "fromSeq", "1", "[0, 0]");
        s.replan(d, 0, 1.0);
        s.next(10);
        s.next(3);
        assertEquals(13, s.nextSeq());
        assertRejected(() -> s.replan(d, 7, 1.0), "fromSeq", "7", "[8, 13]");
        assertRejected(() -> s.next(-1), "maxBlocks", "-1");
    }
}
