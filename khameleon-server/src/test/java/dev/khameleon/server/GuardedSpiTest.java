package dev.khameleon.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.server.spi.SchedulerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each guarded SPI contains whatever its implementation throws, an {@code Error} as well as a
 * {@code RuntimeException}: a failed stage, an ignored hint, or a {@link ProtocolException} with
 * the code the session closes with.
 */
class GuardedSpiTest {
    private static final int N = 4;

    /** A RuntimeException and an Error, as user code might throw them. */
    static List<Supplier<Throwable>> throwables() {
        return List.of(() -> new IllegalStateException("broken"), () -> new StackOverflowError("broken"));
    }

    private static RuntimeException sneaky(Throwable t) {
        return GuardedSpiTest.<RuntimeException>sneakyThrow(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    private static BlockSource throwingSource(Supplier<Throwable> thrown) {
        return new BlockSource() {
            @Override
            public int requestCount() {
                return N;
            }

            @Override
            public int blockSize() {
                return 8;
            }

            @Override
            public int blockCount(int requestId) {
                throw sneaky(thrown.get());
            }

            @Override
            public CompletionStage<Block> fetch(int requestId, int blockIndex) {
                throw sneaky(thrown.get());
            }

            @Override
            public void prefetch(ScheduleChunk chunk) {
                throw sneaky(thrown.get());
            }
        };
    }

    private static SchedulerContext context() {
        return new SchedulerContext(8, N, r -> 1, UtilityFunction.linear(),
                SchedulerSettings.builder().chunkSize(4).build(), 1, 0, () -> 0, r -> false, r -> false);
    }

    @ParameterizedTest
    @MethodSource("throwables")
    void blockSource_failuresBecomeFailedFetchesAndIgnoredHints(Supplier<Throwable> thrown) {
        GuardedBlockSource g = new GuardedBlockSource(throwingSource(thrown), "app", false);
        CompletionStage<Block> stage = g.fetch(0, 0, 0);
        ExecutionException e = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get());
        assertEquals(thrown.get().getClass(), e.getCause().getClass());
        g.prefetch(ScheduleChunk.of(0, new int[] {0}, new int[] {0}));
        assertEquals(-1, g.blockCount(0), "an impossible count, which fails the block's check");
    }

    @Test
    void blockSource_nullStageIsAFailedFetch() {
        BlockSource nulls = TestApps.withFetch(TestApps.inMemory(N, 1, 8), (r, i) -> null);
        CompletionStage<Block> stage = new GuardedBlockSource(nulls, "app", false).fetch(0, 0, 0);
        ExecutionException e = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get());
        assertTrue(e.getCause() instanceof NullPointerException);
    }

    @Test
    void predictor_runtimeExceptionIsInvalidState_errorIsInternal() {
        GuardedPredictor bad = new GuardedPredictor(state -> {
            throw new IllegalArgumentException("no such field");
        }, "app", N);
        assertEquals(ErrorCode.INVALID_STATE, code(() -> bad.decode(JsonNodeFactory.instance.objectNode())));
        GuardedPredictor broken = new GuardedPredictor(state -> {
            throw new StackOverflowError("broken");
        }, "app", N);
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> broken.decode(JsonNodeFactory.instance.objectNode())));
    }

    @Test
    void predictor_missingOrMisfitDistributionIsInternal() {
        assertEquals(ErrorCode.INTERNAL_ERROR,
                code(() -> new GuardedPredictor(state -> null, "app", N).decode(JsonNodeFactory.instance.nullNode())));
        Distribution other = Distribution.uniform(N + 1, 100);
        assertEquals(ErrorCode.INTERNAL_ERROR,
                code(() -> new GuardedPredictor(state -> other, "app", N).decode(JsonNodeFactory.instance.nullNode())));
        Distribution fits = Distribution.uniform(N, 100);
        assertSame(fits, new GuardedPredictor(state -> fits, "app", N).decode(JsonNodeFactory.instance.nullNode()));
    }

    @ParameterizedTest
    @MethodSource("throwables")
    void schedulerFactory_failuresAreInternal(Supplier<Throwable> thrown) {
        GuardedSchedulerFactory g = new GuardedSchedulerFactory(c -> {
            throw sneaky(thrown.get());
        }, "app");
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> g.create(context())));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> new GuardedSchedulerFactory(c -> null, "app")
                .create(context())));
    }

    @ParameterizedTest
    @MethodSource("throwables")
    void scheduler_everyCallsFailureIsInternal(Supplier<Throwable> thrown) {
        Scheduler throwing = new Scheduler() {
            @Override
            public void replan(Distribution distribution, long fromSeq, double slotMillis) {
                throw sneaky(thrown.get());
            }

            @Override
            public ScheduleChunk next(int maxBlocks) {
                throw sneaky(thrown.get());
            }

            @Override
            public void invalidate(int[] requestIds) {
                throw sneaky(thrown.get());
            }

            @Override
            public long nextSeq() {
                throw sneaky(thrown.get());
            }

            @Override
            public int cacheBlocks() {
                throw sneaky(thrown.get());
            }
        };
        Scheduler g = new GuardedSchedulerFactory(c -> throwing, "app").create(context());
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> g.replan(Distribution.uniform(N, 100), 0, 1)));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> g.next(4)));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> g.invalidate(new int[] {0})));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(g::nextSeq));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(g::cacheBlocks));
    }

    @Test
    void requestScope_runtimeExceptionIsInvalidScope_errorAndNullAreInternal() {
        var json = JsonNodeFactory.instance.objectNode();
        assertEquals(ErrorCode.INVALID_SCOPE, code(() -> new GuardedRequestScope(s -> {
            throw new IllegalArgumentException("bad brush");
        }, "app").decode(json)));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> new GuardedRequestScope(s -> {
            throw new StackOverflowError("broken");
        }, "app").decode(json)));
        assertEquals(ErrorCode.INTERNAL_ERROR, code(() -> new GuardedRequestScope(s -> null, "app").decode(json)));
    }

    @Test
    void application_wrapsItsSpisOnceAtBuildTime() {
        Application app = Application.builder("guarded").blockSource(TestApps.inMemory(N, 1, 8)).build();
        assertSame(app.guardedSource(), app.guardedSource());
        assertSame(app.guardedPredictor(), app.guardedPredictor());
        assertSame(app.guardedSchedulerFactory(), app.guardedSchedulerFactory());
        assertEquals(null, app.guardedScope(), "no scope, no guard");
    }

    private static ErrorCode code(Runnable call) {
        return assertThrows(ProtocolException.class, call::run).code();
    }
}
