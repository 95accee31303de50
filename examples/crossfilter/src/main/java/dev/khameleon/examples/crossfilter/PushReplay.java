package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.scheduler.Selection;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Khameleon on a virtual clock: replays a recorded session with progressive tiles pushed by
 * khameleon-core's greedy scheduler over a link of limited bandwidth into the client's ring
 * buffer, following a distribution over the next active view.
 *
 * <p>Requests are tiles ({@link TileKey}). Each session has its own id table: when the filters
 * change, the tiles of the other views are new keys and so new ids; the old ids simply get no
 * more probability. The client sends a distribution when a view becomes active and when the user
 * pauses ({@code pauseMs} without a brush event) with filters that changed since the last one; it
 * reaches the server half a round trip later. The server re-plans from its first unsent slot and
 * sends the planned blocks in order, one block time each, back to back. A block can only be sent
 * once its tile is computed: planning a block of a tile not yet computed queues its five slice
 * queries for a backend of {@code servers} slots (first come, first served, never more queries at
 * once; the sender waits for the tile at the head of its plan). A re-plan drops the queued
 * queries that have not started, as the library's server ends the fetches of the slots it drops;
 * the new plan queues again what it still needs. A computed tile stays computed for the rest of
 * the session. A block reaches the client half a round trip after it left and is
 * written to ring slot {@code seq mod C}, evicting the block there.
 *
 * <p>How the session starts ({@link Start}): the page connects {@code leadMs} before the
 * recording's first event, and the server plans its first push half a round trip later, when the
 * connection reaches it, with the forecast for "no active view yet" (the library's initial
 * distribution); tiles computed at server start-up ({@link Start#computed}, shared by every
 * session) need no queries. {@link Start#cold()} is a session that connects at its first event
 * on a server that has computed nothing.
 *
 * <p>An event is answered once block 0 of its tile is in the cache: at once if it is there when
 * the event happens (a hit), else when it arrives, or when a later event is answered (the charts
 * then show a newer state, as in {@link Replay}) ({@code +∞} if not within {@link #GIVE_UP_MS}
 * after the session's last event). Single use, single threaded.
 */
final class PushReplay {
    /** The distribution's only horizon: a view switch is a discrete event, not a trajectory. */
    private static final long[] HORIZONS = {0};
    /** Events at the same time: blocks land before the user looks. */
    private static final int ARRIVAL = 0;
    private static final int OTHER = 1;
    /** An event still unanswered this long after the session's last event counts as never answered. */
    static final double GIVE_UP_MS = 60_000;

    /**
     * The link and the client cache.
     *
     * @param bytesPerSecond the link's rate
     * @param rttMs          round-trip time; each direction takes half
     * @param cacheBlocks    {@code C}, the client's ring buffer in blocks
     */
    record Link(double bytesPerSecond, double rttMs, int cacheBlocks) {
        Link {
            if (!(bytesPerSecond > 0) || !(rttMs >= 0) || cacheBlocks < 1) {
                throw new IllegalArgumentException("link needs a positive rate, rtt >= 0 and cache >= 1 block, was "
                        + bytesPerSecond + " B/s, " + rttMs + " ms, " + cacheBlocks + " blocks");
            }
        }
    }

    /**
     * How a session starts.
     *
     * @param leadMs   the time from the page's connect to the recording's first event, {@code >= 0}
     * @param computed the tiles the server computed at start-up, before any session
     */
    record Start(double leadMs, Predicate<TileKey> computed) {
        /** Validates. */
        Start {
            if (!(leadMs >= 0) || Double.isInfinite(leadMs)) {
                throw new IllegalArgumentException("lead must be finite and >= 0 ms, was " + leadMs);
            }
            Objects.requireNonNull(computed, "computed");
        }

        /** Connects at the first event, on a server that has computed nothing. */
        static Start cold() {
            return new Start(0, k -> false);
        }

        /** Connects {@code leadMs} before the first event; the tiles of the unfiltered state are computed. */
        static Start warm(double leadMs) {
            return new Start(leadMs, Start::isStartupTile);
        }

        /**
         * Whether {@code key} is one of the six tiles of the unfiltered state (no brush on any
         * other view): the same for every session, so a server computes them once at start-up.
         */
        static boolean isStartupTile(TileKey key) {
            return key.filters().isEmpty();
        }
    }

    /** The probability of each view being the active one next, given the current one. */
    interface Forecast {
        /**
         * Probabilities indexed by view index, summing to 1; {@code current} is null at the
         * start of a session (no active view yet). Null: send nothing.
         */
        double[] next(View current);

        /** Khameleon on hover: all mass on the current view, nothing before the first one. */
        static Forecast onHover() {
            return current -> {
                if (current == null) {
                    return null;
                }
                double[] p = new double[current.views().size()];
                p[current.index()] = 1;
                return p;
            };
        }

        /**
         * {@code stay} on the current view, the rest spread by {@code prior} over the others;
         * before the first active view, the prior's distribution of the first view.
         */
        static Forecast predicted(MarkovPrior prior, double stay) {
            return predicted(prior, stay, prior.first());
        }

        /**
         * As {@link #predicted(MarkovPrior, double)}, with {@code start} (by view index, summing
         * to 1) before the first active view.
         */
        static Forecast predicted(MarkovPrior prior, double stay, double[] start) {
            if (!(stay >= 0 && stay <= 1)) {
                throw new IllegalArgumentException("stay must be in [0, 1], was " + stay);
            }
            if (start.length != prior.views().size()) {
                throw new IllegalArgumentException("start needs one probability per view, has " + start.length);
            }
            double[] first = start.clone();
            return current -> {
                if (current == null) {
                    return first.clone();
                }
                double[] p = new double[prior.views().size()];
                for (View v : prior.views()) {
                    p[v.index()] = v == current ? stay : (1 - stay) * prior.probability(current, v);
                }
                return p;
            };
        }
    }

    /**
     * Per event (index-aligned with the session's events): the latency to the first answer, the
     * utility of the cached prefix at that moment, and whether block 0 was already cached.
     *
     * @param latencyMs            per event, {@code +∞} if block 0 never arrived
     * @param utility              per event, {@code NaN} if never answered
     * @param hit                  per event
     * @param maxConcurrentQueries the most slice queries the backend ran at one time
     * @param queries              slice queries run
     */
    record Outcome(double[] latencyMs, double[] utility, boolean[] hit, int maxConcurrentQueries, int queries) {
    }

    /**
     * What the replay needs besides the session.
     *
     * @param servers    backend slots: slice queries that may run at once, {@code >= 1}
     * @param sliceMs    the service time of each slice query
     * @param link       the link and the client cache
     * @param blockBytes bytes per block: a block takes {@code blockBytes / rate} on the link
     * @param blockCount blocks of a tile, by its active view
     * @param utility    the utility of a prefix, for the scheduler and the reported utility
     * @param selection  the scheduler's rule
     * @param pauseMs    time without a brush event after which changed brushes are sent up
     * @param seed       the scheduler's seed
     * @param chunkSize  blocks planned at a time (at most the cache)
     */
    record Setup(int servers, DoubleSupplier sliceMs, Link link, int blockBytes, ToIntFunction<View> blockCount,
            UtilityFunction utility, Selection selection, long pauseMs, long seed, int chunkSize) {
    }

    private record Event(double t, int kind, long order, Runnable action) {
    }

    private record Slot(long seq, int id, int block) {
    }

    private final Workflow w;
    private final Setup s;
    private final Forecast forecast;
    private final Start start;
    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.t != b.t ? Double.compare(a.t, b.t)
            : a.kind != b.kind ? Integer.compare(a.kind, b.kind) : Long.compare(a.order, b.order));
    private long order;
    private double now;

    private final Map<TileKey, Integer> ids = new LinkedHashMap<>();
    private final List<TileKey> keys = new ArrayList<>();
    private Scheduler scheduler;
    private double slotMs;
    private final ArrayDeque<Slot> planned = new ArrayDeque<>();
    private int senderToken;
    private double linkFreeAt;

    /** The session's views, and the slice queries of one tile (one per passive view). */
    private final Views views;
    private final int queriesPerTile;
    /** Per tile: slice queries started and finished; a tile is computed when all have finished. */
    private int[] started;
    private int[] finished;
    /** Per tile: slice queries waiting in {@link #backendQueue}. */
    private int[] queued;
    private final ArrayDeque<Integer> backendQueue = new ArrayDeque<>();
    private int running;
    private final List<double[]> queryIntervals = new ArrayList<>();
    /** The tile the sender waits for, or -1. */
    private int senderWaitsFor = -1;

    private int[] ringId;
    private int[] ringBlock;
    /** Copies of each block in the ring: a block may be in two slots, pushed in two batches. */
    private int[][] present;
    private final Map<Integer, List<Integer>> waiting = new HashMap<>();
    private int firstUnanswered;
    private int eventsSeen;

    private double[] latency;
    private double[] utilityAt;
    private boolean[] hit;

    private PushReplay(Workflow w, Setup s, Forecast forecast, Start start) {
        this.w = w;
        this.views = w.events().get(0).view().views();
        this.queriesPerTile = views.size() - 1;
        this.s = s;
        this.forecast = forecast;
        this.start = start;
    }

    /** Replays {@code w} with distributions from {@code forecast}, from a {@linkplain Start#cold() cold} start. */
    static Outcome run(Workflow w, Setup setup, Forecast forecast) {
        return run(w, setup, forecast, Start.cold());
    }

    /** Replays {@code w} with distributions from {@code forecast}, the session starting as {@code start} says. */
    static Outcome run(Workflow w, Setup setup, Forecast forecast, Start start) {
        if (setup.servers() < 1) {
            throw new IllegalArgumentException("servers must be >= 1, was " + setup.servers());
        }
        if (w.events().isEmpty()) {
            throw new IllegalArgumentException(w.name() + " has no events to replay");
        }
        return new PushReplay(w, setup, forecast, Objects.requireNonNull(start, "start")).replay();
    }

    private Outcome replay() {
        List<BrushEvent> events = w.events();
        List<Filters> after = w.filtersAfter();
        // The unfiltered tiles first, in view order: the scheduler breaks ties by the lowest id, and
        // ids numbered from the session's own events would favour the view it brushes first.
        for (View v : views) {
            idOf(new TileKey(v, Filters.none(views)));
        }
        // The moments the client sends a distribution: (time, active view or null, filters).
        List<Object[]> moments = new ArrayList<>();
        // The page connects leadMs before the first event; the server plans at once when it hears of it.
        moments.add(new Object[] {connectTime(), null, Filters.none(views)});
        Filters sent = null;
        for (int i = 0; i < events.size(); i++) {
            BrushEvent e = events.get(i);
            idOf(new TileKey(e.view(), after.get(i)));
            if (w.isViewSwitch(i)) {
                moments.add(new Object[] {(double) e.timeMs(), e.view(), after.get(i)});
                sent = after.get(i);
            }
            boolean paused = i + 1 == events.size() || events.get(i + 1).timeMs() - e.timeMs() > s.pauseMs();
            if (paused && !after.get(i).equals(sent)) {
                moments.add(new Object[] {(double) e.timeMs() + s.pauseMs(), e.view(), after.get(i)});
                sent = after.get(i);
            }
        }
        List<Object[]> distributions = new ArrayList<>();
        for (Object[] m : moments) {
            double[] p = forecast.next((View) m[1]);
            if (p != null) {
                for (View v : views) {
                    if (p[v.index()] > 0) {
                        idOf(new TileKey(v, (Filters) m[2]));
                    }
                }
                distributions.add(new Object[] {m[0], p, m[2]});
            }
        }

        int n = keys.size();
        int[] blockCounts = new int[n];
        for (int id = 0; id < n; id++) {
            blockCounts[id] = s.blockCount().applyAsInt(keys.get(id).active());
        }
        SchedulerConfig config = SchedulerConfig.builder()
                .cacheBlocks(s.link().cacheBlocks())
                .blockCounts(blockCounts)
                .utility(s.utility())
                .chunkSize(s.chunkSize())
                .selection(s.selection())
                // No fade into the uniform distribution: most ids are stale tiles nobody asks for again.
                .forecastFadeMillis(Double.POSITIVE_INFINITY)
                .seed(s.seed())
                .build();
        scheduler = Schedulers.greedy(config);
        slotMs = s.blockBytes() * 1000.0 / s.link().bytesPerSecond();
        started = new int[n];
        finished = new int[n];
        queued = new int[n];
        for (int id = 0; id < n; id++) {
            if (start.computed().test(keys.get(id))) {
                started[id] = queriesPerTile; // computed at server start-up: no queries in this session
                finished[id] = queriesPerTile;
            }
        }
        now = connectTime();
        linkFreeAt = now;
        ringId = new int[s.link().cacheBlocks()];
        ringBlock = new int[s.link().cacheBlocks()];
        Arrays.fill(ringId, -1);
        present = new int[n][];
        for (int id = 0; id < n; id++) {
            present[id] = new int[blockCounts[id]];
        }
        latency = new double[events.size()];
        Arrays.fill(latency, Double.POSITIVE_INFINITY);
        utilityAt = new double[events.size()];
        Arrays.fill(utilityAt, Double.NaN);
        hit = new boolean[events.size()];

        double oneWay = s.link().rttMs() / 2;
        for (Object[] d : distributions) {
            Distribution dist = distribution((double[]) d[1], (Filters) d[2]);
            at((double) d[0] + oneWay, OTHER, () -> onDistribution(dist));
        }
        for (int i = 0; i < events.size(); i++) {
            int index = i;
            at(events.get(i).timeMs(), OTHER, () -> onEvent(index));
        }
        double lastEvent = events.isEmpty() ? 0 : events.get(events.size() - 1).timeMs();
        while (!queue.isEmpty()) {
            Event e = queue.peek();
            // Once the user is gone nothing more can be answered; a batch that a distribution fills
            // exactly would otherwise be pushed again and again.
            boolean allAnswered = eventsSeen == events.size() && firstUnanswered == events.size();
            if (e.t() > lastEvent && (allAnswered || e.t() > lastEvent + GIVE_UP_MS)) {
                break;
            }
            queue.poll();
            now = e.t();
            e.action().run();
        }
        return new Outcome(latency, utilityAt, hit, maxOverlap(queryIntervals), queryIntervals.size());
    }

    /** When the page connects: {@code -leadMs}, and {@code +0.0} (not {@code -0.0}) for no lead, as event times are. */
    private double connectTime() {
        return 0 - start.leadMs();
    }

    private int idOf(TileKey key) {
        return ids.computeIfAbsent(key, k -> {
            keys.add(k);
            return keys.size() - 1;
        });
    }

    private Distribution distribution(double[] p, Filters filters) {
        Distribution.Builder b = Distribution.builder(keys.size(), HORIZONS);
        for (View v : views) {
            if (p[v.index()] > 0) {
                b.explicit(0, ids.get(new TileKey(v, filters)), p[v.index()]);
            }
        }
        return b.residual(0, 0).build();
    }

    private void at(double t, int kind, Runnable action) {
        queue.add(new Event(t, kind, order++, action));
    }

    // ---------------------------------------------------------------- server

    private void onDistribution(Distribution d) {
        long fromSeq = planned.isEmpty() ? scheduler.nextSeq() : planned.peekFirst().seq();
        planned.clear();
        // Like the library's server, a re-plan ends the fetches of the slots it drops: queries not
        // started yet leave the queue, and the new plan asks again for the tiles it still needs.
        for (int id : backendQueue) {
            queued[id] = 0;
        }
        backendQueue.clear();
        senderWaitsFor = -1;
        scheduler.replan(d, fromSeq, slotMs);
        int token = ++senderToken;
        at(Math.max(now, linkFreeAt), OTHER, () -> send(token));
    }

    private void send(int token) {
        if (token != senderToken) {
            return; // a re-plan started a new sender
        }
        if (planned.isEmpty()) {
            ScheduleChunk chunk = scheduler.next(Math.min(s.chunkSize(), s.link().cacheBlocks()));
            for (int k = 0; k < chunk.size(); k++) {
                planned.add(new Slot(chunk.firstSeq() + k, chunk.requestId(k), chunk.blockIndex(k)));
                compute(chunk.requestId(k));
            }
        }
        Slot head = planned.peekFirst();
        if (head == null) {
            return; // nothing to plan until the next distribution
        }
        if (finished[head.id()] < queriesPerTile) {
            compute(head.id());
            senderWaitsFor = head.id(); // queryDone resumes the sender
            return;
        }
        planned.pollFirst();
        linkFreeAt = now + slotMs;
        at(linkFreeAt + s.link().rttMs() / 2, ARRIVAL, () -> arrive(head));
        at(linkFreeAt, OTHER, () -> send(token));
    }

    /** Queues the tile's slice queries that are neither started nor queued. */
    private void compute(int id) {
        for (int q = started[id] + queued[id]; q < queriesPerTile; q++) {
            backendQueue.add(id);
            queued[id]++;
        }
        startQueries();
    }

    /** Starts queued queries, first come first served, while fewer than {@code servers} run. */
    private void startQueries() {
        while (running < s.servers() && !backendQueue.isEmpty()) {
            int id = backendQueue.poll();
            queued[id]--;
            started[id]++;
            running++;
            double end = now + s.sliceMs().getAsDouble();
            queryIntervals.add(new double[] {now, end});
            at(end, OTHER, () -> queryDone(id));
        }
    }

    private void queryDone(int id) {
        running--;
        finished[id]++;
        if (finished[id] == queriesPerTile && senderWaitsFor == id) {
            senderWaitsFor = -1;
            int token = senderToken;
            at(Math.max(now, linkFreeAt), OTHER, () -> send(token));
        }
        startQueries();
    }

    // ---------------------------------------------------------------- client

    private void arrive(Slot slot) {
        int pos = (int) (slot.seq() % ringId.length);
        if (ringId[pos] >= 0) {
            present[ringId[pos]][ringBlock[pos]]--;
        }
        ringId[pos] = slot.id();
        ringBlock[pos] = slot.block();
        present[slot.id()][slot.block()]++;
        List<Integer> answered = prefix(slot.id()) > 0 ? waiting.remove(slot.id()) : null;
        if (answered != null) {
            for (int i : answered) {
                if (Double.isInfinite(latency[i])) {
                    answer(i, slot.id());
                }
            }
        }
    }

    private void onEvent(int i) {
        eventsSeen++;
        BrushEvent e = w.events().get(i);
        int id = ids.get(new TileKey(e.view(), w.filtersAfter().get(i)));
        if (prefix(id) > 0) {
            hit[i] = true;
            answer(i, id);
        } else {
            waiting.computeIfAbsent(id, k -> new ArrayList<>()).add(i);
        }
    }

    /** Answers event {@code i}, and every earlier event still waiting: the newer state replaces theirs. */
    private void answer(int i, int id) {
        latency[i] = now - w.events().get(i).timeMs();
        utilityAt[i] = s.utility().utility((double) prefix(id) / present[id].length);
        for (int j = firstUnanswered; j < i; j++) {
            if (Double.isInfinite(latency[j])) {
                latency[j] = now - w.events().get(j).timeMs();
                utilityAt[j] = utilityAt[i];
            }
        }
        while (firstUnanswered < latency.length && Double.isFinite(latency[firstUnanswered])) {
            firstUnanswered++;
        }
    }

    private int prefix(int id) {
        int k = 0;
        while (k < present[id].length && present[id][k] > 0) {
            k++;
        }
        return k;
    }

    /** The most intervals {@code [begin, end)} that overlap at one instant. */
    static int maxOverlap(List<double[]> intervals) {
        double[][] points = new double[intervals.size() * 2][];
        int k = 0;
        for (double[] iv : intervals) {
            points[k++] = new double[] {iv[0], 1};
            points[k++] = new double[] {iv[1], -1};
        }
        // Ends before starts at the same instant: [a, b) and [b, c) do not overlap.
        Arrays.sort(points, (a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
        int open = 0;
        int max = 0;
        for (double[] p : points) {
            open += (int) p[1];
            max = Math.max(max, open);
        }
        return max;
    }
}
