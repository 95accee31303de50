package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Scheduler#invalidate}: a request whose meaning changed starts again at block 0, and no
 * later re-plan counts the blocks planned for its old meaning.
 */
class InvalidateTest {
    private static final long[] HORIZONS = TestInstances.HORIZONS;

    /** All mass on request 0: every slot goes to it while it has blocks left. */
    private static Distribution pointOnZero() {
        Distribution.Builder b = Distribution.builder(3, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            b.explicit(j, 0, 1.0);
        }
        return b.build();
    }

    private static Scheduler scheduler(Function<SchedulerConfig, Scheduler> factory) {
        return factory.apply(SchedulerConfig.builder().cacheBlocks(100).requestCount(3).blocksPerRequest(10)
                .seed(7).build());
    }

    private static int[] blockIndices(ScheduleChunk chunk, int requestId) {
        return java.util.stream.IntStream.range(0, chunk.size()).filter(k -> chunk.requestId(k) == requestId)
                .map(chunk::blockIndex).toArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void invalidate_restartsTheRequestAtBlockZero(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = scheduler(factory);
        Distribution d = pointOnZero();
        s.replan(d, 0, 1.0);
        assertArrayEquals(new int[] {0, 1, 2, 3}, blockIndices(s.next(4), 0));
        s.replan(d, 4, 1.0);
        s.invalidate(new int[] {0});
        assertArrayEquals(new int[] {0, 1, 2}, blockIndices(s.next(3), 0),
                "the new meaning is pushed from its first block");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void invalidate_isNotUndoneByALaterReplan(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = scheduler(factory);
        Distribution d = pointOnZero();
        s.replan(d, 0, 1.0);
        s.next(4);
        s.replan(d, 2, 1.0);
        s.invalidate(new int[] {0});
        s.next(4);
        s.replan(d, 2, 1.0);
        assertArrayEquals(new int[] {0, 1}, blockIndices(s.next(2), 0),
                "re-planning from the invalidation point does not count the forgotten blocks again");
        s.replan(d, 3, 1.0);
        assertArrayEquals(new int[] {1, 2}, blockIndices(s.next(2), 0),
                "re-planning after it keeps the new blocks planned before the re-plan point");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void invalidate_leavesOtherRequestsAlone(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = scheduler(factory);
        Distribution d = pointOnZero();
        s.replan(d, 0, 1.0);
        s.next(4);
        s.replan(d, 4, 1.0);
        s.invalidate(new int[] {1});
        assertArrayEquals(new int[] {4, 5}, blockIndices(s.next(2), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void invalidate_ofSeveralIdsInAnyOrder_restartsEachOfThem(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = scheduler(factory);
        Distribution d = Distribution.uniform(3, HORIZONS);
        s.replan(d, 0, 1.0);
        s.next(12);
        s.replan(d, 12, 1.0);
        s.invalidate(new int[] {2, 0});
        ScheduleChunk c = s.next(9);
        for (int id : new int[] {0, 2}) {
            int[] got = blockIndices(c, id);
            for (int k = 0; k < got.length; k++) {
                assertEquals(k, got[k], "request " + id + " starts again at block 0");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.khameleon.core.scheduler.TestInstances#implementations")
    void invalidate_rejectsAnIdOutOfRange(String name, Function<SchedulerConfig, Scheduler> factory) {
        Scheduler s = scheduler(factory);
        assertThrows(IllegalArgumentException.class, () -> s.invalidate(new int[] {0, 3}));
        assertThrows(IllegalArgumentException.class, () -> s.invalidate(new int[] {-1}));
    }

    private static void assertArrayEquals(int[] expected, int[] actual) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual, java.util.Arrays.toString(actual));
    }

    private static void assertArrayEquals(int[] expected, int[] actual, String message) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual, message + ": "
                + java.util.Arrays.toString(actual));
    }
}
