package dev.khameleon.bench.store;

/** Which scheduler records the benchmark's block streams. */
final class SchedulerChoice {
    private SchedulerChoice() {
    }

    static RecordedSchedules.SchedulerFactory factory() {
        return (n, counts, cache, seed) -> new FallbackGreedy(cache, counts, seed);
    }

    static String name() {
        return "the plain greedy rule (bench FallbackGreedy; the project scheduler was not yet available)";
    }
}
