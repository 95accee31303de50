package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.trace.PointerTrace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Khameleon's variants, driven through the library's scheduler, ring cache, cache manager and predictors. */
class PushSystemTest {

    @ParameterizedTest
    @ValueSource(strings = {"uniform", "khameleon", "ideal-sender"})
    void hugeBandwidthAndCache_everyRequestIsAFullHit(String system) {
        // 100 images x 15 blocks = 1,500 blocks; a 400 MB ring (4,000 slots) holds them all, and at
        // 2 GB/s they are all pushed within the 30 s warm-up, in which the server's pace climbs from
        // its initial 1 MB/s with the client's receive-rate reports.
        SimConfig config = SimConfig.builder().mosaic(10, 10).cacheMB(400).bandwidthMBps(2000).warmupMillis(30_000)
                .requestMode(RequestMode.PER_VISIT).build();
        Metrics m = Simulator.run(config, SimulatorTest.sweep(120), system).metrics();
        assertEquals(120, m.requests());
        assertEquals(1.0, m.hitRate(), system);
        assertEquals(1.0, m.meanUtility(), 1e-12, system);
        assertEquals(0.0, m.preemptedRate(), system);
        assertEquals(0.0, m.meanLatencyMs(), system);
        assertEquals(0.0, m.convergenceMs(), system);
    }

    @Test
    void khameleon_runsTheServersEngine_whoseQueuedBytesInFrontOfTheLinkMakePushesLandLater() {
        // The server's pacer runs 25 % above its estimate, so the path's queue fills: with one
        // bandwidth-delay product queued, every block lands ~100 ms staler than with none. The
        // idealised sender never queues, so the queue cannot change its figures.
        PointerTrace trace = SimulatorTest.galleryTrace();
        SimConfig none = SimConfig.builder().profile(Profile.LEGACY_100K).linkQueueKB(0).build();
        SimConfig big = SimConfig.builder().profile(Profile.LEGACY_100K).linkQueueKB(2000).build();
        Metrics k0 = Simulator.run(none, trace, "khameleon").metrics();
        Metrics k1 = Simulator.run(big, trace, "khameleon").metrics();
        assertTrue(k1.meanLatencyMs() > k0.meanLatencyMs(), k1.meanLatencyMs() + " ms with 2 MB queued, "
                + k0.meanLatencyMs() + " ms with none");
        Metrics i0 = Simulator.run(none, trace, "ideal-sender").metrics();
        Metrics i1 = Simulator.run(big, trace, "ideal-sender").metrics();
        assertEquals(i0.meanLatencyMs(), i1.meanLatencyMs(), 0.0);
    }

    @Test
    void oracle_hitsAtLeastAsOftenAsKhameleon() {
        PointerTrace trace = SimulatorTest.galleryTrace();
        for (double bandwidth : new double[] {1.5, 15}) {
            SimConfig config = SimConfig.builder().bandwidthMBps(bandwidth).build();
            Metrics oracle = Simulator.run(config, trace, "oracle").metrics();
            Metrics khameleon = Simulator.run(config, trace, "khameleon").metrics();
            assertTrue(oracle.hitRate() >= khameleon.hitRate(), "at " + bandwidth + " MB/s oracle "
                    + oracle.hitRate() + " < khameleon " + khameleon.hitRate());
        }
    }

    @Test
    void khameleon_beatsBaselineHitRateOnARealTrace() {
        PointerTrace trace = SimulatorTest.galleryTrace();
        SimConfig config = SimConfig.builder().build();
        Metrics k = Simulator.run(config, trace, "khameleon").metrics();
        Metrics b = Simulator.run(config, trace, "baseline").metrics();
        assertTrue(k.hitRate() > b.hitRate(), k.hitRate() + " vs " + b.hitRate());
        assertTrue(k.meanUtility() > 0 && k.meanUtility() <= 1, "utility " + k.meanUtility());
        assertTrue(k.receivedBytes() > 0);
    }

    @Test
    void predictorOnly_answersWithFullResponsesOnly() {
        Metrics m = Simulator.run(SimConfig.builder().bandwidthMBps(15).build(), SimulatorTest.galleryTrace(),
                "predictor-only").metrics();
        assertTrue(m.requests() > 10);
        assertEquals(1.0, m.meanUtility(), 1e-12);
    }

    @Test
    void push_rejectsACacheSmallerThanOneBlock() {
        SimConfig config = SimConfig.builder().profile(Profile.LEGACY_100K).cacheMB(0.05).build();
        PointerTrace trace = SimulatorTest.galleryTrace();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Simulator.run(config, trace, "khameleon"));
        assertTrue(e.getMessage().contains("holds no block"), e.getMessage());
    }

    @Test
    void sameSeed_givesIdenticalCsvForEveryPushSystem() {
        PointerTrace trace = SimulatorTest.galleryTrace();
        SimConfig config = SimConfig.builder().seed(3).bandwidthMBps(3).build();
        List<String> systems = List.of("khameleon", "oracle", "uniform", "predictor-only");
        assertEquals(csv(config, trace, systems), csv(config, trace, systems));
        String other = csv(config.toBuilder().seed(4).build(), trace, List.of("uniform"));
        assertTrue(!other.equals(csv(config, trace, List.of("uniform"))), "the seed must matter for a sampling scheduler");
    }

    private static String csv(SimConfig config, PointerTrace trace, List<String> systems) {
        List<Simulator.Result> results = new ArrayList<>();
        for (String s : systems) {
            results.add(Simulator.run(config, trace, s));
        }
        return CsvReporter.csv(results);
    }
}
