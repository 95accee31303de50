package dev.khameleon.client;

import java.time.Duration;
import java.util.Objects;

/** The one check of the client's duration settings, shared by its builders. */
final class Durations {
    private Durations() {
    }

    /**
     * Returns {@code d} if it is at least one millisecond (the client's timers tick in
     * milliseconds, so a shorter one would be 0: a busy loop or no wait at all).
     *
     * @throws NullPointerException naming {@code name} if {@code d} is null
     * @throws IllegalArgumentException naming {@code name} and the value otherwise
     */
    static Duration atLeastOneMilli(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be >= 1 ms, was " + d);
        }
        return d;
    }
}
