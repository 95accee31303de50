package dev.khameleon.examples.crossfilter;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The cancel switch of one backend query: made by the caller, handed to the query
 * ({@link TileBackend#slice(TileKey, View, QueryCancel)}), and thrown from any thread with
 * {@link #cancel()}, which never blocks. A query cancelled before it starts never runs; one
 * cancelled while it runs is stopped by the backend's own means (JDBC: {@code Statement.cancel()}),
 * and either way the query's call fails with {@link #cancelled}'s exception. One switch per query.
 * Thread-safe.
 *
 * <p>The backend side: {@link #start} before running the query, naming how to stop it;
 * {@link #end} once it returned, so that a later {@code cancel()} touches nothing.
 */
public final class QueryCancel {
    /** The SQLState of a cancelled query's exception: {@code query_canceled}, as PostgreSQL reports it. */
    public static final String SQL_STATE = "57014";

    /** The state once cancelled. */
    private static final Object CANCELLED = new Object();

    /** null: not running; a Runnable: running, stopped by it; {@link #CANCELLED}. */
    private final AtomicReference<Object> state = new AtomicReference<>();

    /** A switch not yet thrown. */
    public QueryCancel() {
    }

    /**
     * Cancels the query: if it has not started it never will, if it runs its stopper runs now, on
     * this thread. Never blocks (a stopper must not); idempotent.
     *
     * @return whether this call cancelled it (false if it was cancelled already)
     */
    public boolean cancel() {
        Object before = state.getAndSet(CANCELLED);
        if (before instanceof Runnable stop) {
            stop.run();
        }
        return before != CANCELLED;
    }

    /** Whether {@link #cancel()} was called. */
    public boolean isCancelled() {
        return state.get() == CANCELLED;
    }

    /** Whether a backend runs the query now: {@link #start}ed, not {@link #end}ed and not cancelled. */
    public boolean isRunning() {
        return state.get() instanceof Runnable;
    }

    /**
     * For the backend, just before it runs the query: from now until {@link #end}, {@link #cancel()}
     * runs {@code stop}, which must stop the query without blocking (hand slow work to another
     * thread).
     *
     * @return false if the query was cancelled already: the backend must not run it
     * @throws IllegalStateException if the query was started already
     */
    public boolean start(Runnable stop) {
        if (state.compareAndSet(null, stop)) {
            return true;
        }
        if (isCancelled()) {
            return false;
        }
        throw new IllegalStateException("a query cancel switch serves one query, and this one is running");
    }

    /** For the backend, once the query returned or failed: a later {@link #cancel()} runs no stopper. */
    public void end() {
        Object s = state.get();
        if (s instanceof Runnable) {
            state.compareAndSet(s, null); // fails only if cancel() won: then it is cancelled, as it should stay
        }
    }

    /** The exception a cancelled query's call throws: SQLState {@value #SQL_STATE}, naming {@code what}. */
    public static SQLException cancelled(String what, Throwable cause) {
        return new SQLException("query cancelled: " + what, SQL_STATE, cause);
    }

    @Override
    public String toString() {
        Object s = state.get();
        return "QueryCancel[" + (s == CANCELLED ? "cancelled" : s == null ? "idle" : "running") + "]";
    }
}
