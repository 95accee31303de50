package dev.khameleon.bench.sim;

import dev.khameleon.bench.sim.trace.PointerTrace;
import java.util.Arrays;

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
        double median = trace.medianIntervalMillis();
        double gap = Math.max(MIN_REST_GAP_MILLIS, Double.isFinite(median) ? 2 * median : 0);
        return classify(trace, timesMillis, gap, WINDOW_MILLIS);
    }

    /**
     * The phase at each of {@code timesMillis}: a sample moves the pointer when its position differs
     * from the previous sample's; moving samples more than {@code restGapMillis} apart belong to
     * different strokes; onset, approach and landing last {@code windowMillis}.
     *
     * @throws IllegalArgumentException if a length is negative or not finite
     */
    static PointerPhase[] classify(PointerTrace trace, double[] timesMillis, double restGapMillis,
                                   double windowMillis) {
        if (!(restGapMillis >= 0) || Double.isInfinite(restGapMillis) || !(windowMillis >= 0)
                || Double.isInfinite(windowMillis)) {
            throw new IllegalArgumentException("rest gap and window must be finite and >= 0 ms, were "
                    + restGapMillis + " and " + windowMillis);
        }
        // Stroke k spans [starts[k], ends[k]] (times of its first and last moving samples).
        double[] starts = new double[16];
        double[] ends = new double[16];
        int strokes = 0;
        for (int i = 1; i < trace.size(); i++) {
            if (trace.x(i) == trace.x(i - 1) && trace.y(i) == trace.y(i - 1)) {
                continue;
            }
            double t = trace.timeMillis(i);
            if (strokes > 0 && t - ends[strokes - 1] <= restGapMillis) {
                ends[strokes - 1] = t;
            } else {
                if (strokes == starts.length) {
                    starts = Arrays.copyOf(starts, strokes * 2);
                    ends = Arrays.copyOf(ends, strokes * 2);
                }
                starts[strokes] = t;
                ends[strokes] = t;
                strokes++;
            }
        }
        PointerPhase[] phases = new PointerPhase[timesMillis.length];
        for (int r = 0; r < timesMillis.length; r++) {
            double t = timesMillis[r];
            // The last stroke that started at or before t.
            int k = upperBound(starts, strokes, t) - 1;
            if (k < 0) {
                phases[r] = REST;
            } else if (t <= ends[k]) {
                phases[r] = t - starts[k] < windowMillis ? ONSET : ends[k] - t < windowMillis ? APPROACH : MID_STROKE;
            } else {
                phases[r] = t - ends[k] < windowMillis ? LANDING : REST;
            }
        }
        return phases;
    }

    /** The number of the first {@code n} sorted values that are at most {@code t}. */
    private static int upperBound(double[] sorted, int n, double t) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
