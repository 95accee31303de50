package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;

/**
 * The phase of the pointer's motion at an instant, judged afterwards from the whole trace (the
 * simulator knows the future; the predictor does not). A <em>stroke</em> is a run of samples that
 * move the pointer, consecutive moving samples less than a rest gap apart; between strokes the
 * pointer is still.
 */
public enum PointerPhase {
    /** The first {@link #WINDOW_MILLIS} of a stroke: the pointer has just left its rest. */
    ONSET("onset"),
    /** Later in a stroke, before its last {@link #WINDOW_MILLIS}. */
    MID_STROKE("mid-stroke"),
    /**
     * The last {@link #WINDOW_MILLIS} of a stroke up to its last moving sample (past its onset):
     * the pointer nears where it will stop. A cell entered then is often the one it stops on.
     */
    APPROACH("approach"),
    /** The first {@link #WINDOW_MILLIS} after a stroke's last moving sample. */
    LANDING("landing"),
    /** Still for longer than that, or before the first stroke. */
    REST("rest");

    /** How long onset and landing last, ms. */
    public static final double WINDOW_MILLIS = 150;

    /**
     * The shortest gap between moving samples that ends a stroke, ms; traces that sample more
     * slowly use twice their median interval (a batching remote desktop moves in 110 ms jumps).
     */
    public static final double MIN_REST_GAP_MILLIS = 100;

    private final String label;

    PointerPhase(String label) {
        this.label = label;
    }

    /** The name used in reports. */
    public String label() {
        return label;
    }

    /**
     * The phase at each of {@code timesMillis} (ms from the trace's start, in any order) on
     * {@code trace}, with the rest gap {@code max(}{@link #MIN_REST_GAP_MILLIS}{@code , 2 ×} the
     * trace's median sample interval{@code )}.
     */
    public static PointerPhase[] classify(PointerTrace trace, double[] timesMillis) {
        return classify(trace, timesMillis, Strokes.restGapMillis(trace), WINDOW_MILLIS);
    }

    /**
     * The phase at each of {@code timesMillis}: strokes as {@link Strokes#of} finds them with
     * {@code restGapMillis}; onset, approach and landing last {@code windowMillis}.
     *
     * @throws IllegalArgumentException if a length is negative or not finite
     */
    static PointerPhase[] classify(PointerTrace trace, double[] timesMillis, double restGapMillis,
                                   double windowMillis) {
        if (!(windowMillis >= 0) || Double.isInfinite(windowMillis)) {
            throw new IllegalArgumentException("window must be finite and >= 0 ms, was " + windowMillis);
        }
        Strokes strokes = Strokes.of(trace, restGapMillis);
        PointerPhase[] phases = new PointerPhase[timesMillis.length];
        for (int r = 0; r < timesMillis.length; r++) {
            double t = timesMillis[r];
            int k = strokes.lastStartedBy(t);
            if (k < 0) {
                phases[r] = REST;
            } else if (t <= strokes.endMillis(k)) {
                phases[r] = t - strokes.startMillis(k) < windowMillis ? ONSET
                        : strokes.endMillis(k) - t < windowMillis ? APPROACH : MID_STROKE;
            } else {
                phases[r] = t - strokes.endMillis(k) < windowMillis ? LANDING : REST;
            }
        }
        return phases;
    }
}
