package dev.khameleon.server.spi;

import dev.khameleon.core.spi.Scheduler;

/**
 * Makes the scheduler of one session when its hello has been accepted. The default is the greedy
 * scheduler of {@code dev.khameleon.core.scheduler.Schedulers}.
 *
 * <p>Called on a scheduler thread (never on an event loop), once per session; the scheduler it
 * returns is then driven by one thread at a time. An exception closes that session with
 * {@code internal_error} and is logged; other sessions are unaffected.
 *
 * <p><b>What a session asks of the scheduler.</b> It never lets planning run more than {@code C}
 * slots past its sender (it asks {@code next} for fewer blocks, or waits), and it re-plans only
 * from slots not yet written. So every {@code fromSeq} it passes to {@code replan} is at least the
 * highest {@code nextSeq()} the scheduler ever reached minus {@code C}. A failed fetch may re-plan
 * from below the previous re-plan's {@code fromSeq} (the blocks of the re-plan margin); the
 * built-in schedulers accept that, and a custom one must too. If {@code replan} or {@code next}
 * throws anyway, only that session closes, with {@code internal_error}.
 */
@FunctionalInterface
public interface SchedulerFactory {

    /** Creates a scheduler for a session described by {@code context}. */
    Scheduler create(SchedulerContext context);
}
