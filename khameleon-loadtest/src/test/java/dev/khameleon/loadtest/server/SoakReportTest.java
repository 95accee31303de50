package dev.khameleon.loadtest.server;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakReportTest {
    /** 100 KB/s per session: a slot of one 4,096-byte block frame is FRAME_BYTES / 1e5 s. */
    private static final double RATE = 100_000;
    private static final double SLOT_MS = LoadApp.FRAME_BYTES / RATE * 1e3;

    private static SoakReport.Phase phase(String name, long bytes, double p99Slots, long heap, long direct,
                                          long errors, long closed) {
        long p99 = Math.round(p99Slots * SLOT_MS * 1e6);
        return new SoakReport.Phase(name, 200, 20, bytes, RATE, 1000, 3, p99 / 2, p99, 0.75, 0.5, 0.25, closed, heap,
                direct, -1, errors, 0);
    }

    private static SoakReport report(SoakReport.Phase baseline, SoakReport.Phase loaded) {
        return new SoakReport(baseline, loaded, Map.of(HostileKind.HUGE_CACHE,
                new HostileCounts(7, 0, 0, new TreeMap<>(Map.of("error limit_exceeded", 7L, "close 1008", 7L)))),
                new TreeMap<>(Map.of("limit_exceeded", 7L)), 12, 500_000_000L, 100_000_000L);
    }

    private static Map<String, Boolean> verdicts(SoakReport r) {
        Map<String, Boolean> out = new TreeMap<>();
        for (SoakReport.Target t : r.targets()) {
            out.put(t.name(), t.met());
        }
        return out;
    }

    @Test
    void mbPerSession_isBytesOverSecondsOverSessions() {
        // 200 sessions × 20 s × 0.1 MB/s = 400 MB
        assertEquals(0.1, phase("unloaded", 400_000_000L, 1, 0, 0, 0, 0).mbPerSession(), 1e-12);
    }

    @Test
    void p99Slots_dividesByTheSlotAtThePace() {
        SoakReport.Phase p = new SoakReport.Phase("x", 1, 1, 1, 1e6, 1, 0, 0, 8_000_000, 0, 0, 0, 0, 0, 0, -1, 0, 0);
        // a 4,096-byte block with its header at 1 MB/s; 8 ms is 8 ms / slot
        assertEquals(8.0 / (LoadApp.FRAME_BYTES / 1e3), p.p99Slots(), 1e-12);
    }

    @Test
    void throughputRatio_isLoadedOverUnloaded() {
        SoakReport r = report(phase("unloaded", 400_000_000L, 1, 0, 0, 0, 0),
                phase("loaded", 364_000_000L, 1, 0, 0, 0, 0));
        assertEquals(0.91, r.throughputRatio(), 1e-12);
    }

    @Test
    void targets_allMet_whenWithinEveryBound() {
        SoakReport r = report(phase("unloaded", 400_000_000L, 1, 100, 10, 0, 0),
                phase("loaded", 380_000_000L, 1.9, 500_000_000L, 100_000_000L, 0, 0));
        assertFalse(verdicts(r).containsValue(false), verdicts(r).toString());
        assertEquals(6, r.targets().size());
    }

    @Test
    void targets_allMissed_whenEveryBoundIsExceeded() {
        SoakReport r = report(phase("unloaded", 400_000_000L, 1, 100, 10, 0, 0),
                phase("loaded", 359_000_000L, 2.1, 500_000_001L, 100_000_001L, 1, 1));
        assertEquals(List.of(false), List.copyOf(new HashSet<>(verdicts(r).values())));
    }

    @Test
    void direct_judgesTheLargerOfTheJdkAndNettyCounts() {
        SoakReport.Phase p = new SoakReport.Phase("x", 1, 1, 1, RATE, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 9, 0, 0);
        assertEquals(9, p.direct());
    }

    @Test
    void targets_withoutLoadedPhase_judgeTheBaselineAndMissTheRatio() {
        SoakReport r = new SoakReport(phase("unloaded", 400_000_000L, 1, 100, 10, 0, 0), null, Map.of(),
                new TreeMap<>(), 0, 1000, 1000);
        assertTrue(Double.isNaN(r.throughputRatio()));
        Map<String, Boolean> v = verdicts(r);
        assertFalse(v.get("healthy throughput ≥ 90 % of unloaded"));
        assertTrue(v.get("p99 state → first block ≤ 2 slots"));
    }

    @Test
    void bounds_addTheCacheBudgetToHeapAndAFullWriteBufferPerConnectionToDirectMemory() {
        SoakReport.Phase baseline = phase("unloaded", 1, 1, 100, 10, 0, 0);
        // 100 + 2,097,152 blocks × 400 B + 64 MiB
        assertEquals(100L + 838_860_800L + 67_108_864L, Soak.heapBound(baseline, 2_097_152));
        // 10 + 2 × (65,536 + 4,128) + 64 MiB
        assertEquals(10L + 139_328L + 67_108_864L, Soak.directBound(baseline, 2));
    }

    @Test
    void maxOpen_countsTheSessionsAMaxCacheClientHolds() {
        assertEquals(4 * 41, HostileKind.MAX_CACHE.maxOpen());
        assertEquals(24, HostileKind.NO_HELLO.maxOpen());
    }

    @Test
    void delta_keepsOnlyChangedKeys() {
        assertEquals(Map.of("missing_hello", 3L, "slow_consumer", 2L),
                SoakReport.delta(Map.of("missing_hello", 4L, "shutdown", 1L),
                        Map.of("missing_hello", 7L, "shutdown", 1L, "slow_consumer", 2L)));
    }

    @Test
    void markdown_listsPhasesHostileKindsAndMissedTargets() {
        SoakReport r = report(phase("unloaded", 400_000_000L, 1, 100, 10, 0, 0),
                phase("loaded", 200_000_000L, 3, 100, 10, 0, 0));
        String md = r.markdown();
        assertTrue(md.contains("| unloaded | 200 | 100 | 0.1000 | 100 % | 1000 | 3 |"), md);
        assertTrue(md.contains("| 0.75 / 0.50 / 0.25 | 0 | 0.0 |"), md); // CPU, healthy closed, heap MB
        assertTrue(md.contains("| loaded | 200 | 100 | 0.0500 | 50.0 % |"), md);
        assertTrue(md.contains("| huge-cache | 1 | 7 | 0 | 0 | close 1008 ×7, error limit_exceeded ×7 |"), md);
        assertTrue(md.contains("limit_exceeded ×7; connections refused before a session: 12."), md);
        assertTrue(md.contains("| healthy throughput ≥ 90 % of unloaded | 50.0 % | **no** |"), md);
    }
}
