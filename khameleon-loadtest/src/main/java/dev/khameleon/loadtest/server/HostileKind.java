package dev.khameleon.loadtest.server;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** The kinds of misbehaving client the soak benchmark runs, each from its own loopback address. */
enum HostileKind {
    PING_FLOOD("ping-flood", 4, "says hello, then sends 125-byte pings as fast as it can and never reads"),
    NO_HELLO("no-hello", 24, "upgrades, never says hello, pings every second; reconnects when closed"),
    STALLED_READER("stalled-reader", 8, "says hello and sends a state every 150 ms, never reads"),
    HUGE_CACHE("huge-cache", 1, "asks for 2^24 cache blocks, far above maxCacheBlocks; again every 100 ms"),
    MAX_CACHE("max-cache", 4, "opens sessions at maxCacheBlocks, holds up to 40 each without reading, drops the oldest"),
    WIDE_FORECAST("wide-forecast", 60, "sessions from one address, each sending a Gaussian forecast 0.3 of the grid wide,"
            + " centred elsewhere every 10 ms, and reading what it is sent");

    /** The name used on the command line and in the report. */
    final String option;
    /** Concurrent clients (threads) of this kind. */
    final int clients;
    /** What the clients do, for the report. */
    final String behaviour;

    HostileKind(String option, int clients, String behaviour) {
        this.option = option;
        this.clients = clients;
        this.behaviour = behaviour;
    }

    /** Connections the clients of this kind hold open at most (a max-cache client holds its sessions and one more). */
    long maxOpen() {
        return this == MAX_CACHE ? clients * (HostileClients.MAX_HELD + 1L) : clients;
    }

    /**
     * The loopback address of the {@code worker}-th client: 127.0.0.2 and up, max-cache clients spread
     * on 127.0.0.6–9, wide-forecast clients all on 127.0.0.10.
     */
    String address(int worker) {
        int last = switch (this) {
            case MAX_CACHE -> 6 + worker % 4;
            case WIDE_FORECAST -> 10;
            default -> 2 + ordinal();
        };
        return "127.0.0." + last;
    }

    /** Parses a comma-separated list of {@link #option} names, {@code all} or {@code none}. */
    static Set<HostileKind> parseList(String list) {
        if (list.trim().equals("all")) {
            return EnumSet.allOf(HostileKind.class);
        }
        if (list.trim().equals("none")) {
            return EnumSet.noneOf(HostileKind.class);
        }
        Set<HostileKind> kinds = EnumSet.noneOf(HostileKind.class);
        for (String name : list.split(",", -1)) {
            String n = name.trim();
            HostileKind kind = Arrays.stream(values()).filter(k -> k.option.equals(n)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--hostile: unknown client kind '" + n
                            + "'; expected 'all', 'none' or a comma-separated list of " + names()));
            if (!kinds.add(kind)) {
                throw new IllegalArgumentException("--hostile: '" + n + "' listed twice");
            }
        }
        return kinds;
    }

    static String names() {
        return Arrays.stream(values()).map(k -> k.option).collect(Collectors.joining(", "));
    }
}
