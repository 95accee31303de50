package dev.khameleon.loadtest.fleet;

/**
 * A node's counters at one moment, as {@link FleetNode} reports them on one line; the difference of
 * two gives what the node did in between ({@link #minus}).
 *
 * @param nanoTime           the node's {@code System.nanoTime()} when read
 * @param cpuNanos           CPU time of the whole node process (every thread, GC included)
 * @param bytesPushed        block-frame bytes the server wrote (its egress)
 * @param blocksPushed       block frames the server wrote
 * @param blockReads         blocks the server read from the tier stack
 * @param memoryReads        of those, blocks answered from this node's memory tier
 * @param redisResponses     responses loaded from the shared Redis tier
 * @param originComputations responses this node computed at the origin
 * @param sessions           sessions open when read (not a difference in {@link #minus})
 * @param waitTimeouts       waits for another node's computation that ran out
 * @param redisFailures      Redis commands that failed or timed out
 * @param objectStoreResponses responses loaded from the object store (0 without one)
 * @param repeatable         of the computations, those made without the shared lock or whose value
 *                           did not reach Redis, which another node may have made too or make again
 * @param pending            loads and shared-tier writes in flight when read (not a difference in
 *                           {@link #minus}): zero once every computed value has reached the tiers
 */
record NodeCounters(long nanoTime, long cpuNanos, long bytesPushed, long blocksPushed, long blockReads,
                    long memoryReads, long redisResponses, long originComputations, long sessions,
                    long waitTimeouts, long redisFailures, long objectStoreResponses, long repeatable,
                    long pending) {
    private static final String PREFIX = "stats";

    /** The line {@link #parse} reads back. */
    String format() {
        return PREFIX + " " + nanoTime + " " + cpuNanos + " " + bytesPushed + " " + blocksPushed + " " + blockReads
                + " " + memoryReads + " " + redisResponses + " " + originComputations + " " + sessions + " "
                + waitTimeouts + " " + redisFailures + " " + objectStoreResponses + " " + repeatable + " " + pending;
    }

    /**
     * Reads a {@link #format} line.
     *
     * @throws IllegalArgumentException if the line is not one
     */
    static NodeCounters parse(String line) {
        String[] f = line.trim().split(" ");
        if (f.length != 15 || !f[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not a node stats line: '" + line + "'");
        }
        long[] v = new long[14];
        try {
            for (int i = 0; i < v.length; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a node stats line: '" + line + "'", e);
        }
        return new NodeCounters(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
                v[13]);
    }

    /** What happened between {@code earlier} and this reading; {@code sessions} and {@code pending} stay this reading's. */
    NodeCounters minus(NodeCounters earlier) {
        return new NodeCounters(nanoTime - earlier.nanoTime, cpuNanos - earlier.cpuNanos,
                bytesPushed - earlier.bytesPushed, blocksPushed - earlier.blocksPushed,
                blockReads - earlier.blockReads, memoryReads - earlier.memoryReads,
                redisResponses - earlier.redisResponses, originComputations - earlier.originComputations, sessions,
                waitTimeouts - earlier.waitTimeouts, redisFailures - earlier.redisFailures,
                objectStoreResponses - earlier.objectStoreResponses, repeatable - earlier.repeatable, pending);
    }
}
