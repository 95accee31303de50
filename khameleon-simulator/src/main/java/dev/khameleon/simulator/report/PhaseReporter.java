package dev.khameleon.simulator.report;

import dev.khameleon.simulator.PhaseLatency;
import dev.khameleon.simulator.PointerPhase;
import dev.khameleon.simulator.Simulator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reports where a run's latency comes from by the pointer's phase at each request
 * ({@link PointerPhase}): CSV with one row per (run, phase), and a text table with one row per
 * (request mode, trace kind, system, phase), averaged over the traces of that kind. Deterministic
 * text; stateless and thread-safe.
 */
public final class PhaseReporter {
    /** The columns of {@code latency_by_phase.csv}. */
    public static final String HEADER = "system,trace,request_mode,trace_kind,phase,requests,latency_sum_ms,"
            + "mean_latency_ms,contribution_ms";

    private PhaseReporter() {
    }

    /**
     * One row per (result, phase), header first: the phase's requests, latency sum, mean latency
     * and contribution to the run's mean latency ({@link PhaseLatency#contributionMillis}).
     */
    public static String csv(List<Simulator.Result> results) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (Simulator.Result r : results) {
            PhaseLatency p = r.byPhase();
            for (PointerPhase phase : PointerPhase.values()) {
                sb.append(String.join(",", CsvReporter.escape(r.system()), CsvReporter.escape(r.trace()),
                        r.config().requestMode().label(), r.traceKind().label(), phase.label(),
                        Integer.toString(p.requests(phase)), CsvReporter.num(p.latencySumMillis(phase), 1),
                        CsvReporter.num(p.meanMillis(phase), 3), CsvReporter.num(p.contributionMillis(phase), 3)))
                        .append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * A text table: for each (request mode, trace kind, system) and phase, the share of requests in
     * the phase, its mean latency and its contribution to the mean latency, each the mean over
     * the traces of that kind (so the contributions add up to the kind's mean latency as the
     * results table reports it per trace).
     */
    public static String text(List<Simulator.Result> results) {
        Map<String, List<Simulator.Result>> groups = new LinkedHashMap<>();
        for (Simulator.Result r : results) {
            String key = r.config().requestMode().label() + "  " + r.traceKind().label() + "  " + r.system();
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        StringBuilder sb = new StringBuilder(String.format("%-36s %-11s %9s %10s %15s%n", "mode  kind  system",
                "phase", "requests", "mean ms", "contribution ms"));
        for (Map.Entry<String, List<Simulator.Result>> g : groups.entrySet()) {
            for (PointerPhase phase : PointerPhase.values()) {
                double share = 0;
                double mean = 0;
                int meanCount = 0;
                double contribution = 0;
                for (Simulator.Result r : g.getValue()) {
                    PhaseLatency p = r.byPhase();
                    int all = 0;
                    for (PointerPhase q : PointerPhase.values()) {
                        all += p.requests(q);
                    }
                    share += all == 0 ? 0 : (double) p.requests(phase) / all;
                    if (p.requests(phase) > 0) {
                        mean += p.meanMillis(phase);
                        meanCount++;
                    }
                    contribution += all == 0 ? 0 : p.contributionMillis(phase);
                }
                int n = g.getValue().size();
                sb.append(String.format("%-36s %-11s %8s%% %10s %15s%n", g.getKey(), phase.label(),
                        CsvReporter.num(100 * share / n, 1), CsvReporter.num(meanCount == 0 ? Double.NaN
                                : mean / meanCount, 1), CsvReporter.num(contribution / n, 2)));
            }
        }
        return sb.toString();
    }
}
