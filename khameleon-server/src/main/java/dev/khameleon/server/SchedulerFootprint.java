package dev.khameleon.server;

/**
 * What one session's scheduler holds on the heap, estimated from what a hello tells before the
 * scheduler exists, so the server can refuse a session its memory cannot hold instead of running
 * out of it. Core's greedy scheduler keeps a few arrays of the application's {@code n} requests and
 * per-slot state for its {@code C} cache blocks; {@code khameleon-loadtest footprint} measures it
 * (docs/benchmarks.md): 21 bytes per request and about 90 per cache block after a full batch, so
 * the estimate rounds both up.
 */
final class SchedulerFootprint {
    /** Heap per request of the application, bytes (measured: 21). */
    static final long BYTES_PER_REQUEST = 22;
    /** Heap per cache block once a batch is planned, bytes (measured: about 90). */
    static final long BYTES_PER_CACHE_BLOCK = 120;
    /** What a scheduler holds whatever its size, bytes. */
    static final long FIXED_BYTES = 16 * 1024;

    private SchedulerFootprint() {
    }

    /** The heap a session of {@code cacheBlocks} on an application of {@code requestCount} requests holds. */
    static long estimate(int requestCount, int cacheBlocks) {
        return BYTES_PER_REQUEST * requestCount + BYTES_PER_CACHE_BLOCK * cacheBlocks + FIXED_BYTES;
    }
}
