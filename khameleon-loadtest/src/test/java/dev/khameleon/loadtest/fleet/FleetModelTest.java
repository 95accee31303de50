package dev.khameleon.loadtest.fleet;

import dev.khameleon.loadtest.fleet.FleetModel.FleetRates;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fleet model's arithmetic on hand-made numbers, and its refusals of bad input. */
class FleetModelTest {
    private static final double EPS = 1e-9;

    /** Per session 0.05 cores, 100 kB/s, 50 reads/s of which 60 % from memory, 8 loads/s; origin 10 · S^0.5. */
    private static FleetRates run(int nodes, long sessions) {
        double origin = 10 * Math.sqrt(sessions);
        return new FleetRates(nodes, sessions, 0.05 * sessions, 100_000.0 * sessions, 50.0 * sessions,
                30.0 * sessions, 8.0 * sessions - origin, origin);
    }

    @Test
    void fit_recoversTheCoefficientsOfExactRuns() {
        FleetModel m = FleetModel.fit(List.of(run(1, 4), run(2, 8)));
        assertEquals(0.05, m.coresPerSession(), EPS);
        assertEquals(100_000, m.egressPerSession(), 1e-6);
        assertEquals(50, m.readsPerSession(), EPS);
        assertEquals(0.6, m.memoryHitRatio(), EPS);
        assertEquals(8, m.loadsPerSession(), EPS);
        assertEquals(10, m.originScale(), 1e-9);
        assertEquals(0.5, m.originExponent(), 1e-12);
    }

    @Test
    void predict_threeNodesFromOneAndTwo_matchesTheRunThatFollowsTheModel() {
        FleetModel m = FleetModel.fit(List.of(run(1, 4), run(2, 8)));
        FleetRates want = run(3, 12);
        FleetRates got = m.predict(3, 12);
        for (FleetModel.Quantity q : FleetModel.Quantity.values()) {
            assertEquals(q.of(want), q.of(got), 1e-6 * Math.max(1, q.of(want)), q.label());
        }
        assertEquals(10 * Math.sqrt(12), got.originComputations(), 1e-9);
        assertEquals(8 * 12 - 10 * Math.sqrt(12), got.redisResponses(), 1e-9);
    }

    @Test
    void fit_poolsCoefficientsOverRunsWeightedBySessions() {
        // 1 session at 0.1 cores and 3 sessions at 0.3 cores in all: 0.4 / 4 = 0.1 per session.
        FleetRates a = new FleetRates(1, 1, 0.1, 1000, 10, 5, 1, 1);
        FleetRates b = new FleetRates(1, 3, 0.3, 5000, 30, 9, 3, 2);
        FleetModel m = FleetModel.fit(List.of(a, b));
        assertEquals(0.1, m.coresPerSession(), EPS);
        assertEquals(1500, m.egressPerSession(), EPS);
        assertEquals(14.0 / 40, m.memoryHitRatio(), EPS);
        assertEquals(7.0 / 4, m.loadsPerSession(), EPS);
        assertEquals(Math.log(2) / Math.log(3), m.originExponent(), 1e-12);
    }

    @Test
    void predict_neverComputesMoreThanItLoads() {
        // Origin grows faster than sessions (α = 2): capped at the loads, nothing left for Redis.
        FleetRates a = new FleetRates(1, 1, 0.1, 1000, 10, 0, 100, 1);
        FleetRates b = new FleetRates(2, 2, 0.2, 2000, 20, 0, 198, 4);
        FleetRates far = FleetModel.fit(List.of(a, b)).predict(100, 100_000);
        assertEquals(101 * 100_000.0, far.originComputations(), 1e-3);
        assertEquals(0, far.redisResponses(), 1e-6);
    }

    @Test
    void fit_splitsTheSharedTierReadsBetweenRedisAndTheObjectStoreByTheirMeasuredShare() {
        // Loads 2 per session; origin 2 · S^0.5; of the rest, 60 + 100 from Redis and 40 + 60 from the store.
        FleetRates a = new FleetRates(1, 64, 0.64, 6400, 640, 320, 60, 16, 40);
        FleetRates b = new FleetRates(2, 128, 1.28, 12_800, 1280, 640, 100, 16 * Math.sqrt(2), 60);
        FleetModel m = FleetModel.fit(List.of(a, b));
        assertEquals(100.0 / 260, m.objectStoreShare(), 1e-12);
        FleetRates p = m.predict(4, 256);
        double loads = (a.loads() + b.loads()) / 192 * 256;
        assertEquals(loads, p.loads(), 1e-9);
        assertEquals(32, p.originComputations(), 1e-9);
        assertEquals((loads - 32) * 100 / 260, p.objectStoreResponses(), 1e-9);
        assertEquals((loads - 32) * 160 / 260, p.redisResponses(), 1e-9);
        // Without an object store the shared reads are all Redis's, as before.
        assertEquals(0, FleetModel.fit(List.of(run(1, 4), run(2, 8))).predict(3, 12).objectStoreResponses());
        assertThrows(IllegalArgumentException.class, () -> new FleetRates(1, 4, 0, 0, 0, 0, 0, 0, -1));
    }

    @Test
    void size_takesTheTighterBudgetAndRoundsNodesUp() {
        FleetModel m = FleetModel.fit(List.of(run(1, 4), run(2, 8)));
        // Cores do not follow the origin in these runs (c_o = 0): 8 cores / 0.05 = 160 sessions per node.
        FleetRates r = m.size(100_000, 8, 1e9);
        assertEquals(625, r.nodes());
        assertEquals(5000, r.cores(), 1e-6);
        assertEquals(1e10, r.egressBytes(), 1e-3);
        assertEquals(626, m.size(100_001, 8, 1e9).nodes());
        // 1e7 B/s / 1e5 = 100 sessions per node: egress binds.
        assertEquals(1000, m.size(100_000, 8, 1e7).nodes());
        assertEquals(1, m.size(1, 8, 1e9).nodes());
    }

    @Test
    void fit_separatesTheCoresOfOriginComputations() {
        // cores = 0.04 per session + 0.001 per computation/s; the origin grows as 100 · S^0.5.
        FleetRates a = new FleetRates(1, 4, 0.04 * 4 + 0.001 * 200, 1000, 10, 5, 300, 200);
        FleetRates b = new FleetRates(2, 16, 0.04 * 16 + 0.001 * 400, 4000, 40, 20, 1200, 400);
        FleetModel m = FleetModel.fit(List.of(a, b));
        assertEquals(0.04, m.coresPerSession(), 1e-9);
        assertEquals(0.001, m.coresPerComputation(), 1e-12);
        assertEquals(0.04 * 36 + 0.001 * 600, m.predict(3, 36).cores(), 1e-9);
    }

    @Test
    void fit_fallsBackToCoresPerSessionWhenTheSplitComesOutNegative() {
        // More cores with fewer computations per session: the split would give c_o < 0.
        FleetRates a = new FleetRates(1, 4, 0.2, 1000, 10, 5, 100, 200);
        FleetRates b = new FleetRates(2, 8, 0.6, 2000, 20, 10, 200, 210);
        FleetModel m = FleetModel.fit(List.of(a, b));
        assertEquals(0, m.coresPerComputation());
        assertEquals(0.8 / 12, m.coresPerSession(), 1e-12);
    }

    @Test
    void fit_refusesTooFewRunsEqualSizesAndRunsWithoutOriginWork() {
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> FleetModel.fit(List.of(run(1, 4))));
        assertTrue(one.getMessage().contains("at least two"), one.getMessage());
        IllegalArgumentException same = assertThrows(IllegalArgumentException.class,
                () -> FleetModel.fit(List.of(run(1, 4), run(1, 4))));
        assertTrue(same.getMessage().contains("different sizes"), same.getMessage());
        FleetRates idleOrigin = new FleetRates(2, 8, 0.4, 800_000, 400, 240, 64, 0);
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> FleetModel.fit(List.of(run(1, 4), idleOrigin)));
        assertTrue(none.getMessage().contains("computed nothing at the origin"), none.getMessage());
    }

    @Test
    void rates_refuseImpossibleValues() {
        assertThrows(IllegalArgumentException.class, () -> new FleetRates(0, 4, 0, 0, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new FleetRates(1, 0, 0, 0, 0, 0, 0, 0));
        IllegalArgumentException nan = assertThrows(IllegalArgumentException.class,
                () -> new FleetRates(1, 4, Double.NaN, 0, 0, 0, 0, 0));
        assertTrue(nan.getMessage().startsWith("cores"), nan.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new FleetRates(1, 4, 0, -1, 0, 0, 0, 0));
        IllegalArgumentException memory = assertThrows(IllegalArgumentException.class,
                () -> new FleetRates(1, 4, 0, 0, 10, 11, 0, 0));
        assertTrue(memory.getMessage().contains("exceed"), memory.getMessage());
    }

    @Test
    void predictAndSize_refuseBadSizesAndBudgets() {
        FleetModel m = FleetModel.fit(List.of(run(1, 4), run(2, 8)));
        assertThrows(IllegalArgumentException.class, () -> m.predict(0, 10));
        assertThrows(IllegalArgumentException.class, () -> m.predict(1, 0));
        assertThrows(IllegalArgumentException.class, () -> m.size(10, 0, 1e9));
        IllegalArgumentException inf = assertThrows(IllegalArgumentException.class,
                () -> m.size(10, 8, Double.POSITIVE_INFINITY));
        assertTrue(inf.getMessage().startsWith("egress per node"), inf.getMessage());
        assertThrows(IllegalArgumentException.class, () -> m.size(0, 8, 1e9));
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> m.size(1_000_000_000_000L, 1e-6, 1e9));
        assertTrue(huge.getMessage().contains("nodes"), huge.getMessage());
    }

    @Test
    void sum_addsNodesSessionsAndRates() {
        FleetRates s = FleetRates.sum(List.of(new FleetRates(1, 4, 0.2, 10, 20, 5, 1, 2, 7),
                new FleetRates(1, 5, 0.3, 30, 40, 15, 3, 4, 1)));
        assertEquals(new FleetRates(2, 9, 0.5, 40, 60, 20, 4, 6, 8), s);
        assertThrows(IllegalArgumentException.class, () -> FleetRates.sum(List.of()));
    }
}
