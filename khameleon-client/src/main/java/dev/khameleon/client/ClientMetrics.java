package dev.khameleon.client;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * A snapshot of the client-side metrics of the Khameleon paper (DESIGN §6), taken at one
 * instant. Immutable: the histograms it hands out are copies.
 *
 * <ul>
 *   <li><b>cache-hit rate</b>: the fraction of registered requests for which block 0 was
 *       already in the cache at registration (a usable answer at once);</li>
 *   <li><b>response latency</b>: time from registration to the first upcall, for every
 *       request that got one (hits count with their near-zero latency);</li>
 *   <li><b>utility at first upcall</b>: {@code U(fraction)} of the first answer delivered;</li>
 *   <li><b>preempted fraction</b>: requests dropped without any upcall because a newer
 *       request was registered first;</li>
 *   <li><b>convergence time</b>: for the most recent request (where the pointer came to rest),
 *       time from its registration to its complete answer (utility 1), counted only when no
 *       newer request had been registered by then;</li>
 *   <li><b>over-push</b>: blocks received but never part of an upcall's answer (so far);</li>
 *   <li><b>prediction accuracy</b>: the probability mass the last prediction sent before a
 *       request gave to that request, averaged over requests (recorded by the client when it
 *       has a way to evaluate its predictions).</li>
 * </ul>
 */
public final class ClientMetrics {
    private final long registrations;
    private final long hits;
    private final long preempted;
    private final long upcalls;
    private final long upcallFailures;
    private final Histogram latencyNanos;
    private final double utilityAtFirstSum;
    private final long firstUpcalls;
    private final Histogram convergenceNanos;
    private final long blocksReceived;
    private final long blocksRefused;
    private final long blocksUsed;
    private final double accuracySum;
    private final long accuracyCount;

    ClientMetrics(long registrations, long hits, long preempted, long upcalls, long upcallFailures,
                  Histogram latencyNanos, double utilityAtFirstSum, long firstUpcalls, Histogram convergenceNanos,
                  long blocksReceived, long blocksRefused, long blocksUsed, double accuracySum, long accuracyCount) {
        this.registrations = registrations;
        this.hits = hits;
        this.preempted = preempted;
        this.upcalls = upcalls;
        this.upcallFailures = upcallFailures;
        this.latencyNanos = latencyNanos;
        this.utilityAtFirstSum = utilityAtFirstSum;
        this.firstUpcalls = firstUpcalls;
        this.convergenceNanos = convergenceNanos;
        this.blocksReceived = blocksReceived;
        this.blocksRefused = blocksRefused;
        this.blocksUsed = blocksUsed;
        this.accuracySum = accuracySum;
        this.accuracyCount = accuracyCount;
    }

    /** How many requests the application registered. */
    public long registrations() {
        return registrations;
    }

    /** How many registrations found block 0 of their response already cached. */
    public long hits() {
        return hits;
    }

    /** {@link #hits()} / {@link #registrations()}, or 0 before any registration. */
    public double hitRate() {
        return ratio(hits, registrations);
    }

    /** How many registrations were dropped without an upcall because a newer one came first. */
    public long preempted() {
        return preempted;
    }

    /** {@link #preempted()} / {@link #registrations()}, or 0 before any registration. */
    public double preemptedFraction() {
        return ratio(preempted, registrations);
    }

    /** How many upcalls were made (first and progressive ones). */
    public long upcalls() {
        return upcalls;
    }

    /** How many upcalls threw an exception (contained and logged) or could not be scheduled. */
    public long upcallFailures() {
        return upcallFailures;
    }

    /** How many registrations got a first upcall; the number of latency samples. */
    public long answered() {
        return firstUpcalls;
    }

    /** A copy of the response-latency histogram (registration → first upcall), in nanoseconds. */
    public Histogram latencyHistogram() {
        return latencyNanos.copy();
    }

    /** The response latency at {@code percentile} (0..100) in milliseconds, or 0 with no samples. */
    public double latencyMillis(double percentile) {
        return millisAt(latencyNanos, percentile);
    }

    /** The mean response latency in milliseconds, or 0 with no samples. */
    public double meanLatencyMillis() {
        return latencyNanos.getTotalCount() == 0 ? 0 : latencyNanos.getMean() / TimeUnit.MILLISECONDS.toNanos(1);
    }

    /** The mean utility of the first upcall of each answered request, or 0 with none. */
    public double meanUtilityAtFirstUpcall() {
        return firstUpcalls == 0 ? 0 : utilityAtFirstSum / firstUpcalls;
    }

    /** A copy of the convergence-time histogram (latest request: registration → utility 1), in nanoseconds. */
    public Histogram convergenceHistogram() {
        return convergenceNanos.copy();
    }

    /** How many requests converged to utility 1; the number of convergence-time samples. */
    public long convergenceSamples() {
        return convergenceNanos.getTotalCount();
    }

    /** The convergence time at {@code percentile} (0..100) in milliseconds, or 0 with no samples. */
    public double convergenceMillis(double percentile) {
        return millisAt(convergenceNanos, percentile);
    }

    /** How many blocks the cache accepted. */
    public long blocksReceived() {
        return blocksReceived;
    }

    /** How many blocks the cache refused (stale sequence number or inconsistent block count). */
    public long blocksRefused() {
        return blocksRefused;
    }

    /** How many received blocks were part of at least one upcall's answer. */
    public long blocksUsed() {
        return blocksUsed;
    }

    /** Blocks received but never part of an upcall's answer: {@code received − used}. */
    public long overPush() {
        return blocksReceived - blocksUsed;
    }

    /** {@link #overPush()} / {@link #blocksReceived()}, or 0 before any block. */
    public double overPushFraction() {
        return ratio(overPush(), blocksReceived);
    }

    /** How many requests had their prediction accuracy evaluated. */
    public long predictionSamples() {
        return accuracyCount;
    }

    /** The mean probability the last prediction gave the request actually made, or 0 with no samples. */
    public double predictionAccuracy() {
        return accuracyCount == 0 ? 0 : accuracySum / accuracyCount;
    }

    private static double ratio(long a, long b) {
        return b == 0 ? 0 : (double) a / b;
    }

    private static double millisAt(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / (double) TimeUnit.MILLISECONDS.toNanos(1);
    }

    /**
     * One line with the main figures; a figure with no sample yet (a rate before any request, a
     * latency before any answer, an accuracy never evaluated) reads {@code n/a}, never a 0 that
     * could pass for a measurement.
     */
    @Override
    public String toString() {
        return "ClientMetrics[registrations=" + registrations
                + ", hitRate=" + measured(registrations, hitRate(), "%.3f")
                + ", preempted=" + measured(registrations, preemptedFraction(), "%.3f")
                + ", latency p50=" + measured(firstUpcalls, latencyMillis(50), "%.2f ms")
                + " p99=" + measured(firstUpcalls, latencyMillis(99), "%.2f ms")
                + ", utility@first=" + measured(firstUpcalls, meanUtilityAtFirstUpcall(), "%.3f")
                + ", convergence p50=" + measured(convergenceSamples(), convergenceMillis(50), "%.1f ms")
                + ", received=" + blocksReceived
                + ", overPush=" + measured(blocksReceived, overPushFraction(), "%.3f")
                + ", accuracy=" + measured(accuracyCount, predictionAccuracy(), "%.3f")
                + ", upcallFailures=" + upcallFailures + "]";
    }

    /** {@code value} in {@code format}, or {@code n/a} when it rests on no sample. */
    private static String measured(long samples, double value, String format) {
        return samples == 0 ? "n/a" : String.format(java.util.Locale.ROOT, format, value);
    }
}
