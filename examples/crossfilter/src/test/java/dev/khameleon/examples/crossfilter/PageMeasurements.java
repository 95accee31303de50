package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the page measured over every replayed session of one mode, from every page: per interaction
 * (a replayed brush event) the time until the charts show its state or a newer one (first bars,
 * approximate or exact) and, if it gets there, the time until they show the exact counts of its own
 * state (exact bars). An interaction that never gets exact bars is counted, not dropped: superseded
 * (the charts showed a newer state first), not exact within 10 s after its session's last event,
 * or unanswered altogether. Thread-safe: the pages' threads {@link #add} their sessions.
 */
final class PageMeasurements {
    private final List<Double> first = new ArrayList<>();
    private final List<Double> exact = new ArrayList<>();
    private long superseded;
    private long notExact;
    private long unanswered;
    private long answeredAtOnce;

    /**
     * Adds one replayed session, as the page's {@code replayWorkflow} result reports it: the lists
     * {@code within} and {@code switches} (first bars, ms), {@code exact} (exact bars, ms) and the
     * counts {@code superseded}, {@code notExact}, {@code unanswered} and {@code atOnce}.
     *
     * @throws IllegalArgumentException if a field is missing or more interactions are exact than
     *     were answered
     */
    synchronized void add(Map<String, ?> run) {
        List<Double> f = new ArrayList<>(numbers(run, "within"));
        f.addAll(numbers(run, "switches"));
        List<Double> e = numbers(run, "exact");
        long s = count(run, "superseded");
        long n = count(run, "notExact");
        if (e.size() + s + n != f.size()) {
            throw new IllegalArgumentException("every answered interaction is exact, superseded or not exact: "
                    + f.size() + " answered, " + e.size() + " exact, " + s + " superseded, " + n + " not exact");
        }
        first.addAll(f);
        exact.addAll(e);
        superseded += s;
        notExact += n;
        unanswered += count(run, "unanswered");
        answeredAtOnce += count(run, "atOnce");
    }

    private static List<Double> numbers(Map<String, ?> run, String field) {
        if (!(run.get(field) instanceof List<?> list)) {
            throw new IllegalArgumentException("no list " + field + " in " + run.keySet());
        }
        return list.stream().map(x -> ((Number) x).doubleValue()).toList();
    }

    private static long count(Map<String, ?> run, String field) {
        if (!(run.get(field) instanceof Number x)) {
            throw new IllegalArgumentException("no count " + field + " in " + run.keySet());
        }
        return x.longValue();
    }

    /** Interactions replayed: answered or not. */
    synchronized long interactions() {
        return first.size() + unanswered;
    }

    /** Interactions whose own state the charts never showed exact (superseded, not exact, unanswered). */
    synchronized long neverExact() {
        return interactions() - exact.size();
    }

    synchronized long superseded() {
        return superseded;
    }

    synchronized long unanswered() {
        return unanswered;
    }

    /** Nearest-rank percentile {@code q} of the first-bars latencies (NaN if none). */
    synchronized double firstBars(double q) {
        return percentile(first, q);
    }

    /** Nearest-rank percentile {@code q} of the exact-bars latencies of the interactions that got them (NaN if none). */
    synchronized double exactBars(double q) {
        return percentile(exact, q);
    }

    private static double percentile(List<Double> values, double q) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return LatencyStats.percentile(sorted, q);
    }

    /** {@code queries} the backend ran for these interactions, per interaction (NaN if none). */
    synchronized double queriesPerInteraction(long queries) {
        return interactions() == 0 ? Double.NaN : (double) queries / interactions();
    }

    /**
     * The benchmark's Markdown row: mode, pages, interactions, answered at once, first bars
     * p50/p95/p99, exact bars p50/p95/p99, never exact (share, superseded among them), unanswered,
     * DB queries per interaction.
     */
    synchronized String row(String mode, int pages, long queries) {
        long n = interactions();
        return String.format(Locale.ROOT, "| %s | %d | %,d | %.1f %% | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f"
                + " | %.1f %% (%,d) | %d | %.2f |", mode, pages, n, 100.0 * answeredAtOnce / Math.max(1, n),
                firstBars(0.50), firstBars(0.95), firstBars(0.99), exactBars(0.50), exactBars(0.95), exactBars(0.99),
                100.0 * neverExact() / Math.max(1, n), superseded, unanswered, queriesPerInteraction(queries));
    }

    /** The header of {@link #row}'s table. */
    static String header() {
        return "| answers from | pages | interactions | answered at once | first bars p50 ms | p95 | p99"
                + " | exact bars p50 ms | p95 | p99 | never exact (superseded) | unanswered | DB queries per interaction |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
    }
}
