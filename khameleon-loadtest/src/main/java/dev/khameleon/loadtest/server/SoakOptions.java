package dev.khameleon.loadtest.server;

import java.util.Set;

/**
 * The soak benchmark's settings, validated: what {@code khameleon-loadtest soak} was given.
 *
 * @param healthy   well-behaved sessions, [1, 10 000]
 * @param seconds   length of each measured phase, [1, 600]
 * @param warmup    seconds before the baseline phase, [0, 60]
 * @param hostile   the kinds of hostile client in the loaded phase (none: baseline only)
 * @param totalRate bytes/s shared by the healthy sessions; each is paced at
 *                  min(2 MB/s, totalRate / healthy), which must be at least the server's 1,000 bytes/s
 * @param requests  the application's requests, a square number: a grid of √requests × √requests
 *                  cells, [4, 10^7]
 * @param schedulerShare the server's {@code schedulerShare}, (0, 1]
 * @param inlineFetch whether the synthetic source promises completed stages, so the server fetches
 *                  on the event loop ({@code --fetch inline}, what an in-memory source gets) or on
 *                  its fetch executor ({@code --fetch executor})
 * @param healthyAddresses the loopback addresses the healthy sessions connect from
 *                  ({@link #healthyAddress}), [1, {@value #MAX_HEALTHY_ADDRESSES}]; session {@code i}
 *                  uses address {@code i mod healthyAddresses}
 */
record SoakOptions(int healthy, int seconds, int warmup, Set<HostileKind> hostile, double totalRate,
        int requests, double schedulerShare, boolean inlineFetch, int healthyAddresses) {
    /** The most requests {@code --requests} accepts. */
    static final int MAX_REQUESTS = 10_000_000;
    /** The most addresses {@code --healthy-addresses} accepts: 127.1.0.1 to 127.1.39.250. */
    static final int MAX_HEALTHY_ADDRESSES = 10_000;
    /** Healthy addresses per third octet: .1 to .250. */
    private static final int PER_OCTET = 250;

    /** The settings with one address per healthy session. */
    SoakOptions(int healthy, int seconds, int warmup, Set<HostileKind> hostile, double totalRate, int requests,
                double schedulerShare, boolean inlineFetch) {
        this(healthy, seconds, warmup, hostile, totalRate, requests, schedulerShare, inlineFetch, healthy);
    }

    SoakOptions {
        hostile = Set.copyOf(hostile);
        if (!(schedulerShare > 0 && schedulerShare <= 1)) {
            throw new IllegalArgumentException("--scheduler-share: " + schedulerShare + " is outside (0, 1]");
        }
        if (requests < 4 || requests > MAX_REQUESTS || gridSide(requests) < 0) {
            throw new IllegalArgumentException("--requests: " + requests + " is not a square number in [4, "
                    + MAX_REQUESTS + "] (the application is a grid of √N × √N cells), e.g. 10000 or 1000000");
        }
        check("--healthy", healthy, 1, 10_000);
        check("--seconds", seconds, 1, 600);
        check("--warmup", warmup, 0, 60);
        check("--healthy-addresses", healthyAddresses, 1, MAX_HEALTHY_ADDRESSES);
        if (!(totalRate <= 1e12) || totalRate / healthy < 1000) {
            throw new IllegalArgumentException("--total-rate: " + totalRate + " bytes/s gives " + healthy
                    + " sessions less than the server's minimum of 1000 bytes/s each (or is above 1e12)");
        }
    }

    /** The side of the square grid of {@code requests} cells, or -1 if {@code requests} is not a square. */
    static int gridSide(int requests) {
        int side = (int) Math.round(Math.sqrt(requests));
        return (long) side * side == requests ? side : -1;
    }

    /** The application the sessions use: a grid of {@code requests} cells. */
    LoadWorkload workload() {
        return LoadWorkload.grid(gridSide(requests));
    }

    /**
     * The loopback address healthy session {@code i} connects from: {@code 127.1.x.y} for the
     * {@code k = i mod healthyAddresses}-th address, {@code x = k / 250}, {@code y = 1 + k mod 250}, apart
     * from the hostile clients' 127.0.0.2–10 and from 127.0.0.1.
     */
    String healthyAddress(int i) {
        int k = i % healthyAddresses;
        return "127.1." + k / PER_OCTET + "." + (1 + k % PER_OCTET);
    }

    /** Healthy sessions on the most crowded of their addresses. */
    int healthyPerAddress() {
        return (healthy + healthyAddresses - 1) / healthyAddresses;
    }

    /** The pace of each healthy session, bytes/s. */
    double ratePerSession() {
        return Math.min(2e6, totalRate / healthy);
    }

    /** One block frame's time at {@link #ratePerSession()}, milliseconds: a slot. */
    double slotMillis() {
        return LoadApp.FRAME_BYTES / ratePerSession() * 1e3;
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + ": " + value + " is outside [" + min + ", " + max + "]");
        }
    }
}
