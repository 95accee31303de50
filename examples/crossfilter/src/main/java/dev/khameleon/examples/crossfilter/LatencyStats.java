package dev.khameleon.examples.crossfilter;

import java.util.Arrays;

/** Percentiles and the share under a threshold of a set of latencies in milliseconds. */
record LatencyStats(int count, double p50, double p99, double shareWithin100ms) {

    static LatencyStats of(double[] latenciesMs) {
        if (latenciesMs.length == 0) {
            return new LatencyStats(0, Double.NaN, Double.NaN, Double.NaN);
        }
        double[] s = latenciesMs.clone();
        Arrays.sort(s);
        int within = 0;
        for (double v : s) {
            if (v <= 100) {
                within++;
            }
        }
        return new LatencyStats(s.length, percentile(s, 0.50), percentile(s, 0.99), (double) within / s.length);
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
