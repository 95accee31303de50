package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;

import java.util.List;

/**
 * A scheduler for tests: delegates and records every re-plan that is not at least the highest
 * slot ever planned minus {@code C} (the built-in schedulers' guarantee), and every chunk that
 * ends more than {@code C} slots past the latest re-plan floor the session could still ask for.
 */
class RecordingScheduler implements Scheduler {
    final Scheduler delegate;
    final List<String> violations;
    long highWater;

    RecordingScheduler(Scheduler delegate, List<String> violations) {
        this.delegate = delegate;
        this.violations = violations;
    }

    @Override
    public void replan(Distribution distribution, long fromSeq, double slotMillis) {
        if (fromSeq < highWater - delegate.cacheBlocks() || fromSeq > delegate.nextSeq()) {
            violations.add("replan from " + fromSeq + " with " + highWater + " planned, nextSeq "
                    + delegate.nextSeq() + ", C " + delegate.cacheBlocks());
        }
        delegate.replan(distribution, fromSeq, slotMillis);
    }

    @Override
    public ScheduleChunk next(int maxBlocks) {
        ScheduleChunk c = delegate.next(maxBlocks);
        highWater = Math.max(highWater, c.endSeq());
        return c;
    }

    @Override
    public long nextSeq() {
        return delegate.nextSeq();
    }

    @Override
    public int cacheBlocks() {
        return delegate.cacheBlocks();
    }
}
