package dev.khameleon.core.scheduler;

import dev.khameleon.core.spi.Scheduler;

/**
 * Creates the built-in greedy schedulers. Both draw each slot's request with the probability of
 * the paper's Listing 1, {@code u_i(t) / Σ_j u_j(t)} with {@code u_i(t) = g_i(B_i) · P_{i,t}}, or,
 * with {@link Selection#MAX_GAIN}, both take the same largest-gain request; they differ only in
 * cost. See {@code docs/scheduler.md}.
 */
public final class Schedulers {
    private Schedulers() {
    }

    /**
     * The fast greedy scheduler: {@code O(m log K)} per block ({@code m} horizons, {@code K}
     * explicit ids; {@code O(m·K + C)} under {@link Selection#MAX_GAIN}), {@code O(m·C)} per
     * batch or re-plan; its memory grows with {@code C} and {@code K}, not {@code n}, above
     * {@code n = 65,536} requests (below, arrays of {@code n}). The default for servers and
     * simulations.
     *
     * @return a new scheduler with no distribution yet (it plans nothing until the first
     *     {@link Scheduler#replan}); not thread-safe
     */
    public static Scheduler greedy(SchedulerConfig config) {
        return new GreedyScheduler(config);
    }

    /**
     * The paper's Listing 1 as written: {@code O(n)} per block and {@code O(n·C)} time and
     * memory per batch or re-plan. For tests and benchmarks only.
     *
     * @return a new scheduler with no distribution yet; not thread-safe
     */
    public static Scheduler reference(SchedulerConfig config) {
        return new ReferenceGreedyScheduler(config);
    }
}
