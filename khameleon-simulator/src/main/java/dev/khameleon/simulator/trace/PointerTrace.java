package dev.khameleon.simulator.trace;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable recording of one pointer moving over a screen: samples in time order, times in
 * milliseconds from the start of the trace (the first sample is at 0), positions in screen pixels.
 *
 * <p>A trace knows its screen size so the simulator can map the screen onto the mosaic of
 * thumbnails. Instances are created by the readers ({@link BalabitReader}, {@link GalleryReader})
 * or by {@link #of}, which validates the arrays.
 */
public final class PointerTrace {
    private final String name;
    private final double[] timesMillis;
    private final double[] xs;
    private final double[] ys;
    private final double screenWidth;
    private final double screenHeight;

    private PointerTrace(String name, double[] timesMillis, double[] xs, double[] ys,
                         double screenWidth, double screenHeight) {
        this.name = name;
        this.timesMillis = timesMillis;
        this.xs = xs;
        this.ys = ys;
        this.screenWidth = screenWidth;
        this.screenHeight = screenHeight;
    }

    /**
     * Creates a trace, copying the arrays and shifting times so the first sample is at 0.
     *
     * @throws IllegalArgumentException if the arrays are empty or differ in length, a time is not
     *     finite or goes backwards, a position is not finite, or the screen size is not positive
     */
    public static PointerTrace of(String name, double[] timesMillis, double[] xs, double[] ys,
                                  double screenWidth, double screenHeight) {
        Objects.requireNonNull(name, "name");
        int n = timesMillis.length;
        if (n == 0) {
            throw new IllegalArgumentException("trace " + name + " has no samples");
        }
        if (xs.length != n || ys.length != n) {
            throw new IllegalArgumentException("trace " + name + ": " + n + " times but " + xs.length
                    + " x and " + ys.length + " y values");
        }
        if (!(screenWidth > 0) || !(screenHeight > 0) || Double.isInfinite(screenWidth)
                || Double.isInfinite(screenHeight)) {
            throw new IllegalArgumentException("trace " + name + ": screen size must be finite and > 0, was "
                    + screenWidth + " x " + screenHeight);
        }
        double t0 = timesMillis[0];
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            if (!Double.isFinite(timesMillis[i]) || !Double.isFinite(xs[i]) || !Double.isFinite(ys[i])) {
                throw new IllegalArgumentException("trace " + name + ": sample " + i + " is not finite");
            }
            if (i > 0 && timesMillis[i] < timesMillis[i - 1]) {
                throw new IllegalArgumentException("trace " + name + ": time goes backwards at sample " + i
                        + " (" + timesMillis[i] + " < " + timesMillis[i - 1] + " ms)");
            }
            t[i] = timesMillis[i] - t0;
        }
        return new PointerTrace(name, t, xs.clone(), ys.clone(), screenWidth, screenHeight);
    }

    /** A short name for reports, e.g. {@code user7/session_0041905381#0}. */
    public String name() {
        return name;
    }

    /** The number of samples. */
    public int size() {
        return timesMillis.length;
    }

    /** The time of sample {@code i} in milliseconds from the start of the trace. */
    public double timeMillis(int i) {
        return timesMillis[i];
    }

    /** The x position of sample {@code i} in pixels. */
    public double x(int i) {
        return xs[i];
    }

    /** The y position of sample {@code i} in pixels. */
    public double y(int i) {
        return ys[i];
    }

    /** The width of the screen the trace was recorded on, in pixels. */
    public double screenWidth() {
        return screenWidth;
    }

    /** The height of the screen the trace was recorded on, in pixels. */
    public double screenHeight() {
        return screenHeight;
    }

    /** The time of the last sample, in milliseconds. */
    public double durationMillis() {
        return timesMillis[timesMillis.length - 1];
    }

    /** The index of the last sample at or before {@code millis}, or {@code -1} if before the first. */
    public int indexAt(double millis) {
        int k = Arrays.binarySearch(timesMillis, millis);
        if (k >= 0) {
            while (k + 1 < timesMillis.length && timesMillis[k + 1] == millis) {
                k++;
            }
            return k;
        }
        return -k - 2;
    }

    /**
     * The median time between consecutive samples in ms (the upper median for an even count),
     * or NaN for a single sample. Robust to idle gaps: it tells how densely the recording
     * samples a moving pointer.
     */
    public double medianIntervalMillis() {
        int n = timesMillis.length - 1;
        if (n < 1) {
            return Double.NaN;
        }
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = timesMillis[i + 1] - timesMillis[i];
        }
        Arrays.sort(d);
        return d[n / 2];
    }

    /**
     * This trace with every time multiplied by {@code factor}: the same path at another pace.
     *
     * @throws IllegalArgumentException if {@code factor} is not finite and positive
     */
    public PointerTrace scaled(double factor) {
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("time scale must be finite and > 0, was " + factor);
        }
        double[] t = new double[timesMillis.length];
        for (int i = 0; i < t.length; i++) {
            t[i] = timesMillis[i] * factor;
        }
        return new PointerTrace(name, t, xs, ys, screenWidth, screenHeight);
    }

    /** The samples up to and including {@code millis}, under the same name suffixed with {@code suffix}. */
    public PointerTrace truncate(double millis, String suffix) {
        int end = Math.max(1, indexAt(millis) + 1);
        return new PointerTrace(name + suffix, Arrays.copyOf(timesMillis, end), Arrays.copyOf(xs, end),
                Arrays.copyOf(ys, end), screenWidth, screenHeight);
    }

    /**
     * This trace with its time axis warped so that consecutive entries in {@code anchorsMillis}
     * (strictly increasing times of this trace) are {@code spacingMillis} apart, samples between
     * two anchors linearly interpolated in time, samples outside them shifted rigidly. The path
     * of the pointer is unchanged; only its pace is. Used to replay a trace with a fixed think
     * time between requests.
     *
     * @throws IllegalArgumentException if {@code spacingMillis} is not positive
     */
    public PointerTrace warp(double[] anchorsMillis, double spacingMillis) {
        if (!(spacingMillis > 0) || Double.isInfinite(spacingMillis)) {
            throw new IllegalArgumentException("think time must be finite and > 0 ms, was " + spacingMillis);
        }
        int n = timesMillis.length;
        double[] t = new double[n];
        if (anchorsMillis.length == 0) {
            return this;
        }
        double first = anchorsMillis[0];
        double last = anchorsMillis[anchorsMillis.length - 1];
        double lastTarget = first + (anchorsMillis.length - 1) * spacingMillis;
        int a = 0;
        for (int i = 0; i < n; i++) {
            double ti = timesMillis[i];
            if (ti <= first) {
                t[i] = ti;
            } else if (ti >= last) {
                t[i] = lastTarget + (ti - last);
            } else {
                while (anchorsMillis[a + 1] < ti) {
                    a++;
                }
                double span = anchorsMillis[a + 1] - anchorsMillis[a];
                double w = span > 0 ? (ti - anchorsMillis[a]) / span : 0;
                t[i] = first + (a + w) * spacingMillis;
            }
        }
        return new PointerTrace(name, t, xs, ys, screenWidth, screenHeight);
    }

    @Override
    public String toString() {
        return "PointerTrace[" + name + ", " + size() + " samples, " + Math.round(durationMillis()) + " ms, screen "
                + screenWidth + "x" + screenHeight + "]";
    }
}
