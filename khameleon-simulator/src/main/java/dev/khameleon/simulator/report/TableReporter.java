package dev.khameleon.simulator.report;

import dev.khameleon.simulator.Metrics;
import dev.khameleon.simulator.Simulator;
import java.util.ArrayList;
import java.util.List;

/**
 * Formats results as an aligned text table for a terminal, or as a Markdown table. Rates are
 * shown in percent, latencies in ms. Stateless and thread-safe.
 */
public final class TableReporter {
    private static final String[] COLUMNS = {"system", "trace", "mode", "kind", "MB/s", "lat ms", "cache MB",
        "stale hover %", "wait all ms", "utility all", "requests", "hit %", "hit % np", "preempt %", "never", "mean ms", "p50 ms", "p95 ms", "p99 ms", "tail5 %",
        "utility", "overpush %", "converge ms"};

    private TableReporter() {
    }

    /** An aligned plain-text table. */
    public static String text(List<Simulator.Result> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (Simulator.Result r : results) {
            rows.add(cells(r));
        }
        int[] width = new int[COLUMNS.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                String cell = row[c];
                boolean left = c < 4;
                String pad = " ".repeat(width[c] - cell.length());
                sb.append(left ? cell + pad : pad + cell).append(c + 1 < row.length ? "  " : "");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A Markdown table with the given header and rows. */
    public static String markdown(List<String> header, List<List<String>> rows) {
        StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
        for (int i = 0; i < header.size(); i++) {
            sb.append(i < 2 ? "---|" : "---:|");
        }
        sb.append('\n');
        for (List<String> row : rows) {
            sb.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return sb.toString();
    }

    static String[] cells(Simulator.Result r) {
        Metrics m = r.metrics();
        return new String[] {r.system(), r.trace(), r.config().requestMode().label(), r.traceKind().label(),
            CsvReporter.num(r.config().effectiveBandwidthMBps(), 3),
            CsvReporter.num(r.config().latencyMillis(), 0), CsvReporter.num(r.config().cacheMB(), 0),
            CsvReporter.num(100 * m.staleHoverRate(), 1), CsvReporter.num(m.meanWaitAllMs(), 1),
            CsvReporter.num(m.firstUtilityAll(), 3), Integer.toString(m.requests()), CsvReporter.num(100 * m.hitRate(), 1),
            CsvReporter.num(100 * m.hitRateNonPreempted(), 1), CsvReporter.num(100 * m.preemptedRate(), 1),
            Integer.toString(m.neverAnswered()), CsvReporter.num(m.meanLatencyMs(), 1),
            CsvReporter.num(m.p50LatencyMs(), 1), CsvReporter.num(m.p95LatencyMs(), 1),
            CsvReporter.num(m.p99LatencyMs(), 1), CsvReporter.num(100 * m.tailLatencyShare(), 1),
            CsvReporter.num(m.meanUtility(), 3), CsvReporter.num(100 * m.overpushRate(), 1),
            CsvReporter.num(m.convergenceMs(), 0)};
    }
}
