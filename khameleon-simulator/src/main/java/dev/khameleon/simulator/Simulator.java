package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.spi.GridLayout;
import java.util.SplittableRandom;

/**
 * Replays a pointer trace against one system on a virtual clock and returns the paper's
 * metrics. The pointer's samples are fed in time order; requests are registered as
 * {@link SimConfig#requestMode()} says (every grid sample, or every cell entry), each right after
 * the pointer sample it is read from. After the last request the run goes on until the last
 * request reaches full utility or {@link SimConfig#drainMillis()} has passed; that is the end of
 * the run, up to which a never-answered request's latency is counted.
 *
 * <p>A run is a pure function of (configuration, trace, system name): all randomness comes from
 * {@link SimConfig#seed()} (mixed with the trace and system names, so runs are independent).
 * Thread-safe: each run has its own state, so runs may go in parallel.
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * The result of one run.
     *
     * @param system               the system's name
     * @param trace                the trace's name
     * @param config               the configuration
     * @param metrics              what was measured
     * @param medianIntervalMillis the trace's measured median time between samples, as recorded
     *                             (before any think-time pacing)
     * @param byPhase              the latency split by the pointer's phase at each request
     */
    public record Result(String system, String trace, SimConfig config, Metrics metrics, double medianIntervalMillis,
                         PhaseLatency byPhase) {
        /** The kind of trace, from its median sample interval. */
        public TraceKind traceKind() {
            return TraceKind.of(medianIntervalMillis);
        }
    }

    /**
     * What one replay of {@code trace} under a configuration feeds and registers: the workload
     * (the mosaic over the trace's screen), the pointer samples at the run's pace, the requests
     * timed on them, and when the replay starts and ends on the run's clock.
     *
     * @param workload   the application
     * @param samples    the trace at the pace of the run (as recorded, or re-timed for a think time)
     * @param requests   the requests, in registration order
     * @param startNanos when the first sample is fed: the warm-up after the session opens
     * @param endNanos   the end of the run: the last sample or request plus the drain
     */
    public record Plan(Workload workload, PointerTrace samples, Requests requests, long startNanos, long endNanos) {
    }

    /** The plan of a replay of {@code trace} under {@code config} (the same for every system). */
    public static Plan plan(SimConfig config, PointerTrace trace) {
        GridLayout layout = Workload.mosaic(config.mosaicRows(), config.mosaicCols(), trace.screenWidth(),
                trace.screenHeight());
        Workload workload = new Workload(layout, config.imageBytes(), config.blockBytes(), config.utility());
        PointerTrace samples = paced(config, trace, layout);
        Requests requests = requests(config, trace, samples, layout);
        long startNanos = Math.round(config.warmupMillis() * 1e6);
        double lastMillis = Math.max(samples.durationMillis(),
                requests.size() == 0 ? 0 : requests.timeMillis(requests.size() - 1));
        long endNanos = startNanos + Math.round(lastMillis * 1e6) + Math.round(config.drainMillis() * 1e6);
        return new Plan(workload, samples, requests, startNanos, endNanos);
    }

    /**
     * Runs the registered system {@code systemName} on {@code trace} under {@code config}.
     *
     * @throws IllegalArgumentException if no system of that name is registered
     */
    public static Result run(SimConfig config, PointerTrace trace, String systemName) {
        return run(config, trace, SystemRegistry.spec(systemName));
    }

    /** Runs {@code spec}, registered or not, on {@code trace} under {@code config}, reported under its name. */
    public static Result run(SimConfig config, PointerTrace trace, SystemSpec spec) {
        String systemName = spec.name();
        SimSystem system = spec.create();
        Plan plan = plan(config, trace);
        Workload workload = plan.workload();
        EventLoop loop = new EventLoop();
        Recorder recorder = new Recorder(loop::nowNanos, plan.requests().size(), workload.requestCount());
        long seed = config.seed() * 0x9E3779B97F4A7C15L ^ (trace.name() + "|" + systemName).hashCode();
        SimContext ctx = new SimContext(loop, config, workload, config.newLink(), recorder,
                new SplittableRandom(seed), plan.samples(), plan.requests().ids(), plan.startNanos());
        system.start(ctx);
        recorder.probeCache(system::answerBlocks, workload::utilityOf);
        recorder.onLastConverged(loop::stop);
        replay(loop, system, recorder, plan);
        loop.runUntil(plan.endNanos());
        return result(systemName, config, trace, plan, recorder);
    }

    /**
     * Schedules the replay of {@code plan} on {@code timeline}: from {@link Plan#startNanos()} on,
     * each pointer sample goes to {@code system} and {@code recorder} (hover) at its time, and each
     * request is registered with {@code recorder} and passed to {@code system}, right after the
     * sample it is read from. Runs on the timeline's thread; returns at once.
     */
    public static void replay(Timeline timeline, SimSystem system, Recorder recorder, Plan plan) {
        timeline.at(plan.startNanos(), new Replay(timeline, system, recorder, plan.workload().layout(), plan.samples(),
                plan.requests(), plan.startNanos()));
    }

    /**
     * The result of a finished replay of {@code plan}: {@code recorder}'s metrics with
     * never-answered requests counted up to {@link Plan#endNanos()}, and the latency by phase.
     * Call it on the thread that ran the replay.
     */
    public static Result result(String systemName, SimConfig config, PointerTrace trace, Plan plan, Recorder recorder) {
        // Phases are judged on the paced trace, the clock the requests were made on.
        PhaseLatency byPhase = PhaseLatency.of(PointerPhase.classify(plan.samples(), plan.requests().times()),
                recorder.latenciesMillis(plan.endNanos()));
        return new Result(systemName, trace.name(), config, recorder.metrics(plan.endNanos()),
                trace.medianIntervalMillis(), byPhase);
    }

    /** The trace at the pace of the run: as recorded, or re-timed for a fixed think time. */
    private static PointerTrace paced(SimConfig config, PointerTrace trace, GridLayout layout) {
        double think = config.thinkTimeMillis();
        if (think <= 0) {
            return trace;
        }
        if (config.requestMode() == RequestMode.PER_SAMPLE) {
            return trace.scaled(think / config.sampleMillis());
        }
        return trace.warp(Requests.perVisit(trace, layout).times(), think);
    }

    /** The requests of the run, timed on {@code samples} (the paced trace). */
    static Requests requests(SimConfig config, PointerTrace recorded, PointerTrace samples, GridLayout layout) {
        if (config.requestMode() == RequestMode.PER_VISIT) {
            return Requests.perVisit(samples, layout);
        }
        double step = config.sampleMillis();
        // The grid is laid on the recorded times so a think time only changes the pace.
        return Requests.perSample(recorded, layout, step, config.thinkTimeMillis() > 0 ? config.thinkTimeMillis() : step);
    }

    /**
     * Feeds pointer samples and requests in time order, each request right after the sample it
     * is read from (a request never sees a sample from its future). One event at a time, so the
     * queue stays small.
     */
    private static final class Replay implements Runnable {
        private final Timeline loop;
        private final SimSystem system;
        private final Recorder recorder;
        private final GridLayout layout;
        private final PointerTrace samples;
        private final Requests requests;
        private final long startNanos;
        private int i;
        private int k;

        Replay(Timeline loop, SimSystem system, Recorder recorder, GridLayout layout, PointerTrace samples,
               Requests requests, long startNanos) {
            this.loop = loop;
            this.system = system;
            this.recorder = recorder;
            this.layout = layout;
            this.samples = samples;
            this.requests = requests;
            this.startNanos = startNanos;
        }

        @Override
        public void run() {
            if (requestDue()) {
                request();
            } else {
                double x = samples.x(i);
                double y = samples.y(i);
                system.onPointer(x, y);
                recorder.hover(layout.requestAt(x, y));
                i++;
                if (i == samples.size()) {
                    recorder.hover(-1);
                }
                // A request read from this very sample (a cell entry) is made with it, before
                // anything else that happens at the same instant.
                while (requestDue() && requestNanos() <= loop.nowNanos()) {
                    request();
                }
            }
            long next;
            if (requestDue()) {
                next = requestNanos();
            } else if (i < samples.size()) {
                next = startNanos + Math.round(samples.timeMillis(i) * 1e6);
            } else {
                return;
            }
            // Rounding of re-timed traces may put a request a hair before its sample: never go back.
            loop.at(Math.max(next, loop.nowNanos()), this);
        }

        private void request() {
            int id = requests.id(k++);
            system.onRequest(recorder.register(id), id);
        }

        private long requestNanos() {
            return startNanos + Math.round(requests.timeMillis(k) * 1e6);
        }

        /** Whether request {@code k} comes next: its sample has been fed. */
        private boolean requestDue() {
            return k < requests.size() && requests.sample(k) < i;
        }
    }
}
