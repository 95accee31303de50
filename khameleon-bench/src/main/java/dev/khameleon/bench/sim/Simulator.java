package dev.khameleon.bench.sim;

import dev.khameleon.bench.sim.trace.PointerTrace;
import dev.khameleon.core.GridLayout;
import java.util.SplittableRandom;

/**
 * Replays a pointer trace against one system on a virtual clock and returns the paper's
 * metrics. The pointer's samples are fed in time order; entering a new mosaic cell registers a
 * request. After the last sample the run goes on until the last request reaches full utility
 * or {@link SimConfig#drainMillis()} has passed.
 *
 * <p>A run is a pure function of (configuration, trace, system name): all randomness comes from
 * {@link SimConfig#seed()} (mixed with the trace and system names, so runs are independent).
 * Thread-safe: each run has its own state, so runs may go in parallel.
 */
public final class Simulator {
    private Simulator() {
    }

    /** The result of one run. */
    public record Result(String system, String trace, SimConfig config, Metrics metrics) {
    }

    /** Runs {@code systemName} on {@code trace} under {@code config}. */
    public static Result run(SimConfig config, PointerTrace trace, String systemName) {
        SimSystem system = SystemRegistry.create(systemName);
        GridLayout layout = Workload.mosaic(config.mosaicRows(), config.mosaicCols(), trace.screenWidth(),
                trace.screenHeight());
        Workload workload = new Workload(layout, config.imageBytes(), config.blockBytes(), config.utility());
        PointerTrace replay = trace;
        if (config.thinkTimeMillis() > 0) {
            replay = trace.warp(requestTimes(trace, layout), config.thinkTimeMillis());
        }
        int[] requests = requestIds(replay, layout);
        EventLoop loop = new EventLoop();
        Recorder recorder = new Recorder(loop, requests.length, layout.requestCount());
        long seed = config.seed() * 0x9E3779B97F4A7C15L ^ (trace.name() + "|" + systemName).hashCode();
        long startNanos = Math.round(config.warmupMillis() * 1e6);
        SimContext ctx = new SimContext(loop, config, workload, config.newLink(), recorder,
                new SplittableRandom(seed), replay, requests, startNanos);
        system.start(ctx);
        PointerTrace samples = replay;
        long endNanos = startNanos + Math.round(samples.durationMillis() * 1e6) + Math.round(config.drainMillis() * 1e6);
        recorder.onLastConverged(loop::stop);
        loop.at(startNanos, new Runnable() {
            private int i;
            private int cell = -1;

            @Override
            public void run() {
                double x = samples.x(i);
                double y = samples.y(i);
                system.onPointer(x, y);
                int id = layout.requestAt(x, y);
                if (id != cell) {
                    cell = id;
                    if (id >= 0) {
                        system.onRequest(recorder.register(id), id);
                    }
                }
                i++;
                if (i < samples.size()) {
                    loop.at(startNanos + Math.round(samples.timeMillis(i) * 1e6), this);
                }
            }
        });
        loop.runUntil(endNanos);
        return new Result(systemName, trace.name(), config, recorder.metrics());
    }

    /** The ids of the cells the pointer enters, in order. */
    static int[] requestIds(PointerTrace trace, GridLayout layout) {
        int[] entries = cellEntries(trace, layout);
        int[] ids = new int[entries.length];
        for (int k = 0; k < entries.length; k++) {
            ids[k] = layout.requestAt(trace.x(entries[k]), trace.y(entries[k]));
        }
        return ids;
    }

    /** The times (ms) at which the pointer enters a new cell. */
    static double[] requestTimes(PointerTrace trace, GridLayout layout) {
        int[] entries = cellEntries(trace, layout);
        double[] times = new double[entries.length];
        for (int k = 0; k < entries.length; k++) {
            times[k] = trace.timeMillis(entries[k]);
        }
        return times;
    }

    /** The indexes of the samples at which the pointer enters a new cell (leaving the mosaic resets). */
    private static int[] cellEntries(PointerTrace trace, GridLayout layout) {
        int[] out = new int[16];
        int n = 0;
        int cell = -1;
        for (int i = 0; i < trace.size(); i++) {
            int id = layout.requestAt(trace.x(i), trace.y(i));
            if (id != cell) {
                cell = id;
                if (id >= 0) {
                    if (n == out.length) {
                        out = java.util.Arrays.copyOf(out, n * 2);
                    }
                    out[n++] = i;
                }
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }
}
