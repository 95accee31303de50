package dev.khameleon.simulator.report;

import dev.khameleon.simulator.Metrics;
import dev.khameleon.simulator.Simulator;
import java.util.List;
import java.util.Locale;

/**
 * Writes results as CSV, one row per run, with the columns {@link #HEADER} (and, for
 * experiments, extra columns naming the varied setting). Numbers use a fixed format and
 * {@link Locale#ROOT}, so the same results give the same bytes; undefined values are {@code NaN}.
 * Stateless and thread-safe.
 */
public final class CsvReporter {
    /**
     * The columns of {@code results.csv} ({@code docs/simulator.md} defines each). Columns are
     * only ever appended, so readers that go by position keep working.
     */
    public static final String HEADER = "system,trace,bandwidth_MBps,latency_ms,cache_MB,requests,hit_rate,"
            + "preempted_rate,mean_latency_ms,p50_latency_ms,p95_latency_ms,mean_utility,overpush_rate,convergence_ms,"
            + "request_mode,trace_kind,median_sample_interval_ms,hit_rate_nonpreempted,never_answered,p99_latency_ms,"
            + "tail5_latency_share,stale_hover_rate,visits,mean_wait_all_ms,first_utility_all,profile";

    private CsvReporter() {
    }

    /** The CSV text of {@code results}, header first, one line per result, {@code \n} line ends. */
    public static String csv(List<Simulator.Result> results) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (Simulator.Result r : results) {
            sb.append(row(r)).append('\n');
        }
        return sb.toString();
    }

    /** One row, without a line end. */
    public static String row(Simulator.Result r) {
        Metrics m = r.metrics();
        return String.join(",", escape(r.system()), escape(r.trace()),
                num(r.config().effectiveBandwidthMBps(), 3), num(r.config().latencyMillis(), 1),
                num(r.config().cacheMB(), 1), Integer.toString(m.requests()), num(m.hitRate(), 4),
                num(m.preemptedRate(), 4), num(m.meanLatencyMs(), 3), num(m.p50LatencyMs(), 3),
                num(m.p95LatencyMs(), 3), num(m.meanUtility(), 4), num(m.overpushRate(), 4),
                num(m.convergenceMs(), 3), r.config().requestMode().label(), r.traceKind().label(),
                num(r.medianIntervalMillis(), 1), num(m.hitRateNonPreempted(), 4), Integer.toString(m.neverAnswered()),
                num(m.p99LatencyMs(), 3), num(m.tailLatencyShare(), 4), num(m.staleHoverRate(), 4),
                Integer.toString(m.visits()), num(m.meanWaitAllMs(), 3), num(m.firstUtilityAll(), 4),
                escape(r.config().profileLabel()));
    }

    /** A fixed-point number, or {@code NaN}. */
    public static String num(double v, int decimals) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** {@code s} as one CSV field: quoted if it holds a comma, a quote or a line end. */
    public static String escape(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
