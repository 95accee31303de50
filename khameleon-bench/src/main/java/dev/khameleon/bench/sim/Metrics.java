package dev.khameleon.bench.sim;

import java.util.List;

/**
 * The paper's metrics for one run. Rates are fractions in {@code [0, 1]}; latencies in ms over
 * the requests that were answered and not preempted; NaN where undefined (e.g. convergence of
 * a system that never sends the full response).
 *
 * @param requests        requests registered (cell entries)
 * @param hitRate         fraction of requests with data in the cache at registration
 * @param preemptedRate   fraction of requests preempted by a newer request's upcall
 * @param meanLatencyMs   mean registration → first upcall
 * @param p50LatencyMs    median of the same
 * @param p95LatencyMs    95th percentile of the same
 * @param meanUtility     mean utility at first upcall
 * @param overpushRate    fraction of received bytes never present at an upcall of their request
 * @param convergenceMs   time for the last request to reach utility 1 after the pointer stopped
 * @param unanswered      requests neither answered nor preempted when the run ended
 * @param receivedBytes   bytes delivered to the client
 * @param convergenceCurve (elapsed ms, utility) points of the last request's upcalls
 */
public record Metrics(int requests, double hitRate, double preemptedRate, double meanLatencyMs,
                      double p50LatencyMs, double p95LatencyMs, double meanUtility, double overpushRate,
                      double convergenceMs, int unanswered, long receivedBytes, List<double[]> convergenceCurve) {
}
