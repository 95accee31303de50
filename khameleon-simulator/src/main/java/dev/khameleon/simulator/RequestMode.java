package dev.khameleon.simulator;

import java.util.Locale;

/**
 * How the simulator turns a pointer trace into the application's requests. The pointer samples
 * fed to the predictors are the same in both modes; only what counts as a request differs.
 */
public enum RequestMode {
    /**
     * The paper's traces: the trace is resampled on a grid of {@link SimConfig#sampleMillis()}
     * (20 ms by default, the paper's "think time") and every grid sample is a request for the
     * cell under the pointer, repeats of the same cell included. The position at a grid time is
     * the last recorded sample at or before it (nothing is interpolated).
     */
    PER_SAMPLE("per-sample"),
    /** One request each time the pointer enters a cell (a target visit), at the sample that enters it. */
    PER_VISIT("per-visit");

    private final String label;

    RequestMode(String label) {
        this.label = label;
    }

    /** The name used on the command line and in reports: {@code per-sample} or {@code per-visit}. */
    public String label() {
        return label;
    }

    /**
     * Parses {@code per-sample} or {@code per-visit} (case-insensitive).
     *
     * @throws IllegalArgumentException for anything else, naming the accepted values
     */
    public static RequestMode parse(String s) {
        for (RequestMode m : values()) {
            if (m.label.equals(s.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown request mode " + s + "; expected per-sample or per-visit");
    }
}
