package dev.khameleon.simulator.trace;

import java.util.Arrays;

/**
 * Pointer samples being read, in time order: a sample whose time goes backwards is dropped
 * and counted; one with the same time as the previous replaces it (the pointer is in one place
 * at one time) and is counted. Primitive arrays, so millions of samples cost no boxing. Not
 * thread-safe.
 */
final class Samples {
    private double[] t = new double[1024];
    private double[] x = new double[1024];
    private double[] y = new double[1024];
    private int size;
    private double maxX;
    private double maxY;
    private int backwards;
    private int collapsed;

    /** Adds a sample (see the class comment for the time rules). */
    void add(double time, double px, double py) {
        if (size > 0 && time < t[size - 1]) {
            backwards++;
            return;
        }
        if (size > 0 && time == t[size - 1]) {
            collapsed++;
            size--;
        } else if (size == t.length) {
            t = Arrays.copyOf(t, size * 2);
            x = Arrays.copyOf(x, size * 2);
            y = Arrays.copyOf(y, size * 2);
        }
        t[size] = time;
        x[size] = px;
        y[size] = py;
        size++;
        maxX = Math.max(maxX, px);
        maxY = Math.max(maxY, py);
    }

    int size() {
        return size;
    }

    double lastTime() {
        return t[size - 1];
    }

    double[] times() {
        return Arrays.copyOf(t, size);
    }

    double[] xs() {
        return Arrays.copyOf(x, size);
    }

    double[] ys() {
        return Arrays.copyOf(y, size);
    }

    /** The largest x of the samples kept or replaced. */
    double maxX() {
        return maxX;
    }

    /** The largest y of the samples kept or replaced. */
    double maxY() {
        return maxY;
    }

    int backwards() {
        return backwards;
    }

    int collapsed() {
        return collapsed;
    }

    /** Forgets the samples (not the counters or maxima). */
    void clear() {
        size = 0;
    }
}
