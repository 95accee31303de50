package dev.khameleon.client;

import org.HdrHistogram.Histogram;

/**
 * Accumulates the client metrics; every method is thread-safe (one short lock) and
 * {@link #snapshot()} returns an immutable copy.
 */
final class MetricsRecorder {
    private static final int SIGNIFICANT_DIGITS = 3;

    private long registrations;
    private long hits;
    private long preempted;
    private long upcalls;
    private long upcallFailures;
    private final Histogram latencyNanos = new Histogram(SIGNIFICANT_DIGITS);
    private double utilityAtFirstSum;
    private long firstUpcalls;
    private final Histogram convergenceNanos = new Histogram(SIGNIFICANT_DIGITS);
    private long blocksReceived;
    private long blocksRefused;
    private long blocksUsed;
    private double accuracySum;
    private long accuracyCount;

    synchronized void registered(boolean hit) {
        registrations++;
        if (hit) {
            hits++;
        }
    }

    synchronized void preempted() {
        preempted++;
    }

    synchronized void upcall(boolean first, long latencyNanos, double utility, int newlyUsedBlocks) {
        upcalls++;
        blocksUsed += newlyUsedBlocks;
        if (first) {
            firstUpcalls++;
            utilityAtFirstSum += utility;
            this.latencyNanos.recordValue(Math.max(0, latencyNanos));
        }
    }

    synchronized void converged(long nanos) {
        convergenceNanos.recordValue(Math.max(0, nanos));
    }

    synchronized void upcallFailed() {
        upcallFailures++;
    }

    synchronized void block(boolean accepted) {
        if (accepted) {
            blocksReceived++;
        } else {
            blocksRefused++;
        }
    }

    synchronized void predictionAccuracy(double mass) {
        accuracySum += mass;
        accuracyCount++;
    }

    synchronized ClientMetrics snapshot() {
        return new ClientMetrics(registrations, hits, preempted, upcalls, upcallFailures, latencyNanos.copy(),
                utilityAtFirstSum, firstUpcalls, convergenceNanos.copy(), blocksReceived, blocksRefused, blocksUsed,
                accuracySum, accuracyCount);
    }
}
