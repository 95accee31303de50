package dev.khameleon.store;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The ways a {@link FileBlockStore} can turn block fetches into disk reads; all serve the same
 * bytes, they differ in how many reads they issue, how large and in what order.
 */
public enum ReadStrategy {
    /**
     * One positional read per fetched block, issued at fetch time by a pool of
     * {@code ioThreads} threads (default 64), so as many reads are in flight as callers ask for.
     * No memory beyond one block-sized buffer per thread.
     */
    NAIVE("naive"),
    /**
     * Libception's recipe: a small fixed number of I/O threads (default 1, which serializes all
     * reads), pending reads served in ascending disk order (an elevator sweep), and aggressive
     * read-ahead: a miss on block {@code j} reads {@code j..j+k} (up to the response's end or
     * {@code readAheadBytes}) in one call into a bounded pool, from which later blocks are
     * served.
     */
    SERIALIZED_READAHEAD("serialized-readahead"),
    /**
     * {@link #SERIALIZED_READAHEAD}'s pool plus the scheduler's hint: each planned schedule chunk
     * ({@link dev.khameleon.core.spi.BlockSource#prefetch}) is turned into reads, one merged
     * range per response, issued soonest-due first ahead of the sender; announced data is kept in
     * the pool until it is fetched, in preference to other data, and when the pool cannot hold
     * all of it, the data due soonest stays. A fetch nobody announced reads just its block (no
     * blind read-ahead). Reads a sender waits for go first and may use every read slot; prefetch
     * reads use the slots they leave free but one. By default the number of reads in flight
     * adapts to the device (4 to 8).
     */
    SCHEDULE_AWARE("schedule-aware");

    private final String configName;

    ReadStrategy(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration and on the command line, e.g. {@code serialized-readahead}. */
    public String configName() {
        return configName;
    }

    /**
     * The strategy with configuration name (or enum constant name) {@code name}, ignoring case.
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static ReadStrategy fromName(String name) {
        for (ReadStrategy s : values()) {
            if (s.configName.equalsIgnoreCase(name) || s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown read strategy '" + name + "'; expected one of "
                + Arrays.stream(values()).map(ReadStrategy::configName).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return configName.toLowerCase(Locale.ROOT);
    }
}
