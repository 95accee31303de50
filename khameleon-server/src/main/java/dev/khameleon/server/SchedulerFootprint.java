package dev.khameleon.server;

/**
 * What one session's scheduler holds on the heap, estimated from what a hello tells before the
 * scheduler exists, so the server can refuse a session its memory cannot hold instead of running
 * out of it. Core's greedy scheduler keeps arrays of the application's {@code n} requests only up to
 * {@link #DENSE_REQUEST_LIMIT} requests; above that, hash tables of the requests it has touched,
 * whose size is bounded by its {@code C} cache blocks. It also has per-slot state for the {@code C}
 * blocks. {@code khameleon-loadtest footprint} measures it as built and after one batch
 * (docs/benchmarks.md, "Scheduler memory per session", which also gives the peak over many batches);
 * the constants round the largest measurements up.
 * Block counts that differ between requests, or that are upper bounds, add tables of {@code n} to
 * the scheduler's configuration, which the server builds per session: the estimate charges them
 * whatever the request count.
 */
final class SchedulerFootprint {
    /**
     * The largest request count for which core's greedy scheduler keeps arrays of {@code n}
     * ({@code IdTable.DENSE_LIMIT} in {@code dev.khameleon.core.scheduler}).
     */
    static final int DENSE_REQUEST_LIMIT = 1 << 16;
    /** Heap per request of the application up to {@link #DENSE_REQUEST_LIMIT}, bytes (measured: 16; 20 with a backend
     * concurrency limit). */
    static final long BYTES_PER_REQUEST = 22;
    /**
     * Heap per cache block, bytes: most of it the tables of touched requests, which grow over some
     * batches before the scheduler restarts its permutation (the most over 200 batches at a million
     * requests, {@code footprint --batches 200}: 365 at {@code C} = 500, 314 at 5,000).
     */
    static final long BYTES_PER_CACHE_BLOCK = 400;
    /**
     * Heap per request of the tables of an application whose block counts differ between requests
     * or are upper bounds, bytes: the classes, the layout and its inverse (12), the lazy index (4).
     */
    static final long BYTES_PER_REQUEST_WITH_COUNT_TABLES = 16;
    /** What a scheduler holds whatever its size, bytes. */
    static final long FIXED_BYTES = 16 * 1024;

    private SchedulerFootprint() {
    }

    /**
     * The heap a session of {@code cacheBlocks} holds on an application of {@code requestCount}
     * requests whose block counts are all the same and exact.
     */
    static long estimate(int requestCount, int cacheBlocks) {
        return estimate(requestCount, cacheBlocks, false);
    }

    /**
     * As {@link #estimate(int, int)}; {@code countTables}: the application's block counts differ
     * between requests or some are upper bounds.
     */
    static long estimate(int requestCount, int cacheBlocks, boolean countTables) {
        long perRequest = requestCount <= DENSE_REQUEST_LIMIT ? BYTES_PER_REQUEST
                : countTables ? BYTES_PER_REQUEST_WITH_COUNT_TABLES : 0;
        return perRequest * requestCount + BYTES_PER_CACHE_BLOCK * cacheBlocks + FIXED_BYTES;
    }
}
