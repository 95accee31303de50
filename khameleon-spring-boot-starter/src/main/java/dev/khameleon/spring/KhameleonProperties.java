package dev.khameleon.spring;

import dev.khameleon.server.KhameleonServer;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code khameleon.*} properties: where the auto-configured server serves ({@link #getMode()
 * mode}) and its limits. Each limit's default is the one {@link KhameleonServer.Builder}
 * documents; the port (own-port mode only) defaults to 8090, so that the server does not collide
 * with Boot's web server on 8080. The values are checked by the
 * builder's rules when the server bean is created; a rejected value fails the context with an
 * {@link IllegalArgumentException} whose message starts with the property's name, e.g.
 * {@code khameleon.max-sessions: maxSessions must be in [1, 1000000], was 0}. Not thread-safe:
 * Spring binds it once at startup.
 */
@ConfigurationProperties("khameleon")
public class KhameleonProperties {

    /** Where the server takes its connections. */
    public enum Mode {
        /**
         * On Boot's web server port when it has a Jakarta WebSocket container (Tomcat, Jetty and
         * Undertow do in a servlet web application), on a port of its own otherwise.
         */
        AUTO,
        /** On Boot's web server port; startup fails when it has no Jakarta WebSocket container. */
        EMBEDDED,
        /** On a port of its own ({@code khameleon.host}, {@code khameleon.port}). */
        OWN_PORT
    }

    /** Where to serve: auto (Boot's port when its web server has a Jakarta WebSocket container), embedded or own-port. */
    private Mode mode = Mode.AUTO;
    /** On Boot's port: whether GET /healthz answers 200 ok, or 503 draining once the server drains. */
    private boolean healthz = true;
    /** Own-port mode: the address to bind; "0.0.0.0" binds every interface. */
    private String host = "127.0.0.1";
    /** Own-port mode: the TCP port, in [0, 65535]; 0 picks a free one (read it from KhameleonServer.port()). */
    private int port = 8090;
    /** The most sessions open at once, in [1, 1000000]; more are closed with too_many_sessions. */
    private int maxSessions = 10_000;
    /** Browser origins allowed besides the server's own, e.g. https://app.example.com. */
    private List<String> allowedOrigins = new ArrayList<>();
    /** Whether pages of any origin may connect; only when every application checks a token. */
    private boolean allowAnyOrigin;
    /** Host names an upgrade's Host may carry (e.g. the public name behind a proxy); none: the server's default. */
    private List<String> allowedHosts = new ArrayList<>();
    /** The most connections one client address (an IPv6 /64) may hold open, in [1, 1000000]. */
    private int maxConnectionsPerAddress = 64;
    /** The most connections one client address may have in their handshake at once, in [1, 1000000]. */
    private int maxHandshakesPerAddress = 16;
    /** Own-port mode: time from accepting a connection to a completed WebSocket handshake, in [1 ms, 5 min]. */
    private Duration handshakeTimeout = Duration.ofSeconds(10);
    /** Time from the WebSocket handshake to the client's hello, in [1 ms, 5 min]. */
    private Duration helloTimeout = Duration.ofSeconds(5);
    /** A session that receives nothing for this long is closed, in [0, 1 day]; 0 disables it. */
    private Duration readIdleTimeout = Duration.ofSeconds(60);
    /** A session that cannot write anything for this long is closed (slow_consumer), in [1 ms, 1 hour]. */
    private Duration writeStallTimeout = Duration.ofSeconds(30);
    /** How long a closing session waits for its close frame to be written, in [1 ms, 1 min]. */
    private Duration closeTimeout = Duration.ofSeconds(2);
    /** How long shutdown waits for sessions and threads, in [0, 10 min]. */
    private Duration shutdownTimeout = Duration.ofSeconds(5);
    /** The largest client frame or reassembled message, in bytes, in [256, 16777216]. */
    private int maxFramePayloadBytes = 65_536;
    /** The most pings a client may send within a second, in [1, 1000000]. */
    private int maxPingsPerSecond = 16;
    /** The bytes a client may send per second in data frames (each counting 1 KiB more), in [1024, 2^30]. */
    private int maxInboundBytesPerSecond = 1_048_576;
    /** The largest client cache a hello may announce, in blocks, at least 1. */
    private int maxCacheBlocks = 16_384;
    /** The most cache blocks all open sessions may announce together, in [1, 2^40]; at least max-cache-blocks. */
    private long maxTotalCacheBlocks = 2_097_152;
    /** The least time between two re-plans of one session for new states, in [0, 10 s]. */
    private Duration stateInterval = Duration.ofMillis(10);
    /** A per-session rate cap in bytes/s, in [1000, 1e12]; unset means none. */
    private Double maxBytesPerSecond;
    /** The key that signs resume tokens, base64 of at least 32 bytes, the same on every node; unset means a random key per process. */
    private String resumeKey;
    /** How long a resume token is accepted after it was issued, in [1 s, 24 h]. */
    private Duration resumeTtl = Duration.ofMinutes(10);

    /** Properties at their defaults; Spring binds the configured values over them. */
    public KhameleonProperties() {
    }

    /**
     * A server builder with every property applied.
     *
     * @throws IllegalArgumentException naming the first property the builder rejects
     */
    KhameleonServer.Builder toBuilder() {
        KhameleonServer.Builder b = KhameleonServer.builder();
        apply("host", () -> b.host(host));
        apply("port", () -> b.port(port));
        apply("max-sessions", () -> b.maxSessions(maxSessions));
        apply("allowed-origins", () -> b.allowedOrigins(allowedOrigins.toArray(String[]::new)));
        b.allowAnyOrigin(allowAnyOrigin);
        if (!allowedHosts.isEmpty()) {
            apply("allowed-hosts", () -> b.allowedHosts(allowedHosts.toArray(String[]::new)));
        }
        apply("max-connections-per-address", () -> b.maxConnectionsPerAddress(maxConnectionsPerAddress));
        apply("max-handshakes-per-address", () -> b.maxHandshakesPerAddress(maxHandshakesPerAddress));
        apply("handshake-timeout", () -> b.handshakeTimeout(handshakeTimeout));
        apply("hello-timeout", () -> b.helloTimeout(helloTimeout));
        apply("read-idle-timeout", () -> b.readIdleTimeout(readIdleTimeout));
        apply("write-stall-timeout", () -> b.writeStallTimeout(writeStallTimeout));
        apply("close-timeout", () -> b.closeTimeout(closeTimeout));
        apply("shutdown-timeout", () -> b.shutdownTimeout(shutdownTimeout));
        apply("max-frame-payload-bytes", () -> b.maxFramePayloadBytes(maxFramePayloadBytes));
        apply("max-pings-per-second", () -> b.maxPingsPerSecond(maxPingsPerSecond));
        apply("max-inbound-bytes-per-second", () -> b.maxInboundBytesPerSecond(maxInboundBytesPerSecond));
        apply("max-cache-blocks", () -> b.maxCacheBlocks(maxCacheBlocks));
        apply("max-total-cache-blocks", () -> b.maxTotalCacheBlocks(maxTotalCacheBlocks));
        apply("state-interval", () -> b.stateInterval(stateInterval));
        if (maxBytesPerSecond != null) {
            apply("max-bytes-per-second", () -> b.maxBytesPerSecond(maxBytesPerSecond));
        }
        if (resumeKey != null) {
            apply("resume-key", () -> b.resumeKey(decodeKey(resumeKey)));
        }
        apply("resume-ttl", () -> b.resumeTtl(resumeTtl));
        return b;
    }

    /**
     * Builds the server, naming the properties when their combination is rejected.
     *
     * @throws IllegalArgumentException if max-cache-blocks exceeds max-total-cache-blocks
     */
    KhameleonServer build(KhameleonServer.Builder builder) {
        if (maxCacheBlocks > maxTotalCacheBlocks) {
            throw new IllegalArgumentException("khameleon.max-cache-blocks (" + maxCacheBlocks
                    + ") must not exceed khameleon.max-total-cache-blocks (" + maxTotalCacheBlocks + ")");
        }
        return builder.build();
    }

    private static byte[] decodeKey(String base64) {
        try {
            return java.util.Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            // Never echo the value: it is a secret.
            throw new IllegalArgumentException("resumeKey must be base64 (e.g. from `openssl rand -base64 32`)");
        }
    }

    private static void apply(String property, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            // The builder names its setting (maxSessions); users wrote the property (khameleon.max-sessions).
            throw new IllegalArgumentException("khameleon." + property + ": " + e.getMessage(), e);
        }
    }

    /** Where the server serves (default {@link Mode#AUTO}). */
    public Mode getMode() {
        return mode;
    }

    /** Sets where the server serves. */
    public void setMode(Mode mode) {
        this.mode = mode;
    }

    /** Whether, on Boot's port, {@code GET /healthz} reports the server's health (default true). */
    public boolean isHealthz() {
        return healthz;
    }

    /** Sets whether, on Boot's port, {@code GET /healthz} reports the server's health. */
    public void setHealthz(boolean healthz) {
        this.healthz = healthz;
    }

    /** The address to bind in own-port mode (default {@code 127.0.0.1}). */
    public String getHost() {
        return host;
    }

    /** Sets the address to bind. */
    public void setHost(String host) {
        this.host = host;
    }

    /** The TCP port in own-port mode (default 8090; 0 picks a free one). */
    public int getPort() {
        return port;
    }

    /** Sets the TCP port. */
    public void setPort(int port) {
        this.port = port;
    }

    /** The most sessions open at once (default 10,000). */
    public int getMaxSessions() {
        return maxSessions;
    }

    /** Sets the most sessions open at once. */
    public void setMaxSessions(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    /** Browser origins allowed besides the server's own (default none). */
    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    /** Sets the browser origins allowed besides the server's own. */
    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins;
    }

    /**
     * Host names an upgrade's {@code Host} may carry (default none: on a loopback address
     * {@code localhost} and IP addresses only, any elsewhere; {@code *} for any).
     */
    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    /** Sets the host names an upgrade's {@code Host} may carry. */
    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
    }

    /** Whether pages of any origin may connect (default false). */
    public boolean isAllowAnyOrigin() {
        return allowAnyOrigin;
    }

    /** Sets whether pages of any origin may connect. */
    public void setAllowAnyOrigin(boolean allowAnyOrigin) {
        this.allowAnyOrigin = allowAnyOrigin;
    }

    /** The most connections per client address (default 64). */
    public int getMaxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** Sets the most connections per client address. */
    public void setMaxConnectionsPerAddress(int maxConnectionsPerAddress) {
        this.maxConnectionsPerAddress = maxConnectionsPerAddress;
    }

    /** The most handshakes in progress per client address (default 16). */
    public int getMaxHandshakesPerAddress() {
        return maxHandshakesPerAddress;
    }

    /** Sets the most handshakes in progress per client address. */
    public void setMaxHandshakesPerAddress(int maxHandshakesPerAddress) {
        this.maxHandshakesPerAddress = maxHandshakesPerAddress;
    }

    /** The WebSocket handshake timeout (default 10 s). */
    public Duration getHandshakeTimeout() {
        return handshakeTimeout;
    }

    /** Sets the WebSocket handshake timeout. */
    public void setHandshakeTimeout(Duration handshakeTimeout) {
        this.handshakeTimeout = handshakeTimeout;
    }

    /** The time allowed from handshake to hello (default 5 s). */
    public Duration getHelloTimeout() {
        return helloTimeout;
    }

    /** Sets the time allowed from handshake to hello. */
    public void setHelloTimeout(Duration helloTimeout) {
        this.helloTimeout = helloTimeout;
    }

    /** The read idle timeout (default 60 s; 0 disables it). */
    public Duration getReadIdleTimeout() {
        return readIdleTimeout;
    }

    /** Sets the read idle timeout. */
    public void setReadIdleTimeout(Duration readIdleTimeout) {
        this.readIdleTimeout = readIdleTimeout;
    }

    /** The write stall timeout (default 30 s). */
    public Duration getWriteStallTimeout() {
        return writeStallTimeout;
    }

    /** Sets the write stall timeout. */
    public void setWriteStallTimeout(Duration writeStallTimeout) {
        this.writeStallTimeout = writeStallTimeout;
    }

    /** The close timeout (default 2 s). */
    public Duration getCloseTimeout() {
        return closeTimeout;
    }

    /** Sets the close timeout. */
    public void setCloseTimeout(Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
    }

    /** How long shutdown waits for sessions and threads (default 5 s). */
    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    /** Sets how long shutdown waits for sessions and threads. */
    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    /** The largest client frame in bytes (default 65,536). */
    public int getMaxFramePayloadBytes() {
        return maxFramePayloadBytes;
    }

    /** Sets the largest client frame in bytes. */
    public void setMaxFramePayloadBytes(int maxFramePayloadBytes) {
        this.maxFramePayloadBytes = maxFramePayloadBytes;
    }

    /** The most pings per client per second (default 16). */
    public int getMaxPingsPerSecond() {
        return maxPingsPerSecond;
    }

    /** Sets the most pings per client per second. */
    public void setMaxPingsPerSecond(int maxPingsPerSecond) {
        this.maxPingsPerSecond = maxPingsPerSecond;
    }

    /** The bytes per second a client may send in data frames before it is read no faster (default 1 MiB). */
    public int getMaxInboundBytesPerSecond() {
        return maxInboundBytesPerSecond;
    }

    /** Sets the bytes per second a client may send in data frames before it is read no faster. */
    public void setMaxInboundBytesPerSecond(int maxInboundBytesPerSecond) {
        this.maxInboundBytesPerSecond = maxInboundBytesPerSecond;
    }

    /** The largest cache a client may announce, in blocks (default 16,384). */
    public int getMaxCacheBlocks() {
        return maxCacheBlocks;
    }

    /** Sets the largest cache a client may announce, in blocks. */
    public void setMaxCacheBlocks(int maxCacheBlocks) {
        this.maxCacheBlocks = maxCacheBlocks;
    }

    /** The cache-block budget over all sessions (default 2,097,152). */
    public long getMaxTotalCacheBlocks() {
        return maxTotalCacheBlocks;
    }

    /** Sets the cache-block budget over all sessions. */
    public void setMaxTotalCacheBlocks(long maxTotalCacheBlocks) {
        this.maxTotalCacheBlocks = maxTotalCacheBlocks;
    }

    /** The least time between two re-plans of one session (default 10 ms). */
    public Duration getStateInterval() {
        return stateInterval;
    }

    /** Sets the least time between two re-plans of one session. */
    public void setStateInterval(Duration stateInterval) {
        this.stateInterval = stateInterval;
    }

    /** The per-session rate cap in bytes/s, or null for none (the default). */
    public Double getMaxBytesPerSecond() {
        return maxBytesPerSecond;
    }

    /** Sets the per-session rate cap in bytes/s; null for none. */
    public void setMaxBytesPerSecond(Double maxBytesPerSecond) {
        this.maxBytesPerSecond = maxBytesPerSecond;
    }

    /** The resume token key as configured (base64), or {@code null} for a random key per process. */
    public String getResumeKey() {
        return resumeKey;
    }

    /** Sets the resume token key, base64 of at least 32 bytes; give every node the same one. */
    public void setResumeKey(String resumeKey) {
        this.resumeKey = resumeKey;
    }

    /** How long a resume token is accepted (default 10 min). */
    public Duration getResumeTtl() {
        return resumeTtl;
    }

    /** Sets how long a resume token is accepted. */
    public void setResumeTtl(Duration resumeTtl) {
        this.resumeTtl = resumeTtl;
    }
}
