package dev.khameleon.server;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a server's push, with their defaults and validation: bandwidth estimate,
 * pacing, the bound on frames in flight, fetching and scheduling. The setters are the
 * {@link KhameleonServer.Builder}'s (through {@link ServerSettings}, the only subclass); each
 * checks its value at once and rejects a bad one with an {@link IllegalArgumentException}
 * naming the setting and the value. Not thread-safe.
 */
abstract sealed class PushSettings permits ServerSettings {
    /** The default {@link #inFlightGain}. */
    public static final double DEFAULT_IN_FLIGHT_GAIN = 1.0;
    /** The default {@link #schedulerShare}. */
    public static final double DEFAULT_SCHEDULER_SHARE = 0.1;

    double initialBytesPerSecond = 1_000_000;
    double maxBytesPerSecond = Double.POSITIVE_INFINITY;
    double fixedBytesPerSecond;
    double pacingGain = 1.25;
    double inFlightGain = DEFAULT_IN_FLIGHT_GAIN;
    int fetchWindow = 16;
    long fetchTimeoutMillis = 5_000;
    int fetchThreads = 4;
    int schedulerThreads = Runtime.getRuntime().availableProcessors();
    long stateIntervalMillis = 10;
    double schedulerShare = DEFAULT_SCHEDULER_SHARE;

    PushSettings() {
    }

    final KhameleonServer.Builder self() {
        return (KhameleonServer.Builder) this; // the only concrete subclass (sealed)
    }

    /** The bandwidth estimate before a session's first rate report, bytes/s, in {@code [1000, 1e12]} (default 1e6). */
    public KhameleonServer.Builder initialBytesPerSecond(double rate) {
        this.initialBytesPerSecond = rate("initialBytesPerSecond", rate);
        return self();
    }

    /**
     * A per-session rate cap, bytes/s, in {@code [1000, 1e12]} (default none): it bounds each
     * session's bandwidth estimate and the pace of its sender (the pacing gain does not take
     * the pace above it).
     */
    public KhameleonServer.Builder maxBytesPerSecond(double rate) {
        this.maxBytesPerSecond = rate("maxBytesPerSecond", rate);
        return self();
    }

    /** A fixed bandwidth for every session that ignores rate reports, bytes/s, in {@code [1000, 1e12]} (default: use reports). */
    public KhameleonServer.Builder fixedBytesPerSecond(double rate) {
        this.fixedBytesPerSecond = rate("fixedBytesPerSecond", rate);
        return self();
    }

    /**
     * The sender paces at the bandwidth estimate times this gain, in {@code [1, 4]} (default
     * 1.25). A gain above 1 lets the estimate (which is measured from what the server sends)
     * grow to the link's capacity; write-buffer back-pressure bounds what queues meanwhile.
     */
    public KhameleonServer.Builder pacingGain(double gain) {
        if (!(gain >= 1 && gain <= 4)) {
            throw new IllegalArgumentException("pacingGain must be in [1, 4], was " + gain);
        }
        this.pacingGain = gain;
        return self();
    }

    /**
     * Bounds the block frames a session has in flight to this many round trips' worth at the
     * bandwidth estimate, in {@code [1, 16]}, or {@code 0} for no bound (default
     * {@value #DEFAULT_IN_FLIGHT_GAIN}). The bound keeps the queue in front of the client's
     * bottleneck short, so a re-plan reaches the client a round trip after the state it follows
     * rather than behind everything pushed before it. It needs clients whose rate reports carry
     * {@code nextSeq} (this library's Java and JavaScript clients); for others nothing is bounded.
     */
    public KhameleonServer.Builder inFlightGain(double gain) {
        if (!(gain == 0 || gain >= 1 && gain <= 16)) {
            throw new IllegalArgumentException("inFlightGain must be 0 or in [1, 16], was " + gain);
        }
        this.inFlightGain = gain;
        return self();
    }

    /**
     * The most planned blocks per session fetched ahead of the sender, in {@code [1, 1024]} (default 16); a
     * session fetches fewer when its pace and its source's fetch time say fewer are sent soon.
     */
    public KhameleonServer.Builder fetchWindow(int blocks) {
        this.fetchWindow = range("fetchWindow", blocks, 1, 1024);
        return self();
    }

    /** A fetch not done after this long is skipped, in {@code [1 ms, 10 min]} (default 5 s). */
    public KhameleonServer.Builder fetchTimeout(Duration timeout) {
        this.fetchTimeoutMillis = millis("fetchTimeout", timeout, 1, 600_000);
        return self();
    }

    /** Threads that start block fetches, in {@code [1, 1024]} (default 4). */
    public KhameleonServer.Builder fetchThreads(int threads) {
        this.fetchThreads = threads("fetchThreads", threads, 1);
        return self();
    }

    /** Threads that run schedulers, shared by all sessions, in {@code [1, 1024]} (default: available processors). */
    public KhameleonServer.Builder schedulerThreads(int threads) {
        this.schedulerThreads = threads("schedulerThreads", threads, 1);
        return self();
    }

    /**
     * The least time between two re-plans of one session for new states, in
     * {@code [0, 10 s]} (default 10 ms). States that arrive faster are merged: only the newest
     * is planned, so a client flooding states costs at most one re-plan per interval.
     */
    public KhameleonServer.Builder stateInterval(Duration interval) {
        this.stateIntervalMillis = millis("stateInterval", interval, 0, 10_000);
        return self();
    }

    /**
     * The most of one scheduler thread's time one session's re-plans for new states may take, in
     * {@code (0, 1]} (default {@value #DEFAULT_SCHEDULER_SHARE}). A session whose re-plans cost
     * more (measured per job: decoding its state and planning) waits longer between them than
     * {@code stateInterval}, so its states are merged further and its neighbours keep their share
     * of the scheduler threads. At the default a re-plan taking 1 ms may follow the last one after
     * 10 ms, one taking 20 ms after 200 ms; a client sends a state at most every 20 ms (after a
     * miss), so re-plans of up to 2 ms are never held for it.
     */
    public KhameleonServer.Builder schedulerShare(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("schedulerShare must be in (0, 1], was " + share);
        }
        this.schedulerShare = share;
        return self();
    }

    static long millis(String name, Duration d, long min, long max) {
        Objects.requireNonNull(d, name);
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            ms = Long.MAX_VALUE;
        }
        if (d.isNegative() || ms < min || ms > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + " ms, " + max + " ms], was " + d);
        }
        return ms;
    }

    static double rate(String name, double rate) {
        if (!(rate >= BandwidthEstimator.MIN_BYTES_PER_SECOND && rate <= 1e12)) {
            throw new IllegalArgumentException(name + " must be in [" + (long) BandwidthEstimator.MIN_BYTES_PER_SECOND
                    + ", 1e12] bytes/s, was " + rate);
        }
        return rate;
    }

    static int threads(String name, int threads, int min) {
        return range(name, threads, min, 1024);
    }

    static int range(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }
}
