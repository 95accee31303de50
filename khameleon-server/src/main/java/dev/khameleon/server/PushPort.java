package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.server.SessionScheduler.Job;

import java.util.List;

/**
 * What a {@link PushController} has done on its behalf: the session's connection, executors and timers.
 * Every method is called on the controller's thread and must not block.
 */
interface PushPort extends SlotFetcher.Host {
    /** {@link #withdraw()}: the job had started, ended or was never queued. */
    long NOT_WITHDRAWN = -2;
    /** {@link #withdraw()}: withdrawn, and it was not a re-plan (it keeps no queue turn). */
    long WITHDRAWN = -1;

    /**
     * Queues {@code job} on the scheduler; its result comes back through
     * {@link PushController#onResult}, on the controller's thread.
     *
     * @param replan whether it re-plans (re-plans run before jobs that only plan ahead)
     * @param order  the queue turn to keep, from {@link #withdraw()}; -1 for a new one
     * @return false if the scheduler no longer runs (the server is shutting down)
     */
    boolean submit(Job job, boolean replan, long order);

    /**
     * Withdraws the job last submitted if it has not started.
     *
     * @return its queue turn if it was a re-plan, {@link #WITHDRAWN} if it was not, or
     *     {@link #NOT_WITHDRAWN} if it has started or ended
     */
    long withdraw();

    /** Whether a block frame written now goes out without piling up beyond the outbound window. */
    boolean isWritable();

    /** Writes block frame {@code seq}; {@link #flush()} sends what was written. */
    void write(long seq, Block block, int generation);

    /** Writes and flushes control messages, already encoded (a scope's {@code rebind} messages). */
    void writeControl(List<String> messages);

    /** Sends the frames written since the last flush. */
    void flush();

    /** The head block is ready but the port is not writable: the sender waits for writability. */
    void blocked();

    /**
     * Calls {@link PushController#onWake()} at {@code atNanos}, unless a wake is already due by
     * then; at most one wake is pending.
     */
    void wakeAt(long atNanos);

    /** Closes the session with {@code code}; the port calls {@link PushController#stop()}. */
    void close(ErrorCode code, String message);
}
