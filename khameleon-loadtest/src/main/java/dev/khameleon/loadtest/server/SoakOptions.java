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
 * @param inlineFetch whether the synthetic source promises completed stages, so the server fetches
 *                  on the event loop ({@code --fetch inline}, what an in-memory source gets) or on
 *                  its fetch executor ({@code --fetch executor})
 */
record SoakOptions(int healthy, int seconds, int warmup, Set<HostileKind> hostile, double totalRate,
        boolean inlineFetch) {
    SoakOptions {
        hostile = Set.copyOf(hostile);
        check("--healthy", healthy, 1, 10_000);
        check("--seconds", seconds, 1, 600);
        check("--warmup", warmup, 0, 60);
        if (!(totalRate <= 1e12) || totalRate / healthy < 1000) {
            throw new IllegalArgumentException("--total-rate: " + totalRate + " bytes/s gives " + healthy
                    + " sessions less than the server's minimum of 1000 bytes/s each (or is above 1e12)");
        }
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
