package dev.khameleon.server;

import dev.khameleon.core.scheduler.BackendLoad;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.server.spi.SchedulerContext;
import dev.khameleon.server.spi.SchedulerFactory;

/** The default {@link SchedulerFactory}: core's greedy scheduler configured from the context. */
final class DefaultScheduler {
    static final SchedulerFactory FACTORY = DefaultScheduler::greedy;

    private DefaultScheduler() {
    }

    static SchedulerConfig config(SchedulerContext c) {
        SchedulerConfig.Builder b = SchedulerConfig.builder()
                .cacheBlocks(c.cacheBlocks())
                .requestCount(c.requestCount())
                .blockCounts(c.blockCounts())
                .utility(c.utility())
                .settings(c.settings())
                .seed(c.seed())
                .lazyBlockCounts(c.blockCountIsBound());
        if (c.backendConcurrency() > 0) {
            b.backendConcurrency(c.backendConcurrency(), new BackendLoad() {
                @Override
                public int inFlight() {
                    return c.backendInFlight().getAsInt();
                }

                @Override
                public boolean isFetching(int requestId) {
                    return c.backendIsFetching().test(requestId);
                }
            });
        }
        return b.build();
    }

    private static dev.khameleon.core.spi.Scheduler greedy(SchedulerContext c) {
        return Schedulers.greedy(config(c));
    }
}
