package dev.khameleon.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which requests of one application are being fetched from its block source right now, across
 * all sessions: what the scheduler's backend-concurrency limit asks about, and what keeps the
 * fetches themselves within that limit. Thread-safe: updates take a short lock (no I/O under it),
 * reads take none.
 */
final class BackendTracker {
    private final ConcurrentHashMap<Integer, AtomicInteger> fetching = new ConcurrentHashMap<>();
    private final AtomicInteger distinct = new AtomicInteger();

    /**
     * Starts a fetch of some block of {@code requestId} if that keeps the number of distinct
     * requests being fetched within {@code limit} (0 for no limit): always when the request is
     * already being fetched. Returns false, changing nothing, otherwise.
     */
    synchronized boolean tryBegin(int requestId, int limit) {
        if (limit > 0 && distinct.get() >= limit && !fetching.containsKey(requestId)) {
            return false;
        }
        begin(requestId);
        return true;
    }

    /** A fetch of some block of {@code requestId} starts. */
    synchronized void begin(int requestId) {
        fetching.compute(requestId, (id, c) -> {
            if (c == null) {
                distinct.incrementAndGet();
                return new AtomicInteger(1);
            }
            c.incrementAndGet();
            return c;
        });
    }

    /** A fetch begun with {@link #begin} or {@link #tryBegin} has ended, however. */
    synchronized void end(int requestId) {
        fetching.computeIfPresent(requestId, (id, c) -> {
            if (c.decrementAndGet() == 0) {
                distinct.decrementAndGet();
                return null;
            }
            return c;
        });
    }

    /** The number of distinct requests being fetched. */
    int inFlight() {
        return distinct.get();
    }

    /** Whether some block of {@code requestId} is being fetched. */
    boolean isFetching(int requestId) {
        return fetching.containsKey(requestId);
    }
}
