package dev.khameleon.server;

import io.netty.handler.ssl.SslContext;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/** The validated settings of a {@link KhameleonServer}, as the builder collected them. */
record ServerConfig(
        String host,
        int port,
        Map<String, Application> applicationsByPath,
        int maxSessions,
        Set<String> allowedOrigins,
        boolean allowAnyOrigin,
        Set<String> allowedHosts,
        int maxConnectionsPerAddress,
        int maxHandshakesPerAddress,
        long helloTimeoutMillis,
        int maxFramePayloadBytes,
        long handshakeTimeoutMillis,
        long readIdleTimeoutMillis,
        long writeStallTimeoutMillis,
        int maxPingsPerSecond,
        int maxInboundBytesPerSecond,
        int writeBufferLowBytes,
        int writeBufferHighBytes,
        int sendBufferBytes,
        int notSentLowWaterBytes,
        double initialBytesPerSecond,
        double maxBytesPerSecond,
        double fixedBytesPerSecond,
        double pacingGain,
        double inFlightGain,
        int fetchWindow,
        long fetchTimeoutMillis,
        int fetchThreads,
        int schedulerThreads,
        int ioThreads,
        int maxCacheBlocks,
        long maxTotalCacheBlocks,
        long maxSchedulerBytes,
        long stateIntervalMillis,
        double schedulerShare,
        KhameleonServer.Transport transport,
        Optional<SslContext> sslContext,
        long shutdownTimeoutMillis,
        long closeTimeoutMillis,
        LongSupplier clock,
        long seed,
        ResumeTokens resumeTokens) {

    List<Application> applications() {
        return List.copyOf(applicationsByPath.values());
    }
}
