package dev.khameleon.server;

/**
 * A snapshot of one session's counters. Read from other threads than the session's, so the
 * fields are each current but not necessarily consistent with each other.
 *
 * @param sessionId              the session id, as in the logs and the welcome
 * @param application            the application's name
 * @param remoteAddress          the client's address
 * @param cacheBlocks            {@code C} from the hello (0 before it)
 * @param nextSeq                the sequence number the next block frame will carry (= blocks written)
 * @param bytesPushed            block-frame bytes written
 * @param blocksPushed           block frames written
 * @param blocksSkipped          planned blocks skipped because their fetch failed or timed out
 * @param replans                re-plans
 * @param chunksPlanned          scheduler invocations
 * @param meanSchedulingMicros   mean scheduler time per chunk (decoding included), microseconds
 * @param maxSchedulingMicros    the longest scheduler invocation, microseconds
 * @param bandwidthBytesPerSecond the bandwidth estimate
 * @param queuedBytes            bytes written but not yet handed to the socket
 * @param maxQueuedBytes         the most {@code queuedBytes} has been right after a write
 * @param statesReceived         prediction states received
 * @param requestsReceived       explicit request events received
 * @param meanReplanDelayMicros  mean time from a state's arrival to the first block written from
 *                               the plan it caused, microseconds (0 before any)
 * @param maxReplanLagBlocks     the most blocks written from an old plan after a state arrived,
 *                               before the first block planned with it
 */
public record SessionMetrics(String sessionId, String application, String remoteAddress, int cacheBlocks,
                             long nextSeq, long bytesPushed, long blocksPushed, long blocksSkipped, long replans,
                             long chunksPlanned, double meanSchedulingMicros, double maxSchedulingMicros,
                             double bandwidthBytesPerSecond, long queuedBytes, long maxQueuedBytes,
                             long statesReceived, long requestsReceived, double meanReplanDelayMicros,
                             long maxReplanLagBlocks) {
}
