package dev.khameleon.simulator;

/**
 * How much virtual time a scheduler job of the push engine takes, from its submission to its result
 * on the session's thread. The default is a model, so that a run stays a pure function of its
 * inputs; {@link #MEASURED} charges what the job really took on this machine's CPU instead.
 */
public enum SchedulerTime {
    /**
     * {@value #HANDOFF_MICROS} µs for the two thread hand-offs, plus {@value #DECODE_MICROS} µs to
     * decode a state (the {@code GaussianGridPredictor} on a 100 × 100 grid with a moving pointer,
     * docs/benchmarks.md § Server predictor: decoding one state), plus {@value #BLOCK_MICROS} µs per
     * block planned (the greedy scheduler, docs/benchmarks.md § Scheduler: under 1 µs per block).
     */
    MODEL,
    /** The job's measured CPU time on this machine, plus the hand-offs. Not reproducible run to run. */
    MEASURED,
    /** No time at all: the idealised planner. */
    ZERO;

    /** The two thread hand-offs of a job, µs. */
    public static final long HANDOFF_MICROS = 50;
    /** Decoding one state, µs. */
    public static final long DECODE_MICROS = 150;
    /** Planning one block, µs. */
    public static final long BLOCK_MICROS = 1;

    /** The virtual nanoseconds of a job that took {@code measuredNanos}, decoded a state or not, and planned {@code blocks}. */
    public long nanos(long measuredNanos, boolean decodedState, int blocks) {
        return switch (this) {
            case MODEL -> 1_000 * (HANDOFF_MICROS + (decodedState ? DECODE_MICROS : 0) + BLOCK_MICROS * blocks);
            case MEASURED -> 1_000 * HANDOFF_MICROS + measuredNanos;
            case ZERO -> 0;
        };
    }
}
