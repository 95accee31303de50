package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.server.spi.SchedulerContext;
import dev.khameleon.server.spi.SchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application's {@link SchedulerFactory} as its sessions call it, and the schedulers it makes:
 * anything they throw, {@code Error}s included, or a missing scheduler or chunk, is a
 * {@link ProtocolException} {@code internal_error} that closes only the session whose job it was,
 * while the scheduler thread lives on. Made once per application, at build time; thread-safe if
 * the factory is (each scheduler is confined to one session's jobs).
 */
final class GuardedSchedulerFactory {
    private static final Logger log = LoggerFactory.getLogger(GuardedSchedulerFactory.class);

    private final SchedulerFactory factory;
    private final String application;

    GuardedSchedulerFactory(SchedulerFactory factory, String application) {
        this.factory = factory;
        this.application = application;
    }

    /**
     * Makes a session's scheduler.
     *
     * @throws ProtocolException {@code internal_error} if the factory throws or returns null
     */
    Scheduler create(SchedulerContext context) {
        Scheduler s;
        try {
            s = factory.create(context);
        } catch (Throwable e) {
            log.debug("{}: creating the scheduler failed", application, e);
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "creating the scheduler failed: " + e);
        }
        if (s == null) {
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the scheduler factory returned null");
        }
        return new Guarded(s);
    }

    private ProtocolException failed(Throwable e) {
        log.debug("{}: the scheduler failed", application, e);
        return new ProtocolException(ErrorCode.INTERNAL_ERROR, "scheduler failed: " + e);
    }

    /** A scheduler whose every call throws only {@code internal_error}. */
    private final class Guarded implements Scheduler {
        private final Scheduler scheduler;

        Guarded(Scheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public void replan(Distribution distribution, long fromSeq, double slotMillis) {
            try {
                scheduler.replan(distribution, fromSeq, slotMillis);
            } catch (Throwable e) {
                throw failed(e);
            }
        }

        @Override
        public ScheduleChunk next(int maxBlocks) {
            ScheduleChunk c;
            try {
                c = scheduler.next(maxBlocks);
            } catch (Throwable e) {
                throw failed(e);
            }
            if (c == null) {
                throw failed(new NullPointerException("next(" + maxBlocks + ") returned null"));
            }
            return c;
        }

        @Override
        public void invalidate(int[] requestIds) {
            try {
                scheduler.invalidate(requestIds);
            } catch (Throwable e) {
                throw failed(e);
            }
        }

        @Override
        public boolean resume(long nextSeq, int[] requestIds, int[] blockIndexes) {
            try {
                return scheduler.resume(nextSeq, requestIds, blockIndexes);
            } catch (IllegalArgumentException e) {
                // The client's manifest, not the scheduler, is at fault: the caller refuses the resume.
                throw e;
            } catch (Throwable e) {
                throw failed(e);
            }
        }

        @Override
        public void blockCountKnown(int requestId, int blockCount) {
            try {
                scheduler.blockCountKnown(requestId, blockCount);
            } catch (Throwable e) {
                throw failed(e);
            }
        }

        @Override
        public long nextSeq() {
            try {
                return scheduler.nextSeq();
            } catch (Throwable e) {
                throw failed(e);
            }
        }

        @Override
        public int cacheBlocks() {
            try {
                return scheduler.cacheBlocks();
            } catch (Throwable e) {
                throw failed(e);
            }
        }
    }
}
