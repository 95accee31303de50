package dev.khameleon.simulator;

import dev.khameleon.simulator.SystemSpec.Group;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every system the simulator can run, by name, in one table: the push systems (the library and its
 * bounds), the paper's baselines with its three ACC settings, the ablation, and the research probes
 * whose results docs/benchmarks.md records. Each entry's settings are fixed where it is registered
 * below; a new variant is a new entry (or, in a test, a {@link SystemSpec} made with {@link #acc} or
 * {@link #strokeEndOracle} and run directly), never a name parsed at run time. Thread-safe (immutable).
 */
public final class SystemRegistry {
    /** The longest window a stroke-end oracle may be told the stop in, ms. */
    static final int MAX_STROKE_END_MILLIS = 10_000;
    /** The largest error a stroke-end oracle may be told the stop with, px. */
    static final int MAX_STROKE_END_ERROR_PX = 1_000;
    /** The windows of the stroke-end probe's grid (docs/benchmarks.md), ms before the stop. */
    private static final int[] PROBE_WINDOWS_MS = {75, 150, 300};
    /** The errors of the stroke-end probe's grid, px. */
    private static final int[] PROBE_ERRORS_PX = {0, 5, 10, 20, 40};

    private static final Map<String, SystemSpec> SYSTEMS = build();

    private SystemRegistry() {
    }

    private static Map<String, SystemSpec> build() {
        Map<String, SystemSpec> m = new LinkedHashMap<>();
        add(m, new SystemSpec("khameleon", Group.PUSH,
                "the library as shipped: Kalman forecast, the server's push engine, progressive blocks",
                PushSystem::khameleon));
        add(m, new SystemSpec("oracle", Group.PUSH,
                "khameleon told the true cell under the pointer at every horizon", PushSystem::oracle));
        add(m, new SystemSpec("uniform", Group.PUSH, "khameleon with the uniform distribution", PushSystem::uniform));
        add(m, new SystemSpec("predictor-only", Group.PUSH,
                "khameleon pushing whole images as single blocks (no progressive encoding)", PushSystem::predictorOnly));
        add(m, new SystemSpec("baseline", Group.BASELINE,
                "request-response: each missed request fetches its full response, no cancellation",
                () -> new RequestResponseSystem(false, 0, 0)));
        add(m, new SystemSpec("progressive", Group.BASELINE,
                "request-response sending only the first block of each missed request",
                () -> new RequestResponseSystem(true, 0, 0)));
        // The paper's ACC settings (Figures 6-7 and 9-13).
        add(m, acc(0.8, 1));
        add(m, acc(1, 1));
        add(m, acc(1, 5));
        add(m, new SystemSpec("ideal-sender", Group.ABLATION,
                "khameleon with an idealised sender in place of the server's push engine", PushSystem::idealSender));
        // The stroke-end probe of docs/benchmarks.md ("how accurate a forecast of where a stroke ends must be").
        add(m, strokeEndOracle("stroke-end-oracle-150", 150, 0, 100));
        for (int w : PROBE_WINDOWS_MS) {
            for (int e : PROBE_ERRORS_PX) {
                add(m, strokeEndOracle("stroke-end-oracle-" + w + "-" + e, w, e, 100));
            }
        }
        for (int e : PROBE_ERRORS_PX) {
            add(m, strokeEndOracle("stroke-end-oracle-150-" + e + "-50", 150, e, 50));
        }
        return Collections.unmodifiableMap(m);
    }

    private static void add(Map<String, SystemSpec> m, SystemSpec spec) {
        if (m.putIfAbsent(spec.name(), spec) != null) {
            throw new IllegalStateException("two systems named " + spec.name());
        }
    }

    /**
     * The paper's ACC prefetcher: request-response that, per new request, also fetches {@code prefetch}
     * full responses guessed with accuracy {@code accuracy}; named {@code acc-A-K} (for example
     * {@code acc-0.8-1}).
     *
     * @throws IllegalArgumentException if {@code accuracy} is outside [0, 1] or {@code prefetch < 1}
     */
    public static SystemSpec acc(double accuracy, int prefetch) {
        if (!(accuracy >= 0 && accuracy <= 1) || prefetch < 1) {
            throw new IllegalArgumentException("ACC: accuracy must be in [0, 1] and the prefetch count >= 1, was "
                    + accuracy + " and " + prefetch);
        }
        String a = accuracy == Math.rint(accuracy) ? Long.toString((long) accuracy) : Double.toString(accuracy);
        return new SystemSpec("acc-" + a + "-" + prefetch, Group.BASELINE,
                "ACC: request-response prefetching " + prefetch + " full response" + (prefetch == 1 ? "" : "s")
                        + " per new request, guessed with accuracy " + a,
                () -> new RequestResponseSystem(false, accuracy, prefetch));
    }

    /**
     * The stroke-end oracle: {@code ideal-sender} told, during a stroke's last {@code windowMillis}, where
     * it stops, {@code errorPx} off, with {@code sharePercent} % of the mass (the rest on the Kalman
     * forecast); reported as {@code name}.
     *
     * @throws IllegalArgumentException if the window is outside [1, 10 000] ms, the error outside
     *     [0, 1 000] px or the share outside [1, 100] %
     */
    public static SystemSpec strokeEndOracle(String name, int windowMillis, int errorPx, int sharePercent) {
        if (windowMillis < 1 || windowMillis > MAX_STROKE_END_MILLIS) {
            throw new IllegalArgumentException("system " + name + ": the window must be 1 to " + MAX_STROKE_END_MILLIS
                    + " ms, was " + windowMillis);
        }
        if (errorPx < 0 || errorPx > MAX_STROKE_END_ERROR_PX) {
            throw new IllegalArgumentException("system " + name + ": the error must be 0 to " + MAX_STROKE_END_ERROR_PX
                    + " px, was " + errorPx);
        }
        if (sharePercent < 1 || sharePercent > 100) {
            throw new IllegalArgumentException("system " + name + ": the share must be 1 to 100 %, was " + sharePercent);
        }
        return new SystemSpec(name, Group.PROBE, "ideal-sender told each stroke's stop " + windowMillis + " ms ahead, "
                + errorPx + " px off, with " + sharePercent + " % of the mass",
                () -> PushSystem.strokeEndOracle(name, windowMillis, errorPx, sharePercent));
    }

    /** Every registered system, in the order {@code khameleon-simulator systems} lists them. */
    public static List<SystemSpec> all() {
        return List.copyOf(SYSTEMS.values());
    }

    /** Every registered name, in the order of {@link #all()}. */
    public static List<String> names() {
        return new ArrayList<>(SYSTEMS.keySet());
    }

    /**
     * The registered system {@code name}.
     *
     * @throws IllegalArgumentException for a name not registered; the message names the command that lists them
     */
    public static SystemSpec spec(String name) {
        SystemSpec s = SYSTEMS.get(name);
        if (s == null) {
            List<String> push = new ArrayList<>();
            for (SystemSpec e : SYSTEMS.values()) {
                if (e.group() != Group.PROBE) {
                    push.add(e.name());
                }
            }
            throw new IllegalArgumentException("unknown system " + name + "; known: " + String.join(", ", push)
                    + " and the stroke-end-oracle probes ('khameleon-simulator systems' lists them all)");
        }
        return s;
    }

    /** A fresh instance of the registered system {@code name}; see {@link #spec}. */
    public static SimSystem create(String name) {
        return spec(name).create();
    }

    /** Checks that {@code name} is registered, without creating anything; see {@link #spec}. */
    public static void check(String name) {
        spec(name);
    }
}
