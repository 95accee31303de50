package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour every greedy scheduler shares, checked on the fast one and the reference alike. */
class SchedulerBehaviourTest {
    static final long[] HORIZONS = {50, 150, 250, 500};

    static Stream<Arguments> implementations() {
        return Stream.of(
                Arguments.of("greedy", (Function<SchedulerConfig, Scheduler>) Schedulers::greedy),
                Arguments.of("reference", (Function<SchedulerConfig, Scheduler>) Schedulers::reference));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("implementations")
    void pointDistribution_yieldsRequestedBlocksFirst(String name, Function<SchedulerConfig, Scheduler> factory) {
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(50).requestCount(20)
                .blocksPerRequest(5).seed(1).build();
        Scheduler scheduler = factory.apply(config);
        scheduler.replan(Distribution.point(20, 7, HORIZONS), 0, 10.0);
        ScheduleChunk chunk = scheduler.next(10);
        assertEquals(5, chunk.size(), "only the point request has positive weight, and it has 5 blocks");
        for (int k = 0; k < 5; k++) {
            assertEquals(7, chunk.requestId(k));
            assertEquals(k, chunk.blockIndex(k));
        }
        assertTrue(scheduler.next(10).isEmpty(), "an exhausted batch plans nothing more");
        assertEquals(5, scheduler.nextSeq());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("implementations")
    void schedule_neverGivesMoreBlocksThanARequestHas(String name, Function<SchedulerConfig, Scheduler> factory) {
        int[] counts = {1, 2, 3, 1, 4, 2, 1, 1, 5, 3};
        int cache = 40;
        SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(cache).blockCounts(counts).seed(3).build();
        Scheduler scheduler = factory.apply(config);
        scheduler.replan(Distribution.uniform(counts.length, HORIZONS), 0, 5.0);
        int[] given = new int[counts.length];
        long planned = 0;
        for (int round = 0; round < 20; round++) {
            ScheduleChunk chunk = scheduler.next(7);
            for (int k = 0; k < chunk.size(); k++) {
                long seq = chunk.firstSeq() + k;
                if (seq % cache == 0) {
                    java.util.Arrays.fill(given, 0);
                }
                int id = chunk.requestId(k);
                assertEquals(given[id], chunk.blockIndex(k), "blocks of a request come in order");
                given[id]++;
                assertTrue(given[id] <= counts[id], "request " + id + " got more than " + counts[id] + " blocks");
            }
            planned += chunk.size();
        }
        assertEquals(23, planned, "the batch ends once all 23 blocks are planned");
    }
}
