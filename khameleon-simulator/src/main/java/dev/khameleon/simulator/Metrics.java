package dev.khameleon.simulator;

import java.util.List;

/**
 * The paper's metrics for one run, as {@link Recorder} defines them. Rates are fractions in
 * {@code [0, 1]}, times in ms, NaN where undefined (e.g. convergence of a system that never sends
 * the full response). Latencies are over the requests that were not preempted, <em>including</em>
 * the never-answered ones, whose latency runs until the end of the run (a lower bound).
 *
 * @param requests             requests registered (grid samples or cell entries, see {@link RequestMode})
 * @param hitRate              requests with data in the cache at registration, over all requests
 * @param hitRateNonPreempted  the same hits over the requests that were not preempted (the paper's rate)
 * @param preemptedRate        fraction of requests preempted by a newer request's first upcall
 * @param neverAnswered        requests neither answered nor preempted when the run ended
 * @param meanLatencyMs        mean registration → first upcall
 * @param p50LatencyMs         median of the same (nearest rank)
 * @param p95LatencyMs         95th percentile of the same (nearest rank)
 * @param p99LatencyMs         99th percentile of the same (nearest rank)
 * @param tailLatencyShare     share of the latency sum in the slowest 5 % of those requests
 *                             ({@code ceil(0.05 n)} of them); NaN when the sum is 0
 * @param meanUtility          mean utility at first upcall, over the answered, non-preempted requests
 * @param overpushRate         fraction of received bytes never present at an upcall of their request
 * @param staleHoverRate       share of the time the pointer is over a cell during which the client
 *                             cache has no usable answer for that cell (the headline: what a user sees)
 * @param visits               stays of the pointer over one cell (see {@link Recorder})
 * @param meanWaitAllMs        mean over every visit of entry → first usable answer in the cache,
 *                             a visit left unanswered counting its whole duration
 * @param firstUtilityAll      mean over every visit of the utility at its first answer, a visit
 *                             left unanswered counting 0
 * @param convergenceMs        time for the last request to reach utility 1 after the pointer stopped
 *                             (the time to full quality once the pointer rests)
 * @param receivedBytes        bytes delivered to the client
 * @param convergenceCurve     (elapsed ms, utility) points of the last request's upcalls
 */
public record Metrics(int requests, double hitRate, double hitRateNonPreempted, double preemptedRate,
                      int neverAnswered, double meanLatencyMs, double p50LatencyMs, double p95LatencyMs,
                      double p99LatencyMs, double tailLatencyShare, double meanUtility, double overpushRate,
                      double staleHoverRate, int visits, double meanWaitAllMs, double firstUtilityAll,
                      double convergenceMs, long receivedBytes,
                      List<double[]> convergenceCurve) {
}
