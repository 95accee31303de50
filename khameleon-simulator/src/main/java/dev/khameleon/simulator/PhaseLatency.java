package dev.khameleon.simulator;

import java.util.Arrays;

/**
 * A run's latency split by the pointer's phase at each request ({@link PointerPhase}), over the
 * same requests as {@link Metrics#meanLatencyMs()} (not preempted; never-answered ones counted up
 * to the end of the run). Immutable: the accessors return copies.
 */
public final class PhaseLatency {
    private final int[] requests;
    private final double[] latencySumMillis;
    private final int counted;

    private PhaseLatency(int[] requests, double[] latencySumMillis) {
        this.requests = requests;
        this.latencySumMillis = latencySumMillis;
        this.counted = Arrays.stream(requests).sum();
    }

    /**
     * Sums {@code latenciesMillis[i]} by {@code phases[i]}; a NaN latency (a preempted request) is
     * left out.
     *
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public static PhaseLatency of(PointerPhase[] phases, double[] latenciesMillis) {
        if (phases.length != latenciesMillis.length) {
            throw new IllegalArgumentException("one phase per latency: " + phases.length + " phases, "
                    + latenciesMillis.length + " latencies");
        }
        int[] n = new int[PointerPhase.values().length];
        double[] sum = new double[n.length];
        for (int i = 0; i < phases.length; i++) {
            if (!Double.isNaN(latenciesMillis[i])) {
                n[phases[i].ordinal()]++;
                sum[phases[i].ordinal()] += latenciesMillis[i];
            }
        }
        return new PhaseLatency(n, sum);
    }

    /** Requests counted in {@code phase}. */
    public int requests(PointerPhase phase) {
        return requests[phase.ordinal()];
    }

    /** The latency sum of the requests in {@code phase}, ms. */
    public double latencySumMillis(PointerPhase phase) {
        return latencySumMillis[phase.ordinal()];
    }

    /** The mean latency of the requests in {@code phase}, ms; NaN when it has none. */
    public double meanMillis(PointerPhase phase) {
        int n = requests(phase);
        return n == 0 ? Double.NaN : latencySumMillis(phase) / n;
    }

    /**
     * What {@code phase} adds to the run's mean latency, ms: its latency sum over all counted
     * requests, so the contributions of the four phases add up to the mean; NaN when nothing
     * was counted.
     */
    public double contributionMillis(PointerPhase phase) {
        return counted == 0 ? Double.NaN : latencySumMillis(phase) / counted;
    }
}
