package dev.khameleon.server;

import java.util.Map;

/**
 * A snapshot of a server's counters since it started, over all sessions, open and closed.
 *
 * @param activeSessions          sessions open now (hello accepted, not yet closed)
 * @param sessionsOpened          sessions whose hello was accepted since start
 * @param sessionsRejected        valid hellos refused because the session cap or the cache-block
 *                                budget was reached
 * @param handshakesRefused       connections refused before a WebSocket existed (per-address
 *                                limits, unknown path, disallowed origin, not an upgrade,
 *                                unsupported WebSocket version, handshake timeout)
 * @param bytesPushed             block-frame bytes written (header and payload)
 * @param blocksPushed            block frames written
 * @param blocksSkipped           planned blocks skipped because their fetch failed or timed out
 * @param replans                 re-plans (new distributions and recoveries from skipped blocks)
 * @param chunksPlanned           scheduler invocations (chunks planned)
 * @param meanSchedulingMicros    mean scheduler time per chunk (decoding included), microseconds
 * @param errorsByCode            sessions closed with each protocol error code, by wire name
 * @param sessionsResumed         sessions opened by a hello whose resume was accepted (also counted
 *                                in {@code sessionsOpened})
 * @param resumesRefused          hellos asking to resume that got a fresh session instead
 */
public record ServerMetrics(int activeSessions, long sessionsOpened, long sessionsRejected, long handshakesRefused,
                            long bytesPushed, long blocksPushed, long blocksSkipped, long replans, long chunksPlanned,
                            double meanSchedulingMicros, Map<String, Long> errorsByCode, long sessionsResumed,
                            long resumesRefused) {
    /** Copies the map. */
    public ServerMetrics {
        errorsByCode = Map.copyOf(errorsByCode);
    }

    /** A snapshot without resume counts (both 0). */
    public ServerMetrics(int activeSessions, long sessionsOpened, long sessionsRejected, long handshakesRefused,
                         long bytesPushed, long blocksPushed, long blocksSkipped, long replans, long chunksPlanned,
                         double meanSchedulingMicros, Map<String, Long> errorsByCode) {
        this(activeSessions, sessionsOpened, sessionsRejected, handshakesRefused, bytesPushed, blocksPushed,
                blocksSkipped, replans, chunksPlanned, meanSchedulingMicros, errorsByCode, 0, 0);
    }
}
