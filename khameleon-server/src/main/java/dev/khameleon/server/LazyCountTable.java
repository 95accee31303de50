package dev.khameleon.server;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One session's exact block counts of the requests whose count the block source tells lazily
 * ({@link dev.khameleon.core.spi.BlockSource#isBlockCountBound}): learned from the first block
 * fetched of each, checked against every later one, and queued to be told to the scheduler with its
 * next job. A block whose count exceeds the request's bound, or differs from the count learned
 * before, is refused and drops the request for the session (count 0): the client never sees two
 * counts for one request, and the scheduler stops planning it.
 *
 * <p><b>Threading.</b> Confined to the session's event loop.
 */
final class LazyCountTable {
    /** The exact count learned for each request fetched so far; 0 for a dropped request. */
    private final Map<Integer, Integer> known = new HashMap<>();
    /** Counts learned since the last job, as {@link #told} pairs. */
    private long[] pending = new long[8];
    private int pendingCount;
    /** Whether a count was learned that planned slots may contradict. */
    private boolean capsPending;

    /** A {@code (requestId, count)} pair as a job carries it. */
    static long told(int requestId, int count) {
        return ((long) requestId << 32) | (count & 0xFFFF_FFFFL);
    }

    static int requestId(long told) {
        return (int) (told >>> 32);
    }

    static int count(long told) {
        return (int) told;
    }

    /** The exact count of {@code requestId} if learned (0: dropped), else -1. */
    int known(int requestId) {
        Integer k = known.get(requestId);
        return k == null ? -1 : k;
    }

    /** Whether block {@code blockIndex} of {@code requestId} is known not to exist (or the request was dropped). */
    boolean beyondCount(int requestId, int blockIndex) {
        int k = known(requestId);
        return k >= 0 && blockIndex >= k;
    }

    /**
     * Checks the count {@code count} a fetched block of {@code requestId} carries against the bound
     * and what was learned, learning it if it is the first.
     *
     * @return null if the block may be sent; else why not (the request is then dropped)
     */
    String accept(int requestId, int count, int bound) {
        int k = known(requestId);
        if (k == count) {
            return null;
        }
        String problem;
        if (k == 0) {
            return "request " + requestId + " was dropped for a bad block count";
        } else if (k > 0) {
            problem = "the block source changed the block count of request " + requestId + " from " + k + " to "
                    + count + "; the request is no longer pushed in this session";
        } else if (count > bound) {
            problem = "the block source returned block count " + count + " for request " + requestId
                    + ", more than its bound " + bound + "; the request is no longer pushed in this session";
        } else {
            learn(requestId, count);
            return null;
        }
        learn(requestId, 0);
        return problem;
    }

    private void learn(int requestId, int count) {
        known.put(requestId, count);
        add(told(requestId, count));
        capsPending = true;
    }

    private void add(long told) {
        if (pendingCount == pending.length) {
            pending = Arrays.copyOf(pending, 2 * pendingCount);
        }
        pending[pendingCount++] = told;
    }

    /** Whether counts were learned since {@link #takeCapsPending()} last returned true. */
    boolean takeCapsPending() {
        boolean c = capsPending;
        capsPending = false;
        return c;
    }

    /** The counts learned since the last call, for the next job, in the order learned. */
    long[] drainTold() {
        long[] out = Arrays.copyOf(pending, pendingCount);
        pendingCount = 0;
        return out;
    }

    /** Puts back the counts of a job that was withdrawn before it ran, ahead of any learned since. */
    void restore(long[] told) {
        if (told.length == 0) {
            return;
        }
        long[] later = drainTold();
        for (long t : told) {
            add(t);
        }
        for (long t : later) {
            add(t);
        }
    }
}
