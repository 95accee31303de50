package dev.khameleon.server.spi;

import dev.khameleon.core.spi.Scheduler;

/**
 * Makes the scheduler of one session when its hello has been accepted. The default is the greedy
 * scheduler of {@code dev.khameleon.core.scheduler.Schedulers}.
 *
 * <p>Called on a scheduler thread (never on an event loop), once per session; the scheduler it
 * returns is then driven by one thread at a time. An exception closes that session with
 * {@code internal_error} and is logged; other sessions are unaffected.
 */
@FunctionalInterface
public interface SchedulerFactory {

    /** Creates a scheduler for a session described by {@code context}. */
    Scheduler create(SchedulerContext context);
}
