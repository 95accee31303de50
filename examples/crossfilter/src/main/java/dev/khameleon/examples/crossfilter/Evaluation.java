package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.scheduler.Selection;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

/**
 * The evaluation: measures the backend's query latencies on real brush states, measures the
 * progressive tiles' utility, and replays every recorded session under on-demand querying,
 * Falcon's tile on activation (with and without a predicted prefetch) and Khameleon's progressive
 * push (predicted and on hover), printing Markdown tables.
 */
final class Evaluation {
    /**
     * What to measure and replay.
     *
     * @param leadMs    the time from a session's connect to its first recorded event (its page
     *                  loading and the user pointing at a chart), which the recordings do not hold
     * @param coldStart sessions connect at their first event on a server that computed nothing at
     *                  start-up, and predicted Khameleon's first plan is uniform over the views
     *                  ({@code leadMs} is then ignored)
     */
    record Settings(int queryEvents, int tiles, int utilityStates, int concurrency, int blockSize, long seed,
            int predictTop, long pauseMs, Push push, double leadMs, boolean coldStart) {
    }

    /** Leads of the cold-start table, ms: none, around one round trip of the default link, and human times. */
    static final double[] LEADS_MS = {0, 50, 105, 115, 150, 250, 500, 1000, 2000, 5000};

    /**
     * The Khameleon systems' link, cache and prediction.
     *
     * @param bandwidthMbps megabits per second (45 = 5.625 MB/s)
     * @param rttMs         round-trip time
     * @param cacheMb       client cache, megabytes of 10^6 bytes
     * @param stay          probability that the current view stays active, in the predicted system
     * @param selection     the scheduler's selection rule
     */
    record Push(double bandwidthMbps, double rttMs, double cacheMb, double stay, Selection selection) {
        /** The defaults of the command line: the paper's 5.625 MB/s link, 100 ms, 50 MB. */
        static Push defaults() {
            return new Push(45, 100, 50, 0.5, Selection.MAX_GAIN);
        }

        PushReplay.Link link(int blockSize) {
            return new PushReplay.Link(bandwidthMbps * 1e6 / 8, rttMs, (int) Math.min(Integer.MAX_VALUE,
                    (long) (cacheMb * 1e6 / blockSize)));
        }
    }

    private final TileBackend backend;
    private final Views views;
    private final List<Workflow> workflows;
    private final Settings settings;
    private final PrintStream out;

    Evaluation(TileBackend backend, List<Workflow> workflows, Settings settings, PrintStream out) {
        this.backend = backend;
        this.views = backend.views();
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
        for (View v : views) {
            backend.histogram(v, Filters.none(views));
        }

        double[] histogramMs = new double[settings.queryEvents() * (views.size() - 1)];
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
        TileEncoder encoder = TileEncoder.withBlockSize(views, settings.blockSize());
        TileUtility utility = TileUtility.measure(BrushState.sample(states, settings.utilityStates(), settings.seed()),
                tiles::get, encoder, TileUtility.blockFractions(encoder));

        List<Double> onDemandWithin = new ArrayList<>();
        List<Double> onDemandSwitch = new ArrayList<>();
        List<Double> falconWithin = new ArrayList<>();
        List<Double> falconSwitch = new ArrayList<>();
        List<Double> predictedWithin = new ArrayList<>();
        List<Double> predictedSwitch = new ArrayList<>();
        DoubleSupplier histogramSampler = sampler(histogramMs, random.split());
        DoubleSupplier sliceSampler = sampler(sliceMs, random.split());
        DoubleSupplier pushSliceSampler = sampler(sliceMs, random.split());
        PushReplay.Setup setup = new PushReplay.Setup(settings.concurrency(), pushSliceSampler,
                settings.push().link(settings.blockSize()), settings.blockSize(), encoder::blockCount,
                utility.function(), settings.push().selection(), settings.pauseMs(), settings.seed(), 100);
        PushTally predictedPush = new PushTally();
        PushTally onHoverPush = new PushTally();
        PushReplay.Start start = settings.coldStart() ? PushReplay.Start.cold()
                : PushReplay.Start.warm(settings.leadMs());
        for (Workflow w : workflows) {
            double[] od = Replay.onDemand(w, settings.concurrency(), histogramSampler);
            double[] fa = Replay.falconOnHover(w, settings.concurrency(), sliceSampler, start.computed());
            double[] pr = Replay.predictedPrefetch(w, settings.concurrency(), sliceSampler,
                    MarkovPrior.learn(views, workflows, w), settings.predictTop(), settings.pauseMs(), start.computed());
            for (int i = 0; i < od.length; i++) {
                (w.isViewSwitch(i) ? onDemandSwitch : onDemandWithin).add(od[i]);
                (w.isViewSwitch(i) ? falconSwitch : falconWithin).add(fa[i]);
                (w.isViewSwitch(i) ? predictedSwitch : predictedWithin).add(pr[i]);
            }
            predictedPush.add(w, PushReplay.run(w, setup, predicted(MarkovPrior.learn(views, workflows, w)), start));
            onHoverPush.add(w, PushReplay.run(w, setup, PushReplay.Forecast.onHover(), start));
        }
        String predictedName = String.format(Locale.ROOT, "Khameleon, predicted (stay %.2f + Markov, leave-one-out)",
                settings.push().stay());
        String onHoverName = "Khameleon on hover (all mass on the current view)";

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
        out.println("Replay of every session (the Falcon and on-demand rows: backend latency only, no network;"
                + " the Khameleon rows: backend, link and round trip):");
        out.println();
        out.println("| system | brush updates within a view: n | p50 ms | p99 ms | within 100 ms "
                + "| view switches: n | p50 ms | p99 ms | within 100 ms | all interactions within 100 ms |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        system("On-demand (stale queries dropped)", onDemandWithin, onDemandSwitch);
        system("Falcon on hover (tile per active view)", falconWithin, falconSwitch);
        system(String.format(Locale.ROOT, "Falcon + predicted next view (Markov, leave-one-out, top %d, after a %d ms"
                + " pause)", settings.predictTop(), settings.pauseMs()), predictedWithin, predictedSwitch);
        system(predictedName, predictedPush.within, predictedPush.switches);
        system(onHoverName, onHoverPush.within, onHoverPush.switches);
        out.println();
        PushReplay.Link link = settings.push().link(settings.blockSize());
        out.printf(Locale.ROOT, "Khameleon: tiles pushed over %.3f MB/s, %.0f ms round trip, %.0f MB cache (%,d blocks"
                + " of %d bytes), scheduler %s, the same %d backend slots and slice latencies; an answer is block 0"
                + " of the tile in the cache. %s The hits are also given for the switches after each session's first"
                + " brush:%n%n", link.bytesPerSecond() / 1e6, link.rttMs(), settings.push().cacheMb(),
                link.cacheBlocks(), settings.blockSize(), settings.push().selection(), settings.concurrency(),
                settings.coldStart() ? "Cold start: each session connects at its first brush (t = 0), so nothing can"
                        + " be cached for it, and the server computed no tile before."
                        : String.format(Locale.ROOT, "Each session connects %.0f ms before its first brush; the six"
                        + " tiles of the unfiltered state were computed at server start-up (for the Falcon rows too),"
                        + " and the predicted push's first plan follows the first-view prior (leave-one-out).",
                        settings.leadMs()));
        out.println("| system | view switches: n | cache hits | mean ms to first answer | p99 ms | mean utility at"
                + " first answer | switches after the first brush: n | cache hits | mean ms | brush updates within a"
                + " view: p99 ms from the cache | most queries at once |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        pushRow(predictedName, predictedPush);
        pushRow(onHoverName, onHoverPush);
        out.println();
        coldStarts(setup, sampler(sliceMs, random.split()));
        out.printf(Locale.ROOT, "Utility of a tile prefix (1 - mean TVD over %d real brush states, %d-byte blocks, "
                + "%d-%d blocks per tile):%n%n", utility.states(), settings.blockSize(),
                minBlocks(encoder), maxBlocks(encoder));
        StringBuilder head = new StringBuilder("| fraction of blocks |");
        StringBuilder line = new StringBuilder("|---|");
        StringBuilder vals = new StringBuilder("| utility |");
        for (int i = 0; i < utility.fractions().length; i++) {
            if (Arrays.binarySearch(TileUtility.defaultFractions(), utility.fractions()[i]) < 0) {
                continue; // measured only for the replay's utility function
            }
            head.append(String.format(Locale.ROOT, " %.1f |", utility.fractions()[i]));
            line.append("---:|");
            vals.append(String.format(Locale.ROOT, " %.3f |", utility.utilities()[i]));
        }
        out.println(head);
        out.println(line);
        out.println(vals);
    }

    private PushReplay.Forecast predicted(MarkovPrior prior) {
        if (settings.coldStart()) {
            double[] uniform = new double[views.size()];
            Arrays.fill(uniform, 1.0 / uniform.length);
            return PushReplay.Forecast.predicted(prior, settings.push().stay(), uniform);
        }
        return PushReplay.Forecast.predicted(prior, settings.push().stay());
    }

    /**
     * The sessions' first view switches under predicted Khameleon, by the time between the
     * page's connect and the first brush: as before the fix (the session's tiles computed on
     * demand, a uniform first plan), with the unfiltered tiles computed at start-up, and with
     * both the start-up tiles and the learned first-view prior. Each session's first event is
     * replayed alone (later events could only answer it sooner).
     */
    private void coldStarts(PushReplay.Setup setup, DoubleSupplier sliceMs) {
        PushReplay.Setup s = new PushReplay.Setup(setup.servers(), sliceMs, setup.link(), setup.blockBytes(),
                setup.blockCount(), setup.utility(), setup.selection(), setup.pauseMs(), setup.seed(),
                setup.chunkSize());
        double[] uniform = new double[views.size()];
        Arrays.fill(uniform, 1.0 / uniform.length);
        out.printf(Locale.ROOT, "The sessions' first brushes (%d), predicted Khameleon, by the time from the page's"
                + " connect to the first brush (the recordings start at that brush). Tiles on demand: the session's"
                + " tiles computed when its first plan asks for them. Start-up tiles: the six tiles of the unfiltered"
                + " state computed once when the server starts. First plan: uniform over the views, or the"
                + " probability of each view being brushed first in the other sessions:%n%n", workflows.size());
        out.println("| lead ms | tiles on demand, uniform first plan: hits | mean ms | start-up tiles, uniform first"
                + " plan: hits | mean ms | start-up tiles, learned first view: hits | mean ms | mean utility |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (double lead : LEADS_MS) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %.0f |", lead));
            for (int variant = 0; variant < 3; variant++) {
                int hits = 0;
                double ms = 0;
                double utility = 0;
                for (Workflow w : workflows) {
                    if (w.events().isEmpty()) {
                        continue;
                    }
                    Workflow first = new Workflow(w.name(), w.events().subList(0, 1));
                    MarkovPrior prior = MarkovPrior.learn(views, workflows, w);
                    PushReplay.Forecast f = PushReplay.Forecast.predicted(prior, settings.push().stay(),
                            variant == 2 ? prior.first() : uniform);
                    PushReplay.Start start = new PushReplay.Start(lead, variant == 0 ? k -> false
                            : PushReplay.Start::isStartupTile);
                    PushReplay.Outcome o = PushReplay.run(first, s, f, start);
                    hits += o.hit()[0] ? 1 : 0;
                    ms += o.latencyMs()[0];
                    utility += o.utility()[0];
                }
                row.append(String.format(Locale.ROOT, " %.1f %% | %.0f |", 100.0 * hits / workflows.size(),
                        ms / workflows.size()));
                if (variant == 2) {
                    row.append(String.format(Locale.ROOT, " %.3f |", utility / workflows.size()));
                }
            }
            out.println(row);
        }
        out.println();
    }

    private static int minBlocks(TileEncoder e) {
        int min = Integer.MAX_VALUE;
        for (View v : e.views()) {
            min = Math.min(min, e.blockCount(v));
        }
        return min;
    }

    private static int maxBlocks(TileEncoder e) {
        int max = 0;
        for (View v : e.views()) {
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
        double all = (a.shareWithin100ms() * a.count() + b.shareWithin100ms() * b.count()) / (a.count() + b.count());
        out.printf(Locale.ROOT, "| %s | %,d | %.0f | %.0f | %.1f %% | %,d | %.0f | %.0f | %.1f %% | %.1f %% |%n", name,
                a.count(), a.p50(), a.p99(), 100 * a.shareWithin100ms(), b.count(), b.p50(), b.p99(),
                100 * b.shareWithin100ms(), 100 * all);
    }

    private void pushRow(String name, PushTally t) {
        LatencyStats s = LatencyStats.of(t.switches.stream().mapToDouble(Double::doubleValue).toArray());
        LatencyStats within = LatencyStats.of(t.within.stream().mapToDouble(Double::doubleValue).toArray());
        out.printf(Locale.ROOT, "| %s | %d | %.1f %% | %.0f | %.0f | %.3f | %d | %.1f %% | %.0f | %.0f | %d |%n",
                name, s.count(), 100.0 * t.hits / s.count(), t.answeredSwitchMs / t.answeredSwitches, s.p99(),
                t.utilitySum / t.answeredSwitches, t.laterSwitches, 100.0 * t.laterHits / t.laterSwitches,
                t.laterMs / t.laterSwitches, within.p99(), t.maxQueries);
        if (t.unanswered > 0) {
            out.printf(Locale.ROOT, "(%s: %d events never answered, left out of the means)%n", name, t.unanswered);
        }
    }

    /** The Khameleon replays of every session, added up. */
    private static final class PushTally {
        final List<Double> within = new ArrayList<>();
        final List<Double> switches = new ArrayList<>();
        int hits;
        /** Switches after a session's first brush, and their hits: the recordings start at that brush (t = 0). */
        int laterSwitches;
        int laterHits;
        double laterMs;
        int answeredSwitches;
        double answeredSwitchMs;
        double utilitySum;
        int unanswered;
        int maxQueries;

        void add(Workflow w, PushReplay.Outcome o) {
            for (int i = 0; i < o.latencyMs().length; i++) {
                double ms = o.latencyMs()[i];
                if (Double.isInfinite(ms)) {
                    unanswered++;
                }
                if (!w.isViewSwitch(i)) {
                    within.add(ms);
                    continue;
                }
                switches.add(ms);
                if (o.hit()[i]) {
                    hits++;
                }
                if (i > 0) {
                    laterSwitches++;
                    laterHits += o.hit()[i] ? 1 : 0;
                    laterMs += Double.isFinite(ms) ? ms : 0;
                }
                if (!Double.isInfinite(ms)) {
                    answeredSwitches++;
                    answeredSwitchMs += ms;
                    utilitySum += o.utility()[i];
                }
            }
            maxQueries = Math.max(maxQueries, o.maxConcurrentQueries());
        }
    }

    /** Draws uniformly from the measured values: the replay's service times. */
    private static DoubleSupplier sampler(double[] measured, SplittableRandom random) {
        return () -> measured[random.nextInt(measured.length)];
    }
}
