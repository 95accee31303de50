package dev.khameleon.simulator;

/**
 * One system under test (a "policy" in Caffeine's simulator): it receives the user's pointer
 * samples and requests on the virtual clock, moves bytes over the simulated network, and tells
 * the {@link Recorder} when data becomes usable.
 *
 * <p>Instances are single-use (one run) and single-threaded: every method is called from the
 * {@link EventLoop}. Create them through {@link SystemRegistry}.
 */
public interface SimSystem {

    /** Called once at virtual time 0, before any sample. */
    void start(SimContext context);

    /** A pointer sample at the current virtual time, in screen pixels. */
    default void onPointer(double x, double y) {
    }

    /**
     * The pointer entered the cell of {@code requestId}; the request has been registered with
     * the recorder as {@code seq}. A system with the data at hand calls
     * {@link Recorder#available} before returning (a hit).
     */
    void onRequest(int seq, int requestId);

    /**
     * How many leading blocks of {@code requestId} the client's cache holds usable now (the
     * answer a request registered now would get at once), 0 for none. Must not change the
     * cache (no LRU touch); the {@link Recorder} asks it for stale hover and the visit metrics.
     */
    int answerBlocks(int requestId);
}
