package dev.khameleon.simulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.tool.Cli;
import dev.khameleon.simulator.RequestMode;
import dev.khameleon.testing.SharedData;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code live} end to end on 20 s of a real Balabit session at the paper's default link
 * (5.625 MB/s, 100 ms): the CSV is {@code simulate}'s, with one row per request mode and the
 * simulator's request count, {@code link.csv} has the same rows, the real client got blocks and
 * answered from its cache, and the live server agrees with the simulator within the tolerance
 * docs/simulator.md documents (§ Simulator against the live server): hit rate and stale-hover
 * share within {@value #SHARE_TOLERANCE} (absolute), mean latency within a factor of
 * {@value #LATENCY_FACTOR} of the simulator's mean over seeds 1 to 3. The run takes the trace's
 * length; the tolerance is narrow enough to catch the simulator and the server drifting apart (the
 * server's unbounded kernel send buffer once made live wait 4.9 times the simulator's mean).
 *
 * <p>The comparison holds only for a run whose sender kept the link about as full as the
 * simulated one: link utilisation (delivered bytes/s over the link's rate, from the welcome to the
 * end of the replay) at least {@value #FULL_LINK}. The simulator's is 0.93 here (its start from
 * 1 MB/s); live runs measured 0.93 to 0.94 on an idle machine and 0.90 to 0.93 with both cores
 * busy. A run below that whose start ended under the link's rate (late rate reports, a stalled
 * machine) says nothing about the simulator: the test prints why and asserts only the
 * comparison's one-sided half, since a link carrying less can make live worse than the simulator,
 * never better. Below {@value #LEAST_LINK} the live sender is broken, not slow, and the test fails.
 */
class LiveReplayTest {
    private static final String FILE = "pointer/balabit/user7/session_0041905381.gz";
    private static final double SEGMENT_S = 20;
    static final double SHARE_TOLERANCE = 0.10;
    static final double LATENCY_FACTOR = 2.0;
    /** The least link utilisation at which live is compared with the simulator. */
    static final double FULL_LINK = 0.85;
    /** The least link utilisation a working live sender reaches, however busy the machine. */
    static final double LEAST_LINK = 0.5;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void live_writesSimulatesCsvWithOneRowPerModeAndTheSimulatorsRequests(@TempDir Path dir) throws IOException {
        String spec = SharedData.require(FILE) + "#0";
        String[] common = {"--trace", spec, "--segment-s", Double.toString(SEGMENT_S), "--request-mode",
            "per-sample,per-visit", "--bandwidth-MBps", "5.625", "--latency-ms", "100"};
        assertEquals(0, Cli.run(concat(new String[] {"live"}, common, "--drain-ms", "3000", "--out",
                dir.resolve("live").toString())));
        assertEquals(0, Cli.run(concat(new String[] {"simulate"}, common, "--systems", "khameleon", "--out",
                dir.resolve("sim").toString())));
        List<String> live = Files.readAllLines(dir.resolve("live/results.csv"));
        List<String> sim = Files.readAllLines(dir.resolve("sim/results.csv"));
        assertEquals(sim.get(0), live.get(0), "simulate's header");
        assertEquals(3, live.size(), "header + one row per mode: " + live);
        List<String> link = Files.readAllLines(dir.resolve("live/link.csv"));
        assertEquals(LiveCommand.LINK_HEADER, link.get(0), "link.csv's header");
        assertEquals(live.size(), link.size(), "link.csv has results.csv's rows: " + link);
        List<String> linkHeader = Arrays.asList(link.get(0).split(","));
        List<String> header = Arrays.asList(live.get(0).split(","));
        PointerTrace trace = TraceLoader.load(List.of(spec), TraceLoader.Format.BALABIT, 1, SEGMENT_S * 1000, 2000)
                .get(0);
        RequestMode[] modes = {RequestMode.PER_SAMPLE, RequestMode.PER_VISIT};
        for (int i = 0; i < modes.length; i++) {
            String[] row = live.get(1 + i).split(",");
            String[] simRow = sim.get(1 + i).split(",");
            assertEquals("khameleon", row[header.indexOf("system")]);
            assertEquals(simRow[header.indexOf("trace")], row[header.indexOf("trace")]);
            assertEquals(modes[i].label(), row[header.indexOf("request_mode")]);
            SimConfig config = SimConfig.builder().bandwidthMBps(5.625).latencyMillis(100).requestMode(modes[i]).build();
            int simulated = Simulator.run(config, trace, "khameleon").metrics().requests();
            assertEquals(simulated, Integer.parseInt(row[header.indexOf("requests")]), modes[i].label());
            String[] linkRow = link.get(1 + i).split(",");
            assertEquals(modes[i].label(), linkRow[linkHeader.indexOf("request_mode")]);
            double utilisation = Double.parseDouble(linkRow[linkHeader.indexOf("utilisation")]);
            // Above 1 the shaper would deliver faster than its rate (a packet of slack).
            assertTrue(utilisation <= 1.01, "link utilisation: " + link.get(1 + i));
            assertTrue(utilisation >= LEAST_LINK, "the live sender kept the link less than half full: " + link.get(1 + i));
            if (utilisation >= FULL_LINK) {
                agreesWithTheSimulator(config, trace, header, row, live.get(1 + i));
            } else {
                System.err.printf(Locale.ROOT, "LiveReplayTest, %s: the live link carried %s MB/s of %s (utilisation "
                        + "%.2f < %.2f): the live sender did not keep the link full, so live is not compared with the "
                        + "simulator; asserted only that it is no better%n", modes[i].label(),
                        linkRow[linkHeader.indexOf("delivered_MBps")], linkRow[linkHeader.indexOf("link_MBps")],
                        utilisation, FULL_LINK);
                noBetterThanTheSimulator(config, trace, header, row, live.get(1 + i));
            }
            double hit = Double.parseDouble(row[header.indexOf("hit_rate")]);
            assertTrue(hit > 0, "some requests found blocks in the real client's cache: " + live.get(1 + i));
            // Over-push is 0 exactly when nothing arrived, 1 when nothing arrived was ever used.
            double overpush = Double.parseDouble(row[header.indexOf("overpush_rate")]);
            assertTrue(overpush > 0 && overpush < 1, "blocks were received and used: " + live.get(1 + i));
            double stale = Double.parseDouble(row[header.indexOf("stale_hover_rate")]);
            assertTrue(stale >= 0 && stale <= 1, "stale hover rate " + stale);
        }
    }

    /** The judge: the live row against the simulator's mean over seeds 1 to 3 of the same run. */
    private static void agreesWithTheSimulator(SimConfig config, PointerTrace trace, List<String> header, String[] row,
                                               String line) {
        Judged j = judge(config, trace, header, row, line);
        assertTrue(Math.abs(j.liveHit - j.hit) <= SHARE_TOLERANCE, "hit rate: " + j.both);
        assertTrue(Math.abs(j.liveStale - j.stale) <= SHARE_TOLERANCE, "stale hover: " + j.both);
        assertTrue(j.liveMean <= LATENCY_FACTOR * j.mean && j.liveMean >= j.mean / LATENCY_FACTOR,
                "mean latency: " + j.both);
    }

    /** The judge's one-sided half, for a link that was not kept full: live is no better than the simulator. */
    private static void noBetterThanTheSimulator(SimConfig config, PointerTrace trace, List<String> header,
                                                 String[] row, String line) {
        Judged j = judge(config, trace, header, row, line);
        assertTrue(j.liveHit <= j.hit + SHARE_TOLERANCE, "hit rate no higher: " + j.both);
        assertTrue(j.liveStale >= j.stale - SHARE_TOLERANCE, "stale hover no lower: " + j.both);
        assertTrue(j.liveMean >= j.mean / LATENCY_FACTOR, "mean latency no lower: " + j.both);
    }

    /** The live row's figures and the simulator's means over seeds 1 to 3, with a line naming both. */
    private record Judged(double liveHit, double liveStale, double liveMean, double hit, double stale, double mean,
                          String both) {
    }

    private static Judged judge(SimConfig config, PointerTrace trace, List<String> header, String[] row, String line) {
        double hit = 0;
        double stale = 0;
        double mean = 0;
        for (long seed = 1; seed <= 3; seed++) {
            Simulator.Result r = Simulator.run(config.toBuilder().seed(seed).build(), trace, "khameleon");
            hit += r.metrics().hitRate() / 3;
            stale += r.metrics().staleHoverRate() / 3;
            mean += r.metrics().meanLatencyMs() / 3;
        }
        return new Judged(Double.parseDouble(row[header.indexOf("hit_rate")]),
                Double.parseDouble(row[header.indexOf("stale_hover_rate")]),
                Double.parseDouble(row[header.indexOf("mean_latency_ms")]), hit, stale, mean,
                "live " + line + " against simulated hit rate " + hit + ", stale hover " + stale + ", mean " + mean
                        + " ms");
    }

    private static String[] concat(String[] head, String[] middle, String... tail) {
        String[] all = Arrays.copyOf(head, head.length + middle.length + tail.length);
        System.arraycopy(middle, 0, all, head.length, middle.length);
        System.arraycopy(tail, 0, all, head.length + middle.length, tail.length);
        return all;
    }
}
