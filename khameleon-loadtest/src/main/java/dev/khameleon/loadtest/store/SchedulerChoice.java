package dev.khameleon.loadtest.store;

import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;

/** Which scheduler records the benchmark's block streams: the project's fast greedy scheduler. */
final class SchedulerChoice {
    private SchedulerChoice() {
    }

    static RecordedSchedules.SchedulerFactory factory() {
        return (n, counts, cache, seed) -> Schedulers.greedy(SchedulerConfig.builder().cacheBlocks(cache)
                .requestCount(n).blockCounts(counts).seed(seed).build());
    }

    static String name() {
        return "Schedulers.greedy (linear utility, chunks of 100)";
    }
}
