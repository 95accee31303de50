package dev.khameleon.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * Collects the paper's metrics for one run, applying the same rules to every system.
 *
 * <ul>
 *   <li>A <em>request</em> is registered at every grid sample of the trace or when the pointer
 *       enters a new cell ({@link RequestMode}); a repeat of a request is a request of its own.</li>
 *   <li>Its first <em>upcall</em> happens when data for it is in the client's cache: at once
 *       (a <em>hit</em>, latency 0) or when data arrives (latency = arrival − registration).</li>
 *   <li>When a request gets its first upcall, every older request still without one is
 *       <em>preempted</em>: the user has been shown something newer, so the older answer is
 *       dropped (the paper's rule; the library's {@code CacheManager} applies the same one).</li>
 *   <li><em>Over-push</em>: bytes received that were never present at an upcall of their
 *       request, over all bytes received.</li>
 *   <li><em>Convergence</em>: for the last request of the trace (the pointer has stopped), the
 *       time from registration until its utility reaches 1.</li>
 *   <li><em>Never answered</em>: a request neither answered nor preempted when the run ends; its
 *       latency is counted up to the end of the run and included in the latency statistics.</li>
 *   <li><em>Stale hover</em>: while the pointer is over a cell ({@link #hover}), the time during
 *       which the system's cache holds no usable answer for it (asked through the probe given to
 *       {@link #probeCache}, again after every arrival), over the whole hover time.</li>
 *   <li><em>Visits</em>: each stay of the pointer over one cell, from entering it to leaving it.
 *       A visit's <em>wait</em> runs from the entry until the cache holds a usable answer for
 *       the cell (0 if it already did); a visit that leaves unanswered waits its whole
 *       duration and has utility 0. Nothing is dropped: every visit counts, preempted or not.</li>
 * </ul>
 *
 * <p>Single-threaded: every method must be called from one thread (the simulator's
 * {@link EventLoop}, or a live replay's one replay thread), and the clock read on it.
 */
public final class Recorder {
    private final LongSupplier clock;
    private final int[] ids;
    private final long[] registeredAt;
    private final long[] firstUpcallAt;
    private final double[] firstUtility;
    private final boolean[] preempted;
    private int registered;
    private int oldestPending;
    private int current = -1;
    private double currentUtility;
    private final long[] freshBytes;
    private long receivedBytes;
    private long usedBytes;
    private final List<double[]> lastCurve = new ArrayList<>();
    private long convergedAt = -1;
    private Runnable onLastConverged = () -> { };
    private IntUnaryOperator answerBlocks;
    private IntToDoubleFunction utilityOf;
    private int hovered = -1;
    private boolean hoveredStale;
    private long hoverSince;
    private long hoverNanos;
    private long staleNanos;
    private long visitSince;
    private boolean visitAnswered;
    private int visits;
    private long waitNanos;
    private double firstUtilitySum;

    /**
     * Creates a recorder for one run.
     *
     * @param clock        the time in nanoseconds (the simulator's {@code loop::nowNanos})
     * @param requestCount the number of requests the trace will register
     * @param idCount      the size of the request space
     */
    public Recorder(LongSupplier clock, int requestCount, int idCount) {
        this.clock = clock;
        this.ids = new int[requestCount];
        this.registeredAt = new long[requestCount];
        this.firstUpcallAt = new long[requestCount];
        this.firstUtility = new double[requestCount];
        this.preempted = new boolean[requestCount];
        Arrays.fill(firstUpcallAt, -1);
        this.freshBytes = new long[idCount];
    }

    /** Registers the next request of the trace; returns its sequence number. */
    public int register(int requestId) {
        int seq = registered++;
        ids[seq] = requestId;
        registeredAt[seq] = clock.getAsLong();
        current = seq;
        currentUtility = 0;
        if (seq == ids.length - 1) {
            lastCurve.add(new double[] {0, 0});
        }
        return seq;
    }

    /** The request id registered under {@code seq}. */
    public int requestId(int seq) {
        return ids[seq];
    }

    /** The sequence number of the latest registered request, or {@code -1}. */
    public int current() {
        return current;
    }

    /**
     * Counts {@code bytes} of request {@code requestId} arriving in the client's cache. Systems
     * call it after storing the data (and evicting what it displaced), so the hovered cell's
     * answer is probed again here.
     */
    public void received(int requestId, long bytes) {
        receivedBytes += bytes;
        freshBytes[requestId] += bytes;
        if (hovered >= 0 && answerBlocks != null && hoveredStale == hasAnswer(hovered)) {
            closeHover();
            hoveredStale = !hoveredStale;
            if (!hoveredStale && !visitAnswered) {
                answerVisit();
            }
        }
    }

    /**
     * Sets how to ask the system how many leading blocks of a request its client cache holds
     * usable now (0: no answer; without changing the cache), and the utility of that many
     * blocks. Without a probe the stale hover rate and the visit metrics are NaN.
     */
    public void probeCache(IntUnaryOperator answerBlocks, IntToDoubleFunction utilityOf) {
        this.answerBlocks = answerBlocks;
        this.utilityOf = utilityOf;
    }

    private boolean hasAnswer(int requestId) {
        return answerBlocks.applyAsInt(requestId) > 0;
    }

    /** How long the visit in progress has waited so far if it is still unanswered, else 0. */
    private long unansweredWait() {
        return hovered >= 0 && answerBlocks != null && !visitAnswered ? clock.getAsLong() - visitSince : 0;
    }

    /** The hovered cell's visit gets its first answer now. */
    private void answerVisit() {
        visitAnswered = true;
        waitNanos += clock.getAsLong() - visitSince;
        firstUtilitySum += utilityOf.applyAsDouble(answerBlocks.applyAsInt(hovered));
    }

    /**
     * The pointer is over the cell of {@code requestId} from now on ({@code -1}: over no cell,
     * or the trace has ended). Call it at every pointer sample; a call for the cell already
     * hovered changes nothing.
     */
    public void hover(int requestId) {
        if (requestId == hovered) {
            return;
        }
        closeHover();
        waitNanos += unansweredWait();
        hovered = requestId;
        hoveredStale = requestId >= 0 && answerBlocks != null && !hasAnswer(requestId);
        if (requestId >= 0 && answerBlocks != null) {
            visits++;
            visitSince = clock.getAsLong();
            visitAnswered = false;
            if (!hoveredStale) {
                answerVisit();
            }
        }
    }

    private void closeHover() {
        long now = clock.getAsLong();
        if (hovered >= 0) {
            hoverNanos += now - hoverSince;
            if (hoveredStale) {
                staleNanos += now - hoverSince;
            }
        }
        hoverSince = now;
    }

    /**
     * Data for {@code requestId} is usable now at {@code utility}, with {@code presentBytes} of
     * it in the cache (or just delivered): every pending request for it gets its first upcall,
     * and the current request, if it is for this id, its utility raised.
     */
    public void available(int requestId, double utility, long presentBytes) {
        boolean upcalled = false;
        for (int seq = oldestPending; seq < registered; seq++) {
            if (ids[seq] == requestId && firstUpcallAt[seq] < 0 && !preempted[seq]) {
                upcall(seq, utility);
                upcalled = true;
            }
        }
        if (current >= 0 && ids[current] == requestId && !preempted[current]) {
            upcalled = true;
            if (utility > currentUtility) {
                currentUtility = utility;
                if (current == ids.length - 1) {
                    double elapsed = (clock.getAsLong() - registeredAt[current]) / 1e6;
                    lastCurve.add(new double[] {elapsed, utility});
                    if (utility >= 1.0 - 1e-9 && convergedAt < 0) {
                        convergedAt = clock.getAsLong();
                        onLastConverged.run();
                    }
                }
            }
        }
        if (upcalled) {
            long used = Math.min(freshBytes[requestId], presentBytes);
            usedBytes += used;
            freshBytes[requestId] -= used;
        }
    }

    /** Whether request {@code seq} still waits for its first upcall (neither answered nor preempted). */
    public boolean isPending(int seq) {
        return firstUpcallAt[seq] < 0 && !preempted[seq];
    }

    /** Runs {@code action} once when the trace's last request reaches utility 1. */
    public void onLastConverged(Runnable action) {
        this.onLastConverged = action;
    }

    private void upcall(int seq, double utility) {
        firstUpcallAt[seq] = clock.getAsLong();
        firstUtility[seq] = utility;
        for (int older = oldestPending; older < seq; older++) {
            if (firstUpcallAt[older] < 0) {
                preempted[older] = true;
            }
        }
        while (oldestPending < registered && (firstUpcallAt[oldestPending] >= 0 || preempted[oldestPending])) {
            oldestPending++;
        }
    }

    /** The metrics of the run so far, never-answered requests counted up to now. */
    public Metrics metrics() {
        return metrics(clock.getAsLong());
    }

    /**
     * The metrics of the run, a never-answered request's latency counted up to
     * {@code endNanos} (the end of the run), so it weighs in the mean and percentiles as
     * at least that slow instead of being dropped.
     */
    public Metrics metrics(long endNanos) {
        int n = registered;
        int hits = 0;
        int pre = 0;
        int never = 0;
        int answered = 0;
        double utilSum = 0;
        double[] lat = latenciesMillis(endNanos);
        int counted = 0;
        for (int seq = 0; seq < n; seq++) {
            if (preempted[seq]) {
                pre++;
                continue;
            }
            lat[counted++] = lat[seq];
            if (firstUpcallAt[seq] >= 0) {
                if (firstUpcallAt[seq] == registeredAt[seq]) {
                    hits++;
                }
                answered++;
                utilSum += firstUtility[seq];
            } else {
                never++;
            }
        }
        double[] sorted = Arrays.copyOf(lat, counted);
        Arrays.sort(sorted);
        double sum = 0;
        for (double v : sorted) {
            sum += v;
        }
        int tail = (int) Math.ceil(0.05 * counted);
        double tailSum = 0;
        for (int k = counted - tail; k < counted; k++) {
            tailSum += sorted[k];
        }
        double conv = convergedAt < 0 || n == 0 ? Double.NaN : (convergedAt - registeredAt[n - 1]) / 1e6;
        double stale = answerBlocks == null || hoverNanos == 0 ? Double.NaN : (double) staleNanos / hoverNanos;
        double meanWait = visits == 0 ? Double.NaN : (waitNanos + unansweredWait()) / 1e6 / visits;
        double firstUtilityAll = visits == 0 ? Double.NaN : firstUtilitySum / visits;
        return new Metrics(n, ratio(hits, n), ratio(hits, n - pre), ratio(pre, n), never,
                counted == 0 ? Double.NaN : sum / counted,
                percentile(sorted, 0.50), percentile(sorted, 0.95), percentile(sorted, 0.99),
                sum > 0 ? tailSum / sum : Double.NaN,
                answered == 0 ? Double.NaN : utilSum / answered,
                receivedBytes == 0 ? 0.0 : 1.0 - (double) usedBytes / receivedBytes,
                stale, visits, meanWait, firstUtilityAll, conv, receivedBytes, List.copyOf(lastCurve));
    }

    /**
     * Each registered request's latency in ms, in registration order, as {@link #metrics(long)}
     * counts it (a never-answered request's up to {@code endNanos}); NaN for a preempted one.
     */
    public double[] latenciesMillis(long endNanos) {
        double[] lat = new double[registered];
        for (int seq = 0; seq < registered; seq++) {
            if (preempted[seq]) {
                lat[seq] = Double.NaN;
            } else if (firstUpcallAt[seq] >= 0) {
                lat[seq] = (firstUpcallAt[seq] - registeredAt[seq]) / 1e6;
            } else {
                lat[seq] = Math.max(0, endNanos - registeredAt[seq]) / 1e6;
            }
        }
        return lat;
    }

    private static double ratio(int count, int of) {
        return of == 0 ? Double.NaN : (double) count / of;
    }

    /** Nearest-rank percentile of sorted values; NaN when empty. */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
