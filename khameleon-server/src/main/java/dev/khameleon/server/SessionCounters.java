package dev.khameleon.server;

/**
 * One session's counters, each also added to the server-wide totals where there is one.
 *
 * <p><b>Threading.</b> Written by the session's event loop only; every field is volatile so that
 * {@link #snapshot} may run on any thread, each value current but not necessarily consistent with
 * the others.
 */
final class SessionCounters {
    private final ServerRuntime server;

    private volatile int cacheBlocks;
    private volatile long blocksPushed;
    private volatile long bytesPushed;
    private volatile long blocksSkipped;
    private volatile long replans;
    private volatile long chunksPlanned;
    private volatile long schedulingNanosTotal;
    private volatile long schedulingNanosMax;
    private volatile long statesReceived;
    private volatile long requestsReceived;
    private volatile long queuedBytes;
    private volatile long maxQueuedBytes;
    private volatile long replanDelayNanosTotal;
    private volatile long replanDelayCount;
    private volatile long maxReplanLagBlocks;
    private volatile double bandwidthEstimate;
    private volatile double pacingRate;

    SessionCounters(ServerRuntime server) {
        this.server = server;
    }

    /** The hello announced a ring of {@code blocks}. */
    void cacheBlocks(int blocks) {
        cacheBlocks = blocks;
    }

    /** {@code C} from the hello, 0 before it. */
    int cacheBlocks() {
        return cacheBlocks;
    }

    /** A block frame of {@code frameBytes} was written. */
    void blockWritten(int frameBytes) {
        blocksPushed++;
        bytesPushed += frameBytes;
        server.bytesPushed.add(frameBytes);
        server.blocksPushed.increment();
    }

    /** A planned block was skipped because its fetch failed. */
    void blockSkipped() {
        blocksSkipped++;
        server.blocksSkipped.increment();
    }

    /** A scheduler job took {@code nanos}. */
    void chunkPlanned(long nanos) {
        chunksPlanned++;
        server.chunksPlanned.increment();
        schedulingNanosTotal += nanos;
        server.schedulingNanos.add(nanos);
        if (nanos > schedulingNanosMax) {
            schedulingNanosMax = nanos;
        }
    }

    /**
     * A job re-planned; if a state or scope caused it, {@code lagBlocks} is how many blocks the
     * sender wrote from the old plan after it arrived (-1 otherwise).
     */
    void replanned(long lagBlocks) {
        replans++;
        server.replans.increment();
        if (lagBlocks > maxReplanLagBlocks) {
            maxReplanLagBlocks = lagBlocks;
        }
    }

    /** The first block of a state's plan went out {@code nanos} after the state arrived. */
    void replanDelay(long nanos) {
        replanDelayNanosTotal += nanos;
        replanDelayCount++;
    }

    void stateReceived() {
        statesReceived++;
    }

    void requestReceived() {
        requestsReceived++;
    }

    /** The channel holds {@code bytes} not yet handed to the socket. */
    void queuedBytes(long bytes) {
        queuedBytes = bytes;
        if (bytes > maxQueuedBytes) {
            maxQueuedBytes = bytes;
        }
    }

    /** Bytes last seen queued in the channel. */
    long queuedBytes() {
        return queuedBytes;
    }

    /** The bandwidth estimate and the pace derived from it changed. */
    void rates(double estimateBytesPerSecond, double paceBytesPerSecond) {
        bandwidthEstimate = estimateBytesPerSecond;
        pacingRate = paceBytesPerSecond;
    }

    /** The pace the sender runs at, bytes per second. */
    double pacingRate() {
        return pacingRate;
    }

    long blocksPushed() {
        return blocksPushed;
    }

    long bytesPushed() {
        return bytesPushed;
    }

    long blocksSkipped() {
        return blocksSkipped;
    }

    long replans() {
        return replans;
    }

    /** The counters now, for a session with {@code nextSeq} as its sender position. Any thread. */
    SessionMetrics snapshot(String id, String application, String remoteAddress, long nextSeq) {
        long chunks = chunksPlanned;
        long delays = replanDelayCount;
        return new SessionMetrics(id, application, remoteAddress, cacheBlocks, nextSeq, bytesPushed, blocksPushed,
                blocksSkipped, replans, chunks, chunks == 0 ? 0 : schedulingNanosTotal / 1e3 / chunks,
                schedulingNanosMax / 1e3, bandwidthEstimate, queuedBytes, maxQueuedBytes, statesReceived,
                requestsReceived, delays == 0 ? 0 : replanDelayNanosTotal / 1e3 / delays, maxReplanLagBlocks);
    }
}
