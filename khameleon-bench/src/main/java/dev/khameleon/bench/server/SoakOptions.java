package dev.khameleon.bench.server;

import java.util.Set;

/**
 * The soak benchmark's command line, validated.
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
    static final String USAGE = "usage: Soak [--healthy 200] [--seconds 20] [--warmup 3]"
            + " [--hostile all|none|" + String.join(",", HostileKind.names().split(", ")) + "]"
            + " [--total-rate 20e6] [--fetch inline|executor]";

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

    /** Parses {@code --name value} pairs; anything missing takes its default (see {@link #USAGE}). */
    static SoakOptions parse(String... args) {
        int healthy = 200;
        int seconds = 20;
        int warmup = 3;
        Set<HostileKind> hostile = HostileKind.parseList("all");
        double totalRate = 20e6;
        boolean inlineFetch = true;
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + ": missing value");
            }
            String value = args[i + 1];
            switch (name) {
                case "--healthy" -> healthy = integer(name, value);
                case "--seconds" -> seconds = integer(name, value);
                case "--warmup" -> warmup = integer(name, value);
                case "--hostile" -> hostile = HostileKind.parseList(value);
                case "--total-rate" -> totalRate = number(name, value);
                case "--fetch" -> inlineFetch = switch (value.trim()) {
                    case "inline" -> true;
                    case "executor" -> false;
                    default -> throw new IllegalArgumentException("--fetch: 'inline' or 'executor', not '" + value
                            + "'");
                };
                default -> throw new IllegalArgumentException("unknown option '" + name + "'; " + USAGE);
            }
        }
        return new SoakOptions(healthy, seconds, warmup, hostile, totalRate, inlineFetch);
    }

    /** The pace of each healthy session, bytes/s. */
    double ratePerSession() {
        return Math.min(2e6, totalRate / healthy);
    }

    /** One block frame's time at {@link #ratePerSession()}, milliseconds: a slot. */
    double slotMillis() {
        return LoadApp.FRAME_BYTES / ratePerSession() * 1e3;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not an integer: '" + value + "'");
        }
    }

    private static double number(String name, String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not a number: '" + value + "'");
        }
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + ": " + value + " is outside [" + min + ", " + max + "]");
        }
    }
}
