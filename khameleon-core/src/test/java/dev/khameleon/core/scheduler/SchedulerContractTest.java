package dev.khameleon.core.scheduler;

import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.core.testkit.SchedulerContract;
import org.junit.jupiter.api.Nested;

/** Both built-in schedulers keep the {@link Scheduler} contract. */
class SchedulerContractTest {

    static SchedulerConfig config(int requestCount, int blocksPerRequest, int cacheBlocks) {
        return SchedulerConfig.builder().requestCount(requestCount).blocksPerRequest(blocksPerRequest)
                .cacheBlocks(cacheBlocks).utility(UtilityFunction.linear()).seed(3).build();
    }

    @Nested
    class Greedy extends SchedulerContract {
        @Override
        protected Scheduler scheduler(int requestCount, int blocksPerRequest, int cacheBlocks) {
            return Schedulers.greedy(config(requestCount, blocksPerRequest, cacheBlocks));
        }

        @Override
        protected Scheduler lazilyCountedScheduler(int requestCount, int bound, int cacheBlocks) {
            return Schedulers.greedy(SchedulerConfig.builder().requestCount(requestCount).blocksPerRequest(bound)
                    .lazyBlockCounts(id -> true).cacheBlocks(cacheBlocks).seed(3).build());
        }
    }

    @Nested
    class Reference extends SchedulerContract {
        @Override
        protected Scheduler scheduler(int requestCount, int blocksPerRequest, int cacheBlocks) {
            return Schedulers.reference(config(requestCount, blocksPerRequest, cacheBlocks));
        }

        @Override
        protected Scheduler lazilyCountedScheduler(int requestCount, int bound, int cacheBlocks) {
            return Schedulers.reference(SchedulerConfig.builder().requestCount(requestCount).blocksPerRequest(bound)
                    .lazyBlockCounts(id -> true).cacheBlocks(cacheBlocks).seed(3).build());
        }
    }
}
