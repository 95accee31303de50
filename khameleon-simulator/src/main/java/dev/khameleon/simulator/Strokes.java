package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;
import java.util.Arrays;

/**
 * The strokes of a pointer trace, found afterwards from the whole trace: a stroke is a run of
 * samples that move the pointer (a sample moves it when its position differs from the previous
 * sample's), consecutive moving samples at most a rest gap apart. Immutable.
 */
final class Strokes {
    private final double[] starts;
    private final double[] ends;
    private final int[] endIndices;
    private final int count;

    private Strokes(double[] starts, double[] ends, int[] endIndices, int count) {
        this.starts = starts;
        this.ends = ends;
        this.endIndices = endIndices;
        this.count = count;
    }

    /**
     * The rest gap for {@code trace}: {@code max(}{@link PointerPhase#MIN_REST_GAP_MILLIS}{@code , 2 ×}
     * its median sample interval{@code )}, so a batching trace's regular jumps stay one stroke.
     */
    static double restGapMillis(PointerTrace trace) {
        double median = trace.medianIntervalMillis();
        return Math.max(PointerPhase.MIN_REST_GAP_MILLIS, Double.isFinite(median) ? 2 * median : 0);
    }

    /**
     * The strokes of {@code trace}, moving samples more than {@code restGapMillis} apart belonging
     * to different strokes.
     *
     * @throws IllegalArgumentException if the gap is negative or not finite
     */
    static Strokes of(PointerTrace trace, double restGapMillis) {
        if (!(restGapMillis >= 0) || Double.isInfinite(restGapMillis)) {
            throw new IllegalArgumentException("rest gap must be finite and >= 0 ms, was " + restGapMillis);
        }
        double[] starts = new double[16];
        double[] ends = new double[16];
        int[] endIndices = new int[16];
        int n = 0;
        for (int i = 1; i < trace.size(); i++) {
            if (trace.x(i) == trace.x(i - 1) && trace.y(i) == trace.y(i - 1)) {
                continue;
            }
            double t = trace.timeMillis(i);
            if (n > 0 && t - ends[n - 1] <= restGapMillis) {
                ends[n - 1] = t;
                endIndices[n - 1] = i;
            } else {
                if (n == starts.length) {
                    starts = Arrays.copyOf(starts, n * 2);
                    ends = Arrays.copyOf(ends, n * 2);
                    endIndices = Arrays.copyOf(endIndices, n * 2);
                }
                starts[n] = t;
                ends[n] = t;
                endIndices[n] = i;
                n++;
            }
        }
        return new Strokes(starts, ends, endIndices, n);
    }

    /** How many strokes. */
    int count() {
        return count;
    }

    /** Time of stroke {@code k}'s first moving sample, ms. */
    double startMillis(int k) {
        return starts[k];
    }

    /** Time of stroke {@code k}'s last moving sample, ms. */
    double endMillis(int k) {
        return ends[k];
    }

    /** Index in the trace of stroke {@code k}'s last moving sample: where the pointer stops. */
    int endIndex(int k) {
        return endIndices[k];
    }

    /** The last stroke that started at or before {@code tMillis}, or -1 if none has. */
    int lastStartedBy(double tMillis) {
        // Strokes start at distinct, increasing times.
        int k = Arrays.binarySearch(starts, 0, count, tMillis);
        return k >= 0 ? k : -k - 2;
    }
}
