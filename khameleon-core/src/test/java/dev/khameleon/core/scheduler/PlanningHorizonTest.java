package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planning window: each slot is planned on the next {@code planningHorizonMillis} rather
 * than the whole rest of the batch, and past the last forecast horizon the probability fades
 * linearly into the uniform distribution over {@code forecastFadeMillis}, so the tail of a long
 * batch is planned as if nothing were known rather than on a forecast held for seconds.
 */
class PlanningHorizonTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;
    private static final int N = 100;
    /** The explicit part: all mass on these five ids at every horizon. */
    private static final int HOT = 5;
    private static final int CACHE = 400;
    private static final double SLOT_MILLIS = 10;
    private static final double FADE_MILLIS = 500;
    /** Slot 100 is at 1000 ms = last horizon (500 ms) + fade: from there on, uniform. */
    private static final int FADED_SLOT = 100;

    private static Distribution hot() {
        Distribution.Builder b = Distribution.builder(N, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            for (int id = 0; id < HOT; id++) {
                b.explicit(j, id, 1.0 / HOT);
            }
        }
        return b.build();
    }

    private static SchedulerConfig config(double fadeMillis, long seed) {
        return config(SchedulerConfig.DEFAULT_PLANNING_HORIZON_MILLIS, fadeMillis, seed);
    }

    private static SchedulerConfig config(double horizonMillis, double fadeMillis, long seed) {
        // Linear utility and more blocks than slots: every request's gain is the same all batch.
        return SchedulerConfig.builder().cacheBlocks(CACHE).requestCount(N).blocksPerRequest(CACHE)
                .planningHorizonMillis(horizonMillis).forecastFadeMillis(fadeMillis).seed(seed).build();
    }

    private static double explicitShare(double[] p) {
        double share = 0;
        for (int id = 0; id < HOT; id++) {
            share += p[id];
        }
        return share;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void slotsPastTheFade_drawEveryRequestWithTheUniformShare(String name, Function<SchedulerConfig, Scheduler> factory) {
        BatchScheduler s = (BatchScheduler) factory.apply(config(FADE_MILLIS, 1));
        s.replan(hot(), 0, SLOT_MILLIS);
        s.next(FADED_SLOT);
        for (int t = FADED_SLOT; t < CACHE; t += 37) {
            double[] p = s.nextSlotProbabilities();
            for (int id = 0; id < N; id++) {
                assertEquals(1.0 / N, p[id], 1e-12, "slot " + t + ", request " + id);
            }
            s.next(37);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void allocationsPastTheFade_dropToTheUniformShare(String name, Function<SchedulerConfig, Scheduler> factory) {
        long early = 0;
        long late = 0;
        int runs = 20;
        for (long seed = 0; seed < runs; seed++) {
            Scheduler s = factory.apply(config(FADE_MILLIS, seed));
            s.replan(hot(), 0, SLOT_MILLIS);
            ScheduleChunk chunk = s.next(CACHE);
            assertEquals(CACHE, chunk.size());
            for (int k = 0; k < CACHE; k++) {
                if (chunk.requestId(k) < HOT) {
                    if (k < 50) {
                        early++;
                    } else if (k >= FADED_SLOT) {
                        late++;
                    }
                }
            }
        }
        double lateShare = late / (double) (runs * (CACHE - FADED_SLOT));
        // 6000 draws at p = 0.05: the bounds are about 8 standard deviations wide.
        assertEquals((double) HOT / N, lateShare, 0.025, "explicit share of the slots past the fade");
        double earlyShare = early / (double) (runs * 50);
        assertTrue(earlyShare > 0.75, "before the last horizon the forecast leads: " + earlyShare);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void withoutFade_theLastHorizonIsHeldToTheEndOfTheBatch(String name, Function<SchedulerConfig, Scheduler> factory) {
        BatchScheduler s = (BatchScheduler) factory.apply(config(Double.POSITIVE_INFINITY, 1));
        s.replan(hot(), 0, SLOT_MILLIS);
        s.next(CACHE - 1);
        assertEquals(1.0, explicitShare(s.nextSlotProbabilities()), 1e-12, "the last slot, at 3.99 s");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void slotZero_weighsThePlanningHorizonNotTheWholeBatch(String name, Function<SchedulerConfig, Scheduler> factory) {
        double kappa = SchedulerConfig.BEYOND_HORIZON_WEIGHT;
        // Trapezoid steps of 10 ms from slot 0: 50 with the hot ids certain (the horizon, 500 ms),
        // then 50 fading linearly from 1 to 5/100 and 300 at 5/100, which count kappa as much.
        double hotBeyond = 50 * (1 + 0.05) / 2 + 300 * 0.05;
        BatchScheduler capped = (BatchScheduler) factory.apply(config(FADE_MILLIS, 1));
        capped.replan(hot(), 0, SLOT_MILLIS);
        assertEquals((50 + kappa * hotBeyond) / (50 + kappa * 350), explicitShare(capped.nextSlotProbabilities()),
                1e-12, "slot 0 with the default planning horizon");
        BatchScheduler whole = (BatchScheduler) factory.apply(config(Double.POSITIVE_INFINITY, FADE_MILLIS, 1));
        whole.replan(hot(), 0, SLOT_MILLIS);
        assertEquals((50 + hotBeyond) / CACHE, explicitShare(whole.nextSlotProbabilities()), 1e-12,
                "slot 0 weighing the whole batch is mostly uniform tail");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void pointRequest_getsItsBlocksFirstInALongFadingBatch(String name, Function<SchedulerConfig, Scheduler> factory) {
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(CACHE).requestCount(N).blocksPerRequest(5)
                .seed(4).build();
        Scheduler s = factory.apply(config);
        s.replan(Distribution.point(N, 42, HORIZONS), 0, SLOT_MILLIS);
        ScheduleChunk chunk = s.next(CACHE);
        assertEquals(CACHE, chunk.size(), "the fade makes every request likely later: no slot is left empty");
        for (int k = 0; k < 5; k++) {
            assertEquals(42, chunk.requestId(k), "slot " + k);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void probabilityBeyondTheHorizon_keepsThePushGoing(String name, Function<SchedulerConfig, Scheduler> factory) {
        // Request 0 is certain up to 150 ms, request 1 from 250 ms; the horizon is 50 ms, the batch 400 ms.
        Distribution d = Distribution.builder(3, HORIZONS)
                .explicit(0, 0, 1.0).explicit(1, 0, 1.0).explicit(2, 1, 1.0).explicit(3, 1, 1.0).build();
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(40).requestCount(3).blocksPerRequest(1)
                .planningHorizonMillis(50).forecastFadeMillis(Double.POSITIVE_INFINITY).seed(2).build();
        Scheduler s = factory.apply(config);
        s.replan(d, 0, 10.0);
        ScheduleChunk chunk = s.next(40);
        assertEquals(2, chunk.size(), "request 1 is planned though only likely beyond the horizon; request 2 never");
        assertEquals(0, chunk.requestId(0));
        assertEquals(1, chunk.requestId(1));
    }

    @Test
    void horizonSlots_roundUpToWholeSlotsAndAtLeastOne() {
        SchedulerConfig config = config(500, FADE_MILLIS, 1);
        assertEquals(50, config.horizonSlots(10));
        assertEquals(167, config.horizonSlots(3));
        assertEquals(1, config.horizonSlots(1000));
        assertEquals(Integer.MAX_VALUE, config(Double.POSITIVE_INFINITY, FADE_MILLIS, 1).horizonSlots(10));
    }

    @Test
    void uniformShare_risesLinearlyFromTheLastHorizonOverTheFade() {
        SchedulerConfig fade = config(FADE_MILLIS, 1);
        assertEquals(0.0, fade.uniformShare(0, 500));
        assertEquals(0.0, fade.uniformShare(500, 500));
        assertEquals(0.25, fade.uniformShare(625, 500), 1e-15);
        assertEquals(0.5, fade.uniformShare(750, 500), 1e-15);
        assertEquals(1.0, fade.uniformShare(1000, 500));
        assertEquals(1.0, fade.uniformShare(1e9, 500));
        SchedulerConfig instant = config(0, 1);
        assertEquals(0.0, instant.uniformShare(500, 500));
        assertEquals(1.0, instant.uniformShare(500.001, 500));
        assertEquals(0.0, config(Double.POSITIVE_INFINITY, 1).uniformShare(1e12, 500));
    }
}
