package dev.khameleon.examples.crossfilter;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

/**
 * The evaluation: measures the backend's query latencies on real brush states, measures the
 * progressive tiles' utility, and replays every recorded session under on-demand querying and
 * under Falcon's tile on activation, printing Markdown tables.
 */
final class Evaluation {
    /** What to measure and replay. */
    record Settings(int queryEvents, int tiles, int utilityStates, int concurrency, int blockSize, long seed,
            int predictTop, long pauseMs) {
    }

    private final TileBackend backend;
    private final List<Workflow> workflows;
    private final Settings settings;
    private final PrintStream out;

    Evaluation(TileBackend backend, List<Workflow> workflows, Settings settings, PrintStream out) {
        this.backend = backend;
        this.workflows = workflows;
        this.settings = settings;
        this.out = out;
    }

    void run() throws SQLException {
        SplittableRandom random = new SplittableRandom(settings.seed());
        List<int[]> events = new ArrayList<>(); // {workflow, event}
        List<int[]> activations = new ArrayList<>();
        for (int w = 0; w < workflows.size(); w++) {
            for (int i = 0; i < workflows.get(w).events().size(); i++) {
                events.add(new int[] {w, i});
                if (workflows.get(w).isViewSwitch(i)) {
                    activations.add(new int[] {w, i});
                }
            }
        }
        // Warm-up: load the table into memory and compile the plans once before timing anything.
        for (View v : View.values()) {
            backend.histogram(v, Filters.none());
        }

        double[] histogramMs = new double[settings.queryEvents() * (View.values().length - 1)];
        int h = 0;
        for (int n = 0; n < settings.queryEvents(); n++) {
            int[] pick = events.get(random.nextInt(events.size()));
            Workflow w = workflows.get(pick[0]);
            Filters f = w.filtersAfter().get(pick[1]);
            for (View passive : Tile.passives(w.events().get(pick[1]).view())) {
                long t0 = System.nanoTime();
                backend.histogram(passive, f);
                histogramMs[h++] = (System.nanoTime() - t0) / 1e6;
            }
        }

        Map<TileKey, Tile> tiles = new HashMap<>();
        List<Double> slices = new ArrayList<>();
        List<Double> wholeTiles = new ArrayList<>();
        for (int n = 0; n < settings.tiles(); n++) {
            int[] pick = activations.get(random.nextInt(activations.size()));
            Workflow w = workflows.get(pick[0]);
            TileKey key = new TileKey(w.events().get(pick[1]).view(), w.filtersAfter().get(pick[1]));
            List<Slice> parts = new ArrayList<>();
            double total = 0;
            for (View passive : Tile.passives(key.active())) {
                long t0 = System.nanoTime();
                parts.add(backend.slice(key, passive));
                double ms = (System.nanoTime() - t0) / 1e6;
                slices.add(ms);
                total += ms;
            }
            wholeTiles.add(total);
            tiles.put(key, new Tile(key, parts));
        }
        double[] sliceMs = slices.stream().mapToDouble(Double::doubleValue).toArray();

        List<BrushState> states = new ArrayList<>();
        for (BrushState s : BrushState.all(workflows)) {
            if (tiles.containsKey(s.key())) {
                states.add(s);
            }
        }
        TileEncoder encoder = TileEncoder.withBlockSize(settings.blockSize());
        TileUtility utility = TileUtility.measure(BrushState.sample(states, settings.utilityStates(), settings.seed()),
                tiles::get, encoder, TileUtility.defaultFractions());

        List<Double> onDemandWithin = new ArrayList<>();
        List<Double> onDemandSwitch = new ArrayList<>();
        List<Double> falconWithin = new ArrayList<>();
        List<Double> falconSwitch = new ArrayList<>();
        List<Double> predictedWithin = new ArrayList<>();
        List<Double> predictedSwitch = new ArrayList<>();
        DoubleSupplier histogramSampler = sampler(histogramMs, random.split());
        DoubleSupplier sliceSampler = sampler(sliceMs, random.split());
        for (Workflow w : workflows) {
            double[] od = Replay.onDemand(w, settings.concurrency(), histogramSampler);
            double[] fa = Replay.falconOnHover(w, settings.concurrency(), sliceSampler);
            double[] pr = Replay.predictedPrefetch(w, settings.concurrency(), sliceSampler,
                    MarkovPrior.learn(workflows, w), settings.predictTop(), settings.pauseMs());
            for (int i = 0; i < od.length; i++) {
                (w.isViewSwitch(i) ? onDemandSwitch : onDemandWithin).add(od[i]);
                (w.isViewSwitch(i) ? falconSwitch : falconWithin).add(fa[i]);
                (w.isViewSwitch(i) ? predictedSwitch : predictedWithin).add(pr[i]);
            }
        }

        out.printf(Locale.ROOT, "Backend %s, %,d rows, concurrency %d, seed %d; %d sessions, %,d brush events.%n%n",
                backend.name(), backend.rows(), settings.concurrency(), settings.seed(), workflows.size(),
                events.size());
        out.println("Measured query latencies (one query at a time), ms:");
        out.println();
        out.println("| query | n | p50 | p99 |");
        out.println("|---|---:|---:|---:|");
        row("histogram (on-demand, one passive view)", histogramMs);
        row("tile slice (one passive view)", sliceMs);
        row("whole tile (5 slices, sequential)", wholeTiles.stream().mapToDouble(Double::doubleValue).toArray());
        out.println();
        out.println("Replay of every session (backend latency only; no network):");
        out.println();
        out.println("| system | brush updates within a view: n | p50 ms | p99 ms | within 100 ms "
                + "| view switches: n | p50 ms | p99 ms | within 100 ms |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        system("On-demand (stale queries dropped)", onDemandWithin, onDemandSwitch);
        system("Falcon on hover (tile per active view)", falconWithin, falconSwitch);
        system(String.format(Locale.ROOT, "Falcon + predicted next view (Markov, leave-one-out, top %d, after a %d ms"
                + " pause)", settings.predictTop(), settings.pauseMs()), predictedWithin, predictedSwitch);
        out.println();
        out.printf(Locale.ROOT, "Utility of a tile prefix (1 - mean TVD over %d real brush states, %d-byte blocks, "
                + "%d-%d blocks per tile):%n%n", utility.states(), settings.blockSize(),
                minBlocks(encoder), maxBlocks(encoder));
        StringBuilder head = new StringBuilder("| fraction of blocks |");
        StringBuilder line = new StringBuilder("|---|");
        StringBuilder vals = new StringBuilder("| utility |");
        for (int i = 0; i < utility.fractions().length; i++) {
            head.append(String.format(Locale.ROOT, " %.1f |", utility.fractions()[i]));
            line.append("---:|");
            vals.append(String.format(Locale.ROOT, " %.3f |", utility.utilities()[i]));
        }
        out.println(head);
        out.println(line);
        out.println(vals);
    }

    private static int minBlocks(TileEncoder e) {
        int min = Integer.MAX_VALUE;
        for (View v : View.values()) {
            min = Math.min(min, e.blockCount(v));
        }
        return min;
    }

    private static int maxBlocks(TileEncoder e) {
        int max = 0;
        for (View v : View.values()) {
            max = Math.max(max, e.blockCount(v));
        }
        return max;
    }

    private void row(String name, double[] ms) {
        LatencyStats s = LatencyStats.of(ms);
        out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f |%n", name, s.count(), s.p50(), s.p99());
    }

    private void system(String name, List<Double> within, List<Double> switches) {
        LatencyStats a = LatencyStats.of(within.stream().mapToDouble(Double::doubleValue).toArray());
        LatencyStats b = LatencyStats.of(switches.stream().mapToDouble(Double::doubleValue).toArray());
        out.printf(Locale.ROOT, "| %s | %,d | %.0f | %.0f | %.1f %% | %,d | %.0f | %.0f | %.1f %% |%n", name,
                a.count(), a.p50(), a.p99(), 100 * a.shareWithin100ms(), b.count(), b.p50(), b.p99(),
                100 * b.shareWithin100ms());
    }

    /** Draws uniformly from the measured values: the replay's service times. */
    private static DoubleSupplier sampler(double[] measured, SplittableRandom random) {
        return () -> measured[random.nextInt(measured.length)];
    }
}
