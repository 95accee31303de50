package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ReplayTest {
    private static Workflow workflow(BrushEvent... events) {
        return new Workflow("t", List.of(events));
    }

    @Test
    void onDemand_eachEventWaitsForItsFiveQueries() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(10, FlightsViews.DISTANCE, 1, 3, 1),
                new BrushEvent(20, FlightsViews.DISTANCE, 1, 4, 1));
        // 5 servers, 15 ms: event 0 done at 15; event 1 starts at 15, done 30; event 2 starts 30, done 45.
        assertArrayEquals(new double[] {15, 20, 25}, Replay.onDemand(w, 5, () -> 15), 1e-9);
    }

    @Test
    void onDemand_dropsStaleQueries_andServesTheEventByTheNewerAnswer() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(10, FlightsViews.DISTANCE, 1, 3, 1),
                new BrushEvent(20, FlightsViews.DISTANCE, 1, 4, 1));
        // 30 ms: event 1's queries are still queued at 20 and dropped; event 2 runs 30..60.
        assertArrayEquals(new double[] {30, 50, 40}, Replay.onDemand(w, 5, () -> 30), 1e-9);
    }

    @Test
    void onDemand_fewerServersThanQueries_queueTheRest() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1));
        // 2 servers, 5 queries of 10 ms: rounds end at 10, 20, 30.
        assertArrayEquals(new double[] {30}, Replay.onDemand(w, 2, () -> 10), 1e-9);
    }

    @Test
    void falconOnHover_waitsForTheTileOncePerView_andReusesATileOfTheSameKey() {
        Workflow w = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(10, FlightsViews.DISTANCE, 1, 3, 1),
                new BrushEvent(100, FlightsViews.DISTANCE, 1, 4, 1), new BrushEvent(200, FlightsViews.AIR_TIME, 5, 9, 2),
                new BrushEvent(250, FlightsViews.AIR_TIME, 5, 10, 2), new BrushEvent(400, FlightsViews.AIR_TIME, 5, 5, 2),
                new BrushEvent(500, FlightsViews.DISTANCE, 1, 4, 1));
        // Tile of DISTANCE (no other brush) ready at 50; tile of AIR_TIME (DISTANCE [1,4)) at 250.
        // Back on DISTANCE at 500 with AIR_TIME's brush emptied: the first tile's key again, no wait.
        assertArrayEquals(new double[] {50, 40, 0, 50, 0, 0, 0}, Replay.falconOnHover(w, 5, () -> 50), 1e-9);
    }

    @Test
    void predictedPrefetch_aRightPrediction_hidesTheSwitch_aWrongOneDoesNot() {
        Workflow session = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1),
                new BrushEvent(10, FlightsViews.DISTANCE, 1, 3, 1), new BrushEvent(500, FlightsViews.AIR_TIME, 5, 9, 2));
        MarkovPrior right = MarkovPrior.learn(FlightsViews.VIEWS, List.of(workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1),
                new BrushEvent(5, FlightsViews.AIR_TIME, 1, 2, 2))), null);
        MarkovPrior wrong = MarkovPrior.learn(FlightsViews.VIEWS, List.of(workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1),
                new BrushEvent(5, FlightsViews.ARR_TIME, 1, 2, 2))), null);
        assertEquals(List.of(FlightsViews.AIR_TIME), right.likelyNext(FlightsViews.DISTANCE, 1));
        // The pause after the event at 10 starts AIR_TIME's tile at 110 (ready at 160), before the switch at 500.
        assertArrayEquals(new double[] {50, 40, 0}, Replay.predictedPrefetch(session, 5, () -> 50, right, 1, 100), 1e-9);
        assertArrayEquals(new double[] {50, 40, 50}, Replay.predictedPrefetch(session, 5, () -> 50, wrong, 1, 100), 1e-9);
        assertArrayEquals(new double[] {50, 40, 50}, Replay.falconOnHover(session, 5, () -> 50), 1e-9);
    }

    @Test
    void markovPrior_leavesTheReplayedSessionOut_andSmooths() {
        Workflow a = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(5, FlightsViews.AIR_TIME, 1, 2, 2));
        Workflow b = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(5, FlightsViews.ARR_TIME, 1, 2, 2),
                new BrushEvent(9, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(12, FlightsViews.ARR_TIME, 1, 2, 2));
        MarkovPrior withoutB = MarkovPrior.learn(FlightsViews.VIEWS, List.of(a, b), b);
        // Only a's DISTANCE -> AIR_TIME is counted: (1 + 1) / (1 + 5).
        assertEquals(2.0 / 6, withoutB.probability(FlightsViews.DISTANCE, FlightsViews.AIR_TIME), 1e-12);
        assertEquals(1.0 / 6, withoutB.probability(FlightsViews.DISTANCE, FlightsViews.ARR_TIME), 1e-12);
        assertEquals(List.of(FlightsViews.ARR_TIME), MarkovPrior.learn(FlightsViews.VIEWS, List.of(a, b), null).likelyNext(FlightsViews.DISTANCE, 1));
        assertEquals(0.0, withoutB.probability(FlightsViews.DISTANCE, FlightsViews.DISTANCE));
    }

    @Test
    void markovPrior_firstView_countsEachSessionsFirstBrush_leavingTheReplayedSessionOut() {
        Workflow a = workflow(new BrushEvent(0, FlightsViews.AIR_TIME, 1, 2, 1), new BrushEvent(5, FlightsViews.DISTANCE, 1, 2, 2));
        Workflow b = workflow(new BrushEvent(0, FlightsViews.ARR_DELAY, 1, 2, 1));
        Workflow c = workflow(new BrushEvent(0, FlightsViews.ARR_DELAY, 1, 2, 1));
        double[] withoutC = MarkovPrior.learn(FlightsViews.VIEWS, List.of(a, b, c), c).first();
        // a and b: one first brush each on AIR_TIME and ARR_DELAY, add-one smoothed over 6 views: (1 + 1) / (2 + 6).
        assertEquals(2.0 / 8, withoutC[FlightsViews.AIR_TIME.index()], 1e-12);
        assertEquals(2.0 / 8, withoutC[FlightsViews.ARR_DELAY.index()], 1e-12);
        // DISTANCE is brushed, but never first.
        assertEquals(1.0 / 8, withoutC[FlightsViews.DISTANCE.index()], 1e-12);
        assertEquals(3.0 / 9, MarkovPrior.learn(FlightsViews.VIEWS, List.of(a, b, c), null).first()[FlightsViews.ARR_DELAY.index()], 1e-12);
        assertEquals(1.0, java.util.Arrays.stream(withoutC).sum(), 1e-12);
    }

    @Test
    void falcon_onAServerThatComputedTheUnfilteredTiles_answersTheFirstBrushAtOnce() {
        Workflow session = workflow(new BrushEvent(0, FlightsViews.DISTANCE, 1, 2, 1), new BrushEvent(500, FlightsViews.AIR_TIME, 3, 4, 2));
        assertArrayEquals(new double[] {50, 50}, Replay.falconOnHover(session, 5, () -> 50), 1e-9);
        // AIR_TIME's tile is filtered by DISTANCE's brush: still computed on demand.
        assertArrayEquals(new double[] {0, 50}, Replay.falconOnHover(session, 5, () -> 50,
                PushReplay.Start::isStartupTile), 1e-9);
    }
}
