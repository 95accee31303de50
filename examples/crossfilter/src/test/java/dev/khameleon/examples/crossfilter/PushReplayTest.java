package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.scheduler.Selection;
import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PushReplayTest {
    /** 1000-byte blocks at 100,000 B/s: 10 ms per block; 100 ms round trip; 3 blocks per tile. */
    private static PushReplay.Setup setup(int servers, double sliceMs, int cacheBlocks) {
        return new PushReplay.Setup(servers, () -> sliceMs, new PushReplay.Link(100_000, 100, cacheBlocks), 1000,
                v -> 3, UtilityFunction.linear(), Selection.MAX_GAIN, 100, 1, 100);
    }

    private static Workflow workflow(BrushEvent... events) {
        return new Workflow("t", List.of(events));
    }

    @Test
    void onHover_aSwitchWaitsForUplinkTileLinkAndDownlink_andABrushUpdateForTheSameBlock() {
        Workflow w = workflow(new BrushEvent(1000, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(1010, FlightsViews.DISTANCE, 1, 3, 1));
        PushReplay.Outcome o = PushReplay.run(w, setup(5, 50, 100), PushReplay.Forecast.onHover());
        // Distribution at the server 1050; 5 slice queries 1050..1100; block 0 on the link 1100..1110, lands 1160.
        assertArrayEquals(new double[] {160, 150}, o.latencyMs(), 1e-9);
        assertFalse(o.hit()[0]);
        // Only block 0 of 3 is there at the first answer: linear utility 1/3.
        assertEquals(1.0 / 3, o.utility()[0], 1e-12);
        assertEquals(5, o.queries());
    }

    @Test
    void predicted_pushesTheNextViewBeforeTheSwitch_onHoverDoesNot() {
        Workflow session = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1),
                new BrushEvent(2000, FlightsViews.AIR_TIME, 5, 9, 2));
        MarkovPrior prior = MarkovPrior.learn(FlightsViews.VIEWS, List.of(workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1),
                new BrushEvent(5, FlightsViews.AIR_TIME, 1, 2, 2))), null);
        PushReplay.Outcome predicted = PushReplay.run(session, setup(5, 50, 100),
                PushReplay.Forecast.predicted(prior, 0.5));
        // The first brush at t = 0 is a cold start: the first push lands 50 ms later at the earliest.
        assertFalse(predicted.hit()[0]);
        assertTrue(predicted.hit()[1]);
        assertEquals(0, predicted.latencyMs()[1]);
        // 2 s is ample to push all 3 blocks of every view's tile: the whole tile is there.
        assertEquals(1.0, predicted.utility()[1], 1e-12);

        PushReplay.Outcome onHover = PushReplay.run(session, setup(5, 50, 100), PushReplay.Forecast.onHover());
        assertFalse(onHover.hit()[1]);
        assertEquals(160, onHover.latencyMs()[1], 1e-9);
    }

    @Test
    void theCacheHoldsCacheBlocks_aReturnToAViewHitsOnlyIfItsBlocksWereNotOverwritten() {
        // DISTANCE, then AIR_TIME with an empty brush (filters unchanged), then DISTANCE again: the same key.
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(1000, FlightsViews.AIR_TIME, 5, 5, 2),
                new BrushEvent(2000, FlightsViews.DISTANCE, 1, 4, 1));
        // A ring of 9 blocks: DISTANCE's blocks in slots 0-2, AIR_TIME's in 3-5, and the batch stops there.
        PushReplay.Outcome nine = PushReplay.run(w, setup(5, 50, 9), PushReplay.Forecast.onHover());
        assertTrue(nine.hit()[2]);
        assertEquals(0, nine.latencyMs()[2]);
        assertEquals(1.0, nine.utility()[2], 1e-12);
        // A ring of 3 blocks: AIR_TIME's 3 blocks overwrite DISTANCE's; the tile is computed, so no queries:
        // uplink 50 + block 10 + downlink 50.
        PushReplay.Outcome three = PushReplay.run(w, setup(5, 50, 3), PushReplay.Forecast.onHover());
        assertFalse(three.hit()[2]);
        assertEquals(110, three.latencyMs()[2], 1e-9);
        assertEquals(10, three.queries());
    }

    @Test
    void theBackend_neverRunsMoreQueriesThanItsSlots() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(300, FlightsViews.AIR_TIME, 5, 9, 2),
                new BrushEvent(600, FlightsViews.ARR_DELAY, 3, 9, 3), new BrushEvent(900, FlightsViews.DISTANCE, 2, 9, 1));
        MarkovPrior prior = MarkovPrior.learn(FlightsViews.VIEWS, List.of(w), null);
        PushReplay.Outcome o = PushReplay.run(w, setup(2, 40, 100), PushReplay.Forecast.predicted(prior, 0.5));
        // Every distribution asks for all 6 views' tiles: far more queries than 2 slots, and they queue.
        assertTrue(o.queries() >= 30, "queries: " + o.queries());
        assertEquals(2, o.maxConcurrentQueries());
    }

    @Test
    void aReplan_dropsTheQueuedQueriesOfTheOldPlan_andAnOlderEventIsServedByTheNewerAnswer() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(60, FlightsViews.AIR_TIME, 5, 9, 2));
        PushReplay.Outcome o = PushReplay.run(w, setup(1, 50, 100), PushReplay.Forecast.onHover());
        // One slot. DISTANCE's queries from 50: the first runs 50..100, the second 100..150; the
        // re-plan for AIR_TIME at 110 drops the other three. AIR_TIME's five run 150..400; its
        // block 0 is on the link 400..410 and lands at 460: 400 ms after the switch at 60.
        assertEquals(400, o.latencyMs()[1], 1e-9);
        assertEquals(7, o.queries());
        assertEquals(1, o.maxConcurrentQueries());
        // DISTANCE's brush at 0 never gets its own answer; AIR_TIME's answer replaces it at 460.
        assertEquals(460, o.latencyMs()[0], 1e-9);
    }

    /**
     * Regression: a block pushed in two batches sits in two ring slots; overwriting the older
     * slot used to mark it absent, and 871 brush updates of three sessions were never answered.
     */
    @Test
    void onTheRealSessions_everyEventIsAnswered_andTheBackendStaysWithinItsSlots() throws Exception {
        List<Workflow> workflows = Workflows.readAll(FlightsData.workflows());
        TileEncoder encoder = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        PushReplay.Setup paper = new PushReplay.Setup(4, () -> 30, new PushReplay.Link(5.625e6, 100, 4069),
                TileEncoder.DEFAULT_BLOCK_SIZE, encoder::blockCount, UtilityFunction.linear(), Selection.MAX_GAIN,
                100, 1, 100);
        for (Workflow w : workflows) {
            PushReplay.Outcome o = PushReplay.run(w, paper,
                    PushReplay.Forecast.predicted(MarkovPrior.learn(FlightsViews.VIEWS, workflows, w), 0.5));
            for (int i = 0; i < o.latencyMs().length; i++) {
                assertTrue(Double.isFinite(o.latencyMs()[i]), w.name() + " event " + i + " never answered");
            }
            assertTrue(o.maxConcurrentQueries() <= 4, w.name() + ": " + o.maxConcurrentQueries());
        }
    }

    @Test
    void aSessionThatConnectsBeforeItsFirstBrush_findsItsUnfilteredTileCached_withoutAQuery() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.AIR_TIME, 1, 2, 1));
        MarkovPrior prior = MarkovPrior.learn(FlightsViews.VIEWS, List.of(workflow(new BrushEvent(0, FlightsViews.AIR_TIME, 3, 4, 1))), null);
        PushReplay.Forecast predicted = PushReplay.Forecast.predicted(prior, 0.5);
        // Cold: the page connects at the brush; uplink 50, AIR_TIME's five queries 50..100, block 100..110, +50.
        PushReplay.Outcome cold = PushReplay.run(w, setup(5, 50, 100), predicted, PushReplay.Start.cold());
        assertFalse(cold.hit()[0]);
        assertEquals(160, cold.latencyMs()[0], 1e-9);
        // Connected 500 ms before, on a server that computed the unfiltered tiles at start-up: a hit, no query.
        PushReplay.Outcome warm = PushReplay.run(w, setup(5, 50, 100), predicted, PushReplay.Start.warm(500));
        assertTrue(warm.hit()[0]);
        assertEquals(0, warm.latencyMs()[0]);
        assertEquals(1.0, warm.utility()[0], 1e-12);
        assertEquals(0, warm.queries());
        // The same lead with the tiles computed on demand: the session's first plan computes them itself.
        PushReplay.Outcome lead = PushReplay.run(w, setup(5, 50, 100), predicted,
                new PushReplay.Start(500, k -> false));
        assertTrue(lead.hit()[0]);
        assertEquals(30, lead.queries());
    }

    @Test
    void theFirstPlan_followsTheFirstViewPrior_andAUniformOneBreaksTiesByViewOrderNotByTheSession() {
        // Connect at -115: the server plans at -65, the first block lands at -5 and the second at +5,
        // so exactly one block is cached at the brush.
        Workflow w = workflow(new BrushEvent(0, FlightsViews.AIR_TIME, 1, 2, 1));
        MarkovPrior prior = MarkovPrior.learn(FlightsViews.VIEWS, List.of(workflow(new BrushEvent(0, FlightsViews.AIR_TIME, 3, 4, 1))), null);
        PushReplay.Outcome learned = PushReplay.run(w, setup(5, 50, 100), PushReplay.Forecast.predicted(prior, 0.5),
                PushReplay.Start.warm(115));
        assertTrue(learned.hit()[0]);
        double[] uniform = new double[FlightsViews.values().length];
        java.util.Arrays.fill(uniform, 1.0 / uniform.length);
        PushReplay.Outcome flat = PushReplay.run(w, setup(5, 50, 100),
                PushReplay.Forecast.predicted(prior, 0.5, uniform), PushReplay.Start.warm(115));
        // The tie goes to DISTANCE, the first view, not to the view this session brushes first.
        assertFalse(flat.hit()[0]);
    }

    @Test
    void aStart_refusesANegativeOrInfiniteLead() {
        assertThrows(IllegalArgumentException.class, () -> new PushReplay.Start(-1, k -> false));
        assertThrows(IllegalArgumentException.class, () -> new PushReplay.Start(Double.POSITIVE_INFINITY, k -> false));
    }

    @Test
    void maxOverlap_countsTouchingIntervalsAsDisjoint() {
        assertEquals(1, PushReplay.maxOverlap(List.of(new double[] {0, 10}, new double[] {10, 20})));
        assertEquals(2, PushReplay.maxOverlap(List.of(new double[] {0, 10}, new double[] {5, 15},
                new double[] {10, 20})));
    }
}
