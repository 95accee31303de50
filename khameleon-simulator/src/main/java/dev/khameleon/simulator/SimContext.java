package dev.khameleon.simulator;

import dev.khameleon.simulator.net.Link;
import dev.khameleon.simulator.trace.PointerTrace;
import java.util.random.RandomGenerator;

/**
 * What a {@link SimSystem} may use during a run: the clock, the workload, the network, the
 * recorder, a seeded random source, the configuration, and — for oracles and idealised
 * predictors only — the trace's future.
 *
 * @param loop      the virtual clock and event queue
 * @param config    the run's configuration
 * @param workload  the application
 * @param link      the downlink (one per run)
 * @param recorder  where metrics go
 * @param random    seeded randomness for this run
 * @param trace     the pointer trace being replayed (times shifted by the warm-up)
 * @param requests  the request ids of the trace in registration order
 * @param startNanos the virtual time of the trace's first sample
 */
public record SimContext(EventLoop loop, SimConfig config, Workload workload, Link link, Recorder recorder,
                         RandomGenerator random, PointerTrace trace, int[] requests, long startNanos) {

    /** One-way latency in ns: half the configured request latency (round trip). */
    public long oneWayNanos() {
        return config.oneWayNanos();
    }

    /** The client cache size in bytes. */
    public long cacheBytes() {
        return config.cacheBytes();
    }

    /** The request the pointer is over at virtual time {@code nanos} (−1 outside the mosaic). */
    public int requestAtTime(long nanos) {
        int i = trace.indexAt((nanos - startNanos) / 1e6);
        if (i < 0) {
            i = 0;
        }
        return workload.layout().requestAt(trace.x(i), trace.y(i));
    }
}
