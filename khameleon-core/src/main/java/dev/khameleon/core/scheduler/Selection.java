package dev.khameleon.core.scheduler;

/**
 * How a greedy scheduler picks the request of each slot from the gains
 * {@code u_i(t) = g_i(B_i) · P_{i,t}}: by drawing in proportion to them (the paper's rule, the
 * default) or by taking the largest. Set with {@link SchedulerConfig.Builder#selection}; see
 * {@code docs/scheduler.md} for measured ratios to the optimum and costs.
 */
public enum Selection {
    /**
     * The paper's rule (Listing 1), the default: draws request {@code i} with probability
     * {@code u_i(t) / Σ_j u_j(t)}. It hedges, sending some blocks of less likely requests.
     * The fast scheduler does this in {@code O(m log K)} per block.
     */
    SAMPLE,

    /**
     * Deterministic: takes the request with the largest gain {@code u_i(t)}. Gains within a
     * relative {@code 1e-12} of the largest count as tied (so the outcome does not hinge on
     * rounding), and the lowest request id among the tied wins. Uses no randomness, so the
     * schedule does not depend on the seed. Closer to the optimum of the paper's Eq. 2 than
     * {@link #SAMPLE} on the measured instances, but it never spreads blocks over unlikely
     * requests. The fast scheduler scans the explicit ids for each block:
     * {@code O(m·K + C + d)} per block ({@code d} distinct block counts) instead of
     * {@code O(m log K)}.
     */
    MAX_GAIN
}
