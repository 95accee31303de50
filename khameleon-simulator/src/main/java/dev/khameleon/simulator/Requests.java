package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.spi.GridLayout;
import java.util.Arrays;

/**
 * The requests a replayed trace makes, in registration order: for each, its time (ms from the
 * trace's start), its request id, and the index of the last pointer sample at or before it (so
 * the replay feeds that sample to the predictor first). Immutable; built by {@link #perVisit}
 * or {@link #perSample}; a run gets its own from {@link Simulator#plan}. Thread-safe.
 */
public final class Requests {
    private final double[] timesMillis;
    private final int[] ids;
    private final int[] samples;

    private Requests(double[] timesMillis, int[] ids, int[] samples) {
        this.timesMillis = timesMillis;
        this.ids = ids;
        this.samples = samples;
    }

    /** One request at each sample that enters a new cell; leaving the mosaic and coming back is a new entry. */
    static Requests perVisit(PointerTrace trace, GridLayout layout) {
        Builder b = new Builder();
        int cell = -1;
        for (int i = 0; i < trace.size(); i++) {
            int id = layout.requestAt(trace.x(i), trace.y(i));
            if (id != cell) {
                cell = id;
                if (id >= 0) {
                    b.add(trace.timeMillis(i), id, i);
                }
            }
        }
        return b.build();
    }

    /**
     * One request per grid time {@code k · stepMillis}, {@code k = 0 … ceil(duration / stepMillis)}
     * (so the pointer's final position is always requested), for the cell under the last sample
     * at or before that time; grid times off the mosaic make no request. Requests are timed
     * {@code k · paceMillis}: pass {@code paceMillis = stepMillis} to keep the recorded pace, or a
     * think time to replay the same requests at another pace (with the trace scaled by
     * {@code paceMillis / stepMillis}).
     *
     * @throws IllegalArgumentException if a length is not finite and positive
     */
    static Requests perSample(PointerTrace trace, GridLayout layout, double stepMillis, double paceMillis) {
        if (!(stepMillis > 0) || Double.isInfinite(stepMillis) || !(paceMillis > 0) || Double.isInfinite(paceMillis)) {
            throw new IllegalArgumentException("sample interval and pace must be finite and > 0 ms, were " + stepMillis
                    + " and " + paceMillis);
        }
        long last = (long) Math.ceil(trace.durationMillis() / stepMillis);
        Builder b = new Builder();
        int i = 0;
        for (long k = 0; k <= last; k++) {
            double t = k * stepMillis;
            while (i + 1 < trace.size() && trace.timeMillis(i + 1) <= t) {
                i++;
            }
            int id = layout.requestAt(trace.x(i), trace.y(i));
            if (id >= 0) {
                b.add(k * paceMillis, id, i);
            }
        }
        return b.build();
    }

    /** The number of requests. */
    public int size() {
        return ids.length;
    }

    /** The time of request {@code k} in ms from the trace's start. */
    public double timeMillis(int k) {
        return timesMillis[k];
    }

    /** The id of request {@code k}. */
    public int id(int k) {
        return ids[k];
    }

    /** The index of the last pointer sample at or before request {@code k}. */
    public int sample(int k) {
        return samples[k];
    }

    /** A copy of the request times. */
    public double[] times() {
        return timesMillis.clone();
    }

    /** A copy of the request ids. */
    public int[] ids() {
        return ids.clone();
    }

    private static final class Builder {
        private double[] t = new double[64];
        private int[] id = new int[64];
        private int[] s = new int[64];
        private int n;

        void add(double time, int requestId, int sample) {
            if (n == id.length) {
                t = Arrays.copyOf(t, n * 2);
                id = Arrays.copyOf(id, n * 2);
                s = Arrays.copyOf(s, n * 2);
            }
            t[n] = time;
            id[n] = requestId;
            s[n] = sample;
            n++;
        }

        Requests build() {
            return new Requests(Arrays.copyOf(t, n), Arrays.copyOf(id, n), Arrays.copyOf(s, n));
        }
    }
}
