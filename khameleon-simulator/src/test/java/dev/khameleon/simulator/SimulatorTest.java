package dev.khameleon.simulator;

import dev.khameleon.testing.SharedData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.trace.GalleryReader;
import dev.khameleon.simulator.trace.PointerTrace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SimulatorTest {

    /** A short real trace (10 s recorded on the gallery demo). */
    static PointerTrace galleryTrace() {
        return GalleryReader.read(SharedData.require("pointer/gallery/1M-10s.json"));
    }

    /** A synthetic sweep across a 10x10 mosaic on a 1000x1000 screen, one cell every 50 ms. */
    static PointerTrace sweep(int cells) {
        double[] t = new double[cells];
        double[] x = new double[cells];
        double[] y = new double[cells];
        for (int i = 0; i < cells; i++) {
            t[i] = i * 50.0;
            int cell = (i * 37) % 100;
            x[i] = (cell % 10) * 100 + 50;
            y[i] = (cell / 10) * 100 + 50;
        }
        return PointerTrace.of("sweep", t, x, y, 1000, 1000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"baseline", "progressive", "acc-0.8-1", "acc-1-5"})
    void zeroCache_meansNoHits(String system) {
        SimConfig config = SimConfig.builder().cacheMB(0).build();
        Metrics m = Simulator.run(config, galleryTrace(), system).metrics();
        assertTrue(m.requests() > 10, "requests: " + m.requests());
        assertEquals(0.0, m.hitRate(), system + " hit without a cache");
    }

    @Test
    void baseline_revisitHitsTheLruCacheAndFullResponsesHaveUtilityOne() {
        SimConfig config = SimConfig.builder().mosaic(10, 10).bandwidthMBps(150).requestMode(RequestMode.PER_VISIT)
                .build();
        // Every cell visited twice, 100 requests apart, on an uncongested link (10 ms per
        // response): a 50 MB LRU (33 responses) has evicted each by its revisit, 1 GB keeps all.
        Metrics m = Simulator.run(config, sweep(200), "baseline").metrics();
        assertEquals(200, m.requests());
        assertEquals(1.0, m.meanUtility(), 1e-12);
        assertEquals(0.0, m.hitRate());
        SimConfig big = config.toBuilder().cacheMB(1000).build();
        Metrics mb = Simulator.run(big, sweep(200), "baseline").metrics();
        assertEquals(0.5, mb.hitRate(), 1e-12, "every revisit hits, no first visit can");
    }

    @Test
    void progressive_sendsOnlyTheFirstBlock() {
        SimConfig config = SimConfig.builder().mosaic(10, 10).build();
        Metrics m = Simulator.run(config, sweep(50), "progressive").metrics();
        Workload w = new Workload(Workload.mosaic(10, 10, 1000, 1000), config.imageBytes(), config.blockBytes(),
                config.utility());
        assertEquals(w.utilityOf(1), m.meanUtility(), 1e-12);
        assertTrue(Double.isNaN(m.convergenceMs()), "never reaches utility 1");
        assertEquals(50L * config.blockBytes(), m.receivedBytes());
    }

    @Test
    void acc_guessesOncePerNewRequest_notOncePerSampleOfTheSameCell() {
        // Three cells, a second each, sampled every 20 ms: 150 per-sample requests, 3 new ones.
        int n = 150;
        double[] t = new double[n];
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            t[i] = i * 20.0;
            x[i] = 50 + 100 * (i / 50);
            y[i] = 50;
        }
        PointerTrace dwell = PointerTrace.of("dwell", t, x, y, 1000, 1000);
        SimConfig config = SimConfig.builder().profile(Profile.PAPER_PROTOTYPE).mosaic(10, 10).bandwidthMBps(15).build();
        Metrics wrong = Simulator.run(config, dwell, SystemRegistry.acc(0, 1)).metrics();
        // Three demand fetches and at most one wrong guess for each of the two requests with a
        // next one; a guess on every sample would fetch up to 97 others.
        assertTrue(wrong.receivedBytes() <= 5 * config.imageBytes(), "received " + wrong.receivedBytes());
        assertTrue(wrong.receivedBytes() >= 3 * config.imageBytes(), "received " + wrong.receivedBytes());
        Metrics right = Simulator.run(config, dwell, "acc-1-1").metrics();
        assertEquals(3 * config.imageBytes(), right.receivedBytes(), "the two right guesses are the next cells");
        assertTrue(right.hitRate() > wrong.hitRate(), "the right guess answers the next cell at once");
    }

    @Test
    void acc_aDemandFetchGoesBeforeQueuedPrefetches_whichANewRequestCancels() {
        // Every 50 ms a new cell, 20 cells, on a link that sends one picture in 68 ms: with 5
        // guesses per request the prefetches can never keep up, so unless demands overtake them
        // and a new request drops the stale ones, demand latency grows with the queue.
        SimConfig config = SimConfig.builder().profile(Profile.PAPER_PROTOTYPE).mosaic(10, 10).bandwidthMBps(15)
                .requestMode(RequestMode.PER_VISIT).build();
        Metrics plain = Simulator.run(config, sweep(20), "baseline").metrics();
        Metrics acc = Simulator.run(config, sweep(20), SystemRegistry.acc(0, 5)).metrics();
        assertTrue(acc.receivedBytes() < 20L * 6 * config.imageBytes(), "stale prefetches were cancelled");
        assertTrue(acc.meanLatencyMs() <= plain.meanLatencyMs() + 68, "a demand waits at most one prefetch in "
                + "transmission: " + acc.meanLatencyMs() + " vs baseline " + plain.meanLatencyMs());
    }

    @Test
    void baselineLatency_isRoundTripPlusTransmissionWhenUncongested() {
        // One request every 2 s: no queueing. 1.5 MB at 15 MB/s = 100 ms, plus 100 ms round trip.
        double[] t = {0, 2000, 4000};
        double[] x = {50, 150, 250};
        double[] y = {50, 50, 50};
        PointerTrace slow = PointerTrace.of("slow", t, x, y, 1000, 1000);
        SimConfig config = SimConfig.builder().profile(Profile.LEGACY_100K).mosaic(10, 10).bandwidthMBps(15)
                .latencyMillis(100).requestMode(RequestMode.PER_VISIT).build();
        Metrics m = Simulator.run(config, slow, "baseline").metrics();
        assertEquals(200.0, m.meanLatencyMs(), 1e-6);
        assertEquals(0.0, m.preemptedRate());
        assertEquals(200.0, m.convergenceMs(), 1e-6);
    }

    @Test
    void sameSeed_givesIdenticalCsv() {
        PointerTrace trace = galleryTrace();
        SimConfig config = SimConfig.builder().seed(42).build();
        List<String> systems = List.of("baseline", "acc-0.8-1", "progressive");
        assertEquals(csv(config, trace, systems), csv(config, trace, systems));
    }

    private static String csv(SimConfig config, PointerTrace trace, List<String> systems) {
        List<Simulator.Result> results = new ArrayList<>();
        for (String s : systems) {
            results.add(Simulator.run(config, trace, s));
        }
        return CsvReporter.csv(results);
    }

    @Test
    void thinkTime_spacesRequestsEvenly() {
        SimConfig config = SimConfig.builder().profile(Profile.LEGACY_100K).mosaic(10, 10).thinkTimeMillis(200).bandwidthMBps(15)
                .requestMode(RequestMode.PER_VISIT).build();
        Metrics m = Simulator.run(config, sweep(20), "baseline").metrics();
        // 200 ms apart, each response takes 100 ms + 100 ms round trip: exactly no queueing.
        assertEquals(20, m.requests());
        assertEquals(200.0, m.p95LatencyMs(), 1e-6);
    }

    @Test
    void unknownSystem_isRejectedWithTheKnownNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SystemRegistry.create("lru"));
        assertTrue(e.getMessage().startsWith("unknown system lru; known: khameleon, oracle,"), e.getMessage());
        assertTrue(e.getMessage().contains("'khameleon-simulator systems' lists them all"), e.getMessage());
        // A variant is a registered entry, not a name read at run time.
        assertThrows(IllegalArgumentException.class, () -> SystemRegistry.create("acc-0.9-2"));
        assertThrows(IllegalArgumentException.class, () -> SystemRegistry.acc(1.5, 1));
        assertThrows(IllegalArgumentException.class, () -> SystemRegistry.acc(1, 0));
    }

    @Test
    void acc_namesItsSettingsAsThePaperDoes() {
        assertEquals("acc-0.8-1", SystemRegistry.acc(0.8, 1).name());
        assertEquals("acc-1-5", SystemRegistry.acc(1, 5).name());
        assertEquals(List.of("acc-0.8-1", "acc-1-1", "acc-1-5"),
                SystemRegistry.names().stream().filter(n -> n.startsWith("acc-")).toList());
    }

    @Test
    void everyRegisteredSystem_hasAUniqueNameAndMakesAFreshInstancePerRun() {
        List<String> names = SystemRegistry.names();
        assertEquals(names.size(), new java.util.HashSet<>(names).size());
        for (SystemSpec s : SystemRegistry.all()) {
            assertTrue(s.create() != s.create(), s.name() + " hands out one instance twice");
        }
    }
}
