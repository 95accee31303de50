package dev.khameleon.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which requests of one application are being fetched from its block source right now, across
 * all sessions: what the scheduler's backend-concurrency limit asks about. Thread-safe and
 * non-blocking.
 */
final class BackendTracker {
    private final ConcurrentHashMap<Integer, AtomicInteger> fetching = new ConcurrentHashMap<>();
    private final AtomicInteger distinct = new AtomicInteger();

    /** A fetch of some block of {@code requestId} starts. */
    void begin(int requestId) {
        fetching.compute(requestId, (id, c) -> {
            if (c == null) {
                distinct.incrementAndGet();
                return new AtomicInteger(1);
            }
            c.incrementAndGet();
            return c;
        });
    }

    /** A fetch begun with {@link #begin} has ended, however. */
    void end(int requestId) {
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
