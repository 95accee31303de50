package dev.khameleon.simulator;

import dev.khameleon.simulator.net.MahimahiTrace;
import dev.khameleon.simulator.trace.PointerTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The paper's experiment grids (§6, Figures 6–13) as data: each {@link Experiment} lists its
 * settings (one panel column per {@code group}, one x value per setting) and the systems it
 * compares. Everything not varied keeps the reference value of {@link SimConfig#builder()}.
 * Stateless and thread-safe.
 */
public final class Experiments {
    private Experiments() {
    }

    /** One point of a grid: panel {@code group}, x value {@code x} (labelled {@code xLabel}). */
    public record Setting(String group, double x, String label, SimConfig config) {
    }

    /**
     * One experiment.
     *
     * @param name        CLI name, e.g. {@code fig8}
     * @param title       chart title
     * @param xAxis       what the x axis varies
     * @param logX        whether x is shown on a log scale
     * @param settings    the grid
     * @param systems     the systems compared
     * @param convergence whether runs replay traces cut at pause points and report utility over
     *                    time after the pause (Figure 10) instead of per-request metrics
     */
    public record Experiment(String name, String title, String xAxis, boolean logX, List<Setting> settings,
                             List<String> systems, boolean convergence) {
    }

    /** The experiment names, in the paper's order. */
    public static List<String> names() {
        return List.of("fig6-7", "fig8", "fig9", "fig10", "fig11", "fig12", "fig13");
    }

    /**
     * The experiment {@code name} on top of {@code base}.
     *
     * @param dataDir the shared data directory (for Fig. 13's network traces)
     * @throws IllegalArgumentException for an unknown name or missing network traces
     */
    public static Experiment get(String name, SimConfig base, Path dataDir) {
        List<Setting> s = new ArrayList<>();
        switch (name) {
            case "fig6-7" -> {
                for (double cache : new double[] {10, 50, 100}) {
                    for (double bw : new double[] {1.5, 3, 5.625, 10, 15}) {
                        s.add(new Setting("cache " + fmt(cache) + " MB", bw, fmt(bw) + " MB/s",
                                base.toBuilder().cacheMB(cache).bandwidthMBps(bw).latencyMillis(100).build()));
                    }
                }
                return new Experiment(name, "Fig. 6-7: bandwidth x cache (latency 100 ms)", "bandwidth (MB/s)", true, s,
                        List.of("khameleon", "baseline", "acc-0.8-1", "acc-1-1", "acc-1-5"), false);
            }
            case "fig8" -> {
                for (double lat : new double[] {20, 50, 100, 200, 400}) {
                    s.add(new Setting("15 MB/s, cache 50 MB", lat, fmt(lat) + " ms",
                            base.toBuilder().bandwidthMBps(15).cacheMB(50).latencyMillis(lat).build()));
                }
                return new Experiment(name, "Fig. 8: request latency (15 MB/s, cache 50 MB)", "request latency (ms)",
                        true, s, List.of("khameleon", "baseline", "acc-0.8-1", "acc-1-1", "acc-1-5"), false);
            }
            case "fig9" -> {
                for (double[] r : resources()) {
                    for (double think : new double[] {10, 20, 50, 100, 200}) {
                        s.add(new Setting(resourceName(r), think, fmt(think) + " ms", base.toBuilder()
                                .bandwidthMBps(r[0]).cacheMB(r[1]).latencyMillis(100).thinkTimeMillis(think).build()));
                    }
                }
                return new Experiment(name, "Fig. 9: think time (latency 100 ms)", "think time (ms)", true, s,
                        List.of("khameleon", "oracle", "acc-1-1", "acc-1-5"), false);
            }
            case "fig10" -> {
                int i = 0;
                for (double[] r : resources()) {
                    s.add(new Setting(resourceName(r), ++i, resourceName(r),
                            base.toBuilder().bandwidthMBps(r[0]).cacheMB(r[1]).latencyMillis(100).build()));
                }
                return new Experiment(name, "Fig. 10: utility after the pointer stops", "elapsed since request (ms)",
                        true, s, List.of("khameleon", "acc-1-1", "acc-1-5", "baseline"), true);
            }
            case "fig11" -> {
                for (double lat : new double[] {20, 50, 100, 200, 400}) {
                    s.add(new Setting("15 MB/s, cache 50 MB", lat, fmt(lat) + " ms",
                            base.toBuilder().bandwidthMBps(15).cacheMB(50).latencyMillis(lat).build()));
                }
                return new Experiment(name, "Fig. 11: ablation (15 MB/s, cache 50 MB)", "request latency (ms)", true, s,
                        List.of("khameleon", "predictor-only", "progressive", "baseline", "acc-1-5"), false);
            }
            case "fig12" -> {
                for (double bw : new double[] {1.5, 5.625, 15}) {
                    s.add(new Setting("latency 100 ms, cache 50 MB", bw, fmt(bw) + " MB/s",
                            base.toBuilder().bandwidthMBps(bw).cacheMB(50).latencyMillis(100).build()));
                }
                return new Experiment(name, "Fig. 12: predictors (latency 100 ms, cache 50 MB)", "bandwidth (MB/s)",
                        true, s, List.of("khameleon", "oracle", "uniform", "acc-1-5", "baseline"), false);
            }
            case "fig13" -> {
                String[] files = {"Verizon-LTE-short.down", "ATT-LTE-driving-2016.down", "TMobile-LTE-short.down",
                    "ATT-LTE-driving.down"};
                Path dir = dataDir.resolve("network/mahimahi");
                for (String f : files) {
                    Path p = dir.resolve(f);
                    if (!Files.isRegularFile(p)) {
                        throw new IllegalArgumentException("Mahimahi trace not found: " + p.toAbsolutePath());
                    }
                    MahimahiTrace t = MahimahiTrace.read(p);
                    double mbps = t.meanBytesPerSecond() / 1e6;
                    s.add(new Setting("min RTT 100 ms, cache 50 MB", mbps, f.replace(".down", ""),
                            base.toBuilder().networkTrace(t).latencyMillis(100).cacheMB(50).build()));
                }
                return new Experiment(name, "Fig. 13: cellular links (Mahimahi, min RTT 100 ms)",
                        "mean link rate (MB/s)", true, s, List.of("khameleon", "baseline", "acc-1-1", "acc-1-5"), false);
            }
            default -> throw new IllegalArgumentException("unknown experiment " + name + "; known: "
                    + String.join(", ", names()));
        }
    }

    /** The paper's low, medium and high resource settings: {bandwidth MB/s, cache MB}. */
    static List<double[]> resources() {
        return List.of(new double[] {1.5, 10}, new double[] {5.625, 50}, new double[] {15, 100});
    }

    static String resourceName(double[] r) {
        String level = r[0] < 2 ? "low" : r[0] < 10 ? "medium" : "high";
        return level + " (" + fmt(r[0]) + " MB/s, " + fmt(r[1]) + " MB)";
    }

    /**
     * Pause points for Figure 10: each trace cut at {@code perTrace} random times (seeded) in the
     * second half of the trace, so the pointer stops there and the last request is the one
     * whose convergence is measured.
     */
    public static List<PointerTrace> pausePoints(List<PointerTrace> traces, int perTrace, long seed) {
        List<PointerTrace> out = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(seed);
        for (PointerTrace t : traces) {
            for (int k = 0; k < perTrace; k++) {
                double at = t.durationMillis() * (0.5 + 0.5 * random.nextDouble());
                out.add(t.truncate(at, "@" + Math.round(at / 1000) + "s"));
            }
        }
        return out;
    }

    /** Groups settings by panel, keeping order. */
    public static Map<String, List<Setting>> byGroup(List<Setting> settings) {
        Map<String, List<Setting>> out = new LinkedHashMap<>();
        for (Setting s : settings) {
            out.computeIfAbsent(s.group(), g -> new ArrayList<>()).add(s);
        }
        return out;
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
