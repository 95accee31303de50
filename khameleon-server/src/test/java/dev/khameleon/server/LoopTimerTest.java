package dev.khameleon.server;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One pending run at a time, the earliest deadline wins, on an event loop with frozen time. */
class LoopTimerTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<Long> runs = new ArrayList<>();
    private final LoopTimer timer = new LoopTimer(channel.eventLoop(), clock::get, () -> runs.add(clock.get()));

    LoopTimerTest() {
        channel.freezeTime();
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private void advance(long nanos) {
        clock.addAndGet(nanos);
        channel.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void armIn_runsOnceAtTheDeadline() {
        timer.armIn(100);
        assertTrue(timer.isArmed());
        assertEquals(1_100, timer.deadlineNanos());
        advance(99);
        assertEquals(List.of(), runs);
        advance(1);
        assertEquals(List.of(1_100L), runs);
        assertFalse(timer.isArmed());
        advance(1_000);
        assertEquals(1, runs.size(), "one run per arming");
    }

    @Test
    void armAt_keepsTheEarlierDeadline() {
        timer.armIn(100);
        timer.armIn(500);
        assertEquals(1_100, timer.deadlineNanos(), "a later deadline does not postpone the run");
        timer.armAt(1_050);
        assertEquals(1_050, timer.deadlineNanos(), "an earlier one brings it forward");
        advance(1_000);
        assertEquals(List.of(2_000L), runs, "and it runs once");
    }

    @Test
    void cancel_stopsThePendingRun() {
        timer.armIn(10);
        timer.cancel();
        assertFalse(timer.isArmed());
        advance(100);
        assertEquals(List.of(), runs);
    }

    @Test
    void task_mayArmTheTimerAgain() {
        LoopTimer[] self = new LoopTimer[1];
        self[0] = new LoopTimer(channel.eventLoop(), clock::get, () -> {
            runs.add(clock.get());
            if (runs.size() < 3) {
                self[0].armIn(10);
            }
        });
        self[0].armIn(10);
        for (int k = 0; k < 5; k++) {
            advance(10);
        }
        assertEquals(List.of(1_010L, 1_020L, 1_030L), runs);
    }

    @Test
    void pastDeadline_runsAtOnce() {
        timer.armAt(0);
        channel.runScheduledPendingTasks();
        assertEquals(1, runs.size());
    }
}
