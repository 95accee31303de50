package dev.khameleon.core;

import java.util.Arrays;

/**
 * The horizons a predictor forecasts at, in milliseconds from the state's time: at least one,
 * none negative, strictly increasing. The one place their rules and their default live; every
 * builder that takes horizons checks them here, once. Immutable and thread-safe.
 */
public final class Horizons {
    private static final Horizons DEFAULT = new Horizons(new long[] {50, 150, 250, 500});

    private final long[] millis;

    private Horizons(long[] millis) {
        this.millis = millis;
    }

    /** The default horizons, 50, 150, 250 and 500 ms: what every builder uses unless told otherwise. */
    public static Horizons defaults() {
        return DEFAULT;
    }

    /**
     * Horizons of {@code millis}, copied.
     *
     * @throws IllegalArgumentException if empty, negative or not strictly increasing
     */
    public static Horizons of(long... millis) {
        return new Horizons(check("horizons", millis));
    }

    /**
     * Checks {@code millis} as the setting called {@code setting} and returns a copy.
     *
     * @throws IllegalArgumentException naming {@code setting} and the bad list if it is empty, has
     *     a negative entry or does not strictly increase
     */
    public static long[] check(String setting, long... millis) {
        if (millis == null || millis.length == 0) {
            throw new IllegalArgumentException(setting + " must have at least one entry");
        }
        for (int j = 0; j < millis.length; j++) {
            if (millis[j] < 0 || (j > 0 && millis[j] <= millis[j - 1])) {
                throw new IllegalArgumentException(setting + " must be >= 0 and strictly increasing, was "
                        + Arrays.toString(millis));
            }
        }
        return millis.clone();
    }

    /** The number of horizons. */
    public int size() {
        return millis.length;
    }

    /** Horizon {@code j}, milliseconds. */
    public long millis(int j) {
        return millis[j];
    }

    /** A copy of the horizons, milliseconds. */
    public long[] toArray() {
        return millis.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Horizons h && Arrays.equals(millis, h.millis);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(millis);
    }

    /** The horizons as {@code [50, 150, 250, 500]}. */
    @Override
    public String toString() {
        return Arrays.toString(millis);
    }
}
