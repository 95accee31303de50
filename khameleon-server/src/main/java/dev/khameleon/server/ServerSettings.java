package dev.khameleon.server;

import dev.khameleon.server.KhameleonServer.Transport;
import io.netty.handler.ssl.SslContext;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * A server's settings with their defaults and their validation: the setters of
 * {@link KhameleonServer.Builder}, its only subclass, which adds {@code build()}. Each setter checks
 * its value at once and rejects a bad one with an {@link IllegalArgumentException} naming the
 * setting and the value; {@link #toConfig()} checks the combination. The push's settings
 * (bandwidth, pacing, fetching, scheduling) are in {@link PushSettings}. The setters are public
 * because they are the builder's API (javadoc lists them under the builder); the class is not.
 * Not thread-safe.
 */
abstract sealed class ServerSettings extends PushSettings permits KhameleonServer.Builder {
    private String host = "127.0.0.1";
    private int port = 8080;
    private final Map<String, Application> applications = new LinkedHashMap<>();
    private int maxSessions = 10_000;
    private Set<String> allowedOrigins = Set.of();
    private boolean allowAnyOrigin;
    private Set<String> allowedHosts = Set.of();
    private int maxConnectionsPerAddress = 64;
    private int maxHandshakesPerAddress = 16;
    private long helloTimeoutMillis = 5_000;
    private int maxFramePayloadBytes = 64 * 1024;
    private long handshakeTimeoutMillis = 10_000;
    private long readIdleTimeoutMillis = 60_000;
    private long writeStallTimeoutMillis = 30_000;
    private int maxPingsPerSecond = 16;
    private int maxInboundBytesPerSecond = 1 << 20;
    private int writeBufferLowBytes = 32 * 1024;
    private int writeBufferHighBytes = 64 * 1024;
    private int sendBufferBytes;
    private int notSentLowWaterBytes = 16 * 1024;
    private int ioThreads;
    private int maxCacheBlocks = 16_384;
    private long maxTotalCacheBlocks = 1L << 21;
    /** 0: half the heap the JVM may grow to, as {@link #toConfig} finds it. */
    private long maxSchedulerBytes;
    private Transport transport = Transport.AUTO;
    private SslContext sslContext;
    private long shutdownTimeoutMillis = 5_000;
    private long closeTimeoutMillis = 2_000;
    private LongSupplier clock = System::nanoTime;
    private Long seed;
    private byte[] resumeKey;
    private long resumeTtlMillis = 600_000;
    private LongSupplier resumeClock = System::currentTimeMillis;

    ServerSettings() {
    }

    /**
     * The address to bind (default {@code "127.0.0.1"}: this machine only, e.g. behind a
     * reverse proxy); {@code "0.0.0.0"} binds every interface.
     */
    public KhameleonServer.Builder host(String host) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must be non-blank, was " + host);
        }
        this.host = host;
        return self();
    }

    /** The TCP port, in {@code [0, 65535]}; 0 picks a free one (default 8080). */
    public KhameleonServer.Builder port(int port) {
        this.port = range("port", port, 0, 65_535);
        return self();
    }

    /** Mounts {@code application} at its path; at least one is required, paths must differ. */
    public KhameleonServer.Builder application(Application application) {
        Objects.requireNonNull(application, "application");
        Application previous = applications.putIfAbsent(application.path(), application);
        if (previous != null) {
            throw new IllegalArgumentException("application " + application.name() + ": path "
                    + application.path() + " is already taken by application " + previous.name());
        }
        return self();
    }

    /** The most sessions open at once, in {@code [1, 1000000]} (default 10,000); more are closed with 1013. */
    public KhameleonServer.Builder maxSessions(int maxSessions) {
        this.maxSessions = range("maxSessions", maxSessions, 1, 1_000_000);
        return self();
    }

    /**
     * Browser origins allowed to connect besides the server's own, e.g.
     * {@code "https://example.com"} (scheme, host and port, as browsers send them in the
     * {@code Origin} header). By default only same-origin requests (the {@code Origin}'s
     * host and port equal the request's {@code Host}) and requests without an {@code Origin}
     * (non-browser clients; protect those with an authenticator) are allowed; any other
     * origin gets HTTP 403. Each call replaces the previous list.
     */
    public KhameleonServer.Builder allowedOrigins(String... origins) {
        for (String o : origins) {
            if (o == null || o.isBlank()) {
                throw new IllegalArgumentException("allowedOrigins must be non-blank, were " + Arrays.toString(origins));
            }
        }
        this.allowedOrigins = Set.of(origins);
        return self();
    }

    /**
     * The host names a WebSocket upgrade's {@code Host} header may name (its port aside), e.g.
     * {@code "khameleon.example.com"} behind a proxy that passes the client's {@code Host} on; the
     * single entry {@code "*"} accepts any. Any other gets HTTP 403 ({@code forbidden_host}). By
     * default a connection that arrives on a loopback address must name {@code localhost} or an IP
     * address, so that a page whose DNS name was rebound to 127.0.0.1 cannot reach a local server
     * (its {@code Host} carries that name), and a connection on any other address is not checked.
     * Each call replaces the previous list; names are compared without regard to case.
     */
    public KhameleonServer.Builder allowedHosts(String... hosts) {
        Set<String> names = new java.util.LinkedHashSet<>();
        for (String h : hosts) {
            if (h == null || h.isBlank() || h.contains(":") && !h.startsWith("[") || h.contains("/")) {
                throw new IllegalArgumentException("allowedHosts must be host names without a port (or *), were "
                        + Arrays.toString(hosts));
            }
            names.add(h.trim().toLowerCase(java.util.Locale.ROOT));
        }
        if (names.contains("*") && names.size() > 1) {
            throw new IllegalArgumentException("allowedHosts * accepts any host and must be the only entry, were "
                    + Arrays.toString(hosts));
        }
        this.allowedHosts = Set.copyOf(names);
        return self();
    }

    /**
     * Allows WebSocket connections from pages of any origin (default false). Only for servers
     * whose every application checks a token: otherwise any web page a user visits can
     * open sessions in the user's name.
     */
    public KhameleonServer.Builder allowAnyOrigin(boolean allow) {
        this.allowAnyOrigin = allow;
        return self();
    }

    /**
     * The most connections one client address (an IPv6 /64) may hold open, in
     * {@code [1, 1000000]} (default 64); more are closed at once. Behind a reverse proxy every
     * connection comes from the proxy: raise this to {@code maxSessions}.
     */
    public KhameleonServer.Builder maxConnectionsPerAddress(int connections) {
        this.maxConnectionsPerAddress = range("maxConnectionsPerAddress", connections, 1, 1_000_000);
        return self();
    }

    /**
     * The most connections one client address (an IPv6 /64) may have in their handshake at
     * once, from accepting the connection to accepting its hello, in {@code [1, 1000000]}
     * (default 16); more are closed at once. Behind a reverse proxy raise it too.
     */
    public KhameleonServer.Builder maxHandshakesPerAddress(int handshakes) {
        this.maxHandshakesPerAddress = range("maxHandshakesPerAddress", handshakes, 1, 1_000_000);
        return self();
    }

    /**
     * Time from the WebSocket handshake to the client's hello, in {@code [1 ms, 5 min]}
     * (default 5 s); without a hello by then the connection is closed with {@code missing_hello}.
     */
    public KhameleonServer.Builder helloTimeout(Duration timeout) {
        this.helloTimeoutMillis = millis("helloTimeout", timeout, 1, 300_000);
        return self();
    }

    /** The largest client frame, in bytes, in {@code [256, 16777216]} (default 65,536); larger closes with 1009. */
    public KhameleonServer.Builder maxFramePayloadBytes(int bytes) {
        this.maxFramePayloadBytes = range("maxFramePayloadBytes", bytes, 256, 16 << 20);
        return self();
    }

    /**
     * Time from accepting a connection to a completed WebSocket handshake, in
     * {@code [1 ms, 5 min]} (default 10 s); then the connection is closed (with HTTP 408 if no
     * upgrade request came).
     */
    public KhameleonServer.Builder handshakeTimeout(Duration timeout) {
        this.handshakeTimeoutMillis = millis("handshakeTimeout", timeout, 1, 300_000);
        return self();
    }

    /**
     * A session that receives nothing (no message, no ping) for this long is closed with
     * {@code idle_timeout}; in {@code [0, 1 day]}, 0 disabling it (default 60 s).
     */
    public KhameleonServer.Builder readIdleTimeout(Duration timeout) {
        this.readIdleTimeoutMillis = millis("readIdleTimeout", timeout, 0, 86_400_000);
        return self();
    }

    /**
     * A session that cannot write anything for this long (the client stopped reading) is closed
     * with {@code slow_consumer}; in {@code [1 ms, 1 hour]} (default 30 s).
     */
    public KhameleonServer.Builder writeStallTimeout(Duration timeout) {
        this.writeStallTimeoutMillis = millis("writeStallTimeout", timeout, 1, 3_600_000);
        return self();
    }

    /**
     * The most pings a client may send within a second, in {@code [1, 1 000 000]} (default 16):
     * one more closes the connection with {@code limit_exceeded} (1008), and nothing more is read
     * from it meanwhile, so a ping flood costs the server little more than the pings up to the limit.
     */
    public KhameleonServer.Builder maxPingsPerSecond(int pings) {
        this.maxPingsPerSecond = range("maxPingsPerSecond", pings, 1, 1_000_000);
        return self();
    }

    /**
     * The most a client may send in messages per second, in bytes, in {@code [1024, 2^30]}
     * (default 1 MiB): each data frame counts as its payload plus 1,024 bytes, for the work of
     * decoding any message.
     * A client over it is not refused but read no faster, so a flood of cheap messages costs
     * the event loop it shares with other sessions a bounded share (a client sends a few
     * states and one rate report per second).
     */
    public KhameleonServer.Builder maxInboundBytesPerSecond(int bytes) {
        this.maxInboundBytesPerSecond = range("maxInboundBytesPerSecond", bytes, 1024, 1 << 30);
        return self();
    }

    /**
     * Netty's write-buffer water marks per connection: the sender stops when more than
     * {@code highBytes} are queued and resumes below {@code lowBytes};
     * {@code 1 <= low <= high <= 64 MiB} (default 32 KiB and 64 KiB). Small values make a
     * new prediction take effect within a few blocks.
     */
    public KhameleonServer.Builder writeBufferWaterMark(int lowBytes, int highBytes) {
        if (lowBytes < 1 || highBytes < lowBytes || highBytes > 64 << 20) {
            throw new IllegalArgumentException("writeBufferWaterMark must satisfy 1 <= low <= high <= 67108864, was low="
                    + lowBytes + ", high=" + highBytes);
        }
        this.writeBufferLowBytes = lowBytes;
        this.writeBufferHighBytes = highBytes;
        return self();
    }

    /** The socket send buffer ({@code SO_SNDBUF}) in bytes, in {@code [0, 64 MiB]}; 0 leaves the OS default (the default). */
    public KhameleonServer.Builder sendBufferBytes(int bytes) {
        this.sendBufferBytes = range("sendBufferBytes", bytes, 0, 64 << 20);
        return self();
    }

    /**
     * The most bytes a connection's kernel send buffer may hold that TCP has not sent yet
     * ({@code TCP_NOTSENT_LOWAT}), in {@code [0, 64 MiB]}; 0 leaves the kernel's default, which on
     * Linux is no limit (default 16 KiB). Unsent bytes are blocks the scheduler can no longer
     * replace: without a limit the kernel grows its buffer to megabytes once the pacer runs ahead of
     * the link, and every new state waits behind them (seconds on a slow link). The limit leaves the
     * bytes in flight to TCP, so throughput is unchanged. Applied with the epoll transport only (NIO
     * cannot set it); a connection mounted in another Netty server gets it if that server uses epoll.
     */
    public KhameleonServer.Builder notSentLowWaterBytes(int bytes) {
        this.notSentLowWaterBytes = range("notSentLowWaterBytes", bytes, 0, 64 << 20);
        return self();
    }

    /** Event-loop threads for connections, in {@code [0, 1024]}; 0 (the default) lets Netty choose (2 × processors). */
    public KhameleonServer.Builder ioThreads(int threads) {
        this.ioThreads = threads("ioThreads", threads, 0);
        return self();
    }

    /**
     * The largest client cache a hello may announce, in blocks, in {@code [1, 2^31-1]}
     * (default 16,384); a bigger one is refused with {@code limit_exceeded}. A session's
     * scheduler state and planning time grow with its cache, so this bounds what one client
     * can make the server spend.
     */
    public KhameleonServer.Builder maxCacheBlocks(int blocks) {
        if (blocks < 1) {
            throw new IllegalArgumentException("maxCacheBlocks must be >= 1, was " + blocks);
        }
        this.maxCacheBlocks = blocks;
        return self();
    }

    /**
     * The heap all open sessions' schedulers together may hold, in bytes, in [2^20, 2^50] (default half
     * the JVM's maximum heap). Each hello is charged its scheduler's estimated footprint, which grows
     * with the hello's cache (about 400 bytes per block) and, up to 65,536 requests, with the
     * application's request count (about 22 bytes per request; above, 16 if its block counts differ
     * between requests or are upper bounds); a hello that would exceed the budget is refused with
     * {@code too_many_sessions} (1013), so many sessions of a large application meet a refusal, never an
     * {@code OutOfMemoryError}.
     */
    public KhameleonServer.Builder maxSchedulerBytes(long bytes) {
        if (bytes < (1L << 20) || bytes > (1L << 50)) {
            throw new IllegalArgumentException("maxSchedulerBytes must be in [2^20, 2^50], was " + bytes);
        }
        this.maxSchedulerBytes = bytes;
        return self();
    }

    /**
     * The most cache blocks all open sessions may announce together, in
     * {@code [1, 2^40]} (default 2,097,152): a budget for the state that grows with each session's
     * cache. A hello that would exceed it is refused with {@code too_many_sessions} (try again
     * later). Must be at least {@link #maxCacheBlocks}.
     */
    public KhameleonServer.Builder maxTotalCacheBlocks(long blocks) {
        if (blocks < 1 || blocks > 1L << 40) {
            throw new IllegalArgumentException("maxTotalCacheBlocks must be in [1, 2^40], was " + blocks);
        }
        this.maxTotalCacheBlocks = blocks;
        return self();
    }

    /** The I/O transport (default {@link Transport#AUTO}). */
    public KhameleonServer.Builder transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return self();
    }

    /** Serves {@code wss://} with this server-side TLS context (from {@code SslContextBuilder.forServer}); default plain {@code ws://}. */
    public KhameleonServer.Builder sslContext(SslContext sslContext) {
        Objects.requireNonNull(sslContext, "sslContext");
        if (!sslContext.isServer()) {
            throw new IllegalArgumentException("sslContext must be a server context (SslContextBuilder.forServer)");
        }
        this.sslContext = sslContext;
        return self();
    }

    /** How long {@link KhameleonServer#close()} waits for sessions and threads, in {@code [0, 10 min]} (default 5 s). */
    public KhameleonServer.Builder shutdownTimeout(Duration timeout) {
        this.shutdownTimeoutMillis = millis("shutdownTimeout", timeout, 0, 600_000);
        return self();
    }

    /** How long a closing session waits for its close frame to be written before dropping the connection, in {@code [1 ms, 1 min]} (default 2 s). */
    public KhameleonServer.Builder closeTimeout(Duration timeout) {
        this.closeTimeoutMillis = millis("closeTimeout", timeout, 1, 60_000);
        return self();
    }

    /** The time source, in nanoseconds (default {@link System#nanoTime()}); for tests and simulations. */
    public KhameleonServer.Builder clock(LongSupplier nanoTime) {
        this.clock = Objects.requireNonNull(nanoTime, "clock");
        return self();
    }

    /**
     * The secret that signs resume tokens (HMAC-SHA256), at least 32 bytes; copied. Give every
     * node behind one load balancer the same key, so that a client whose node died or was
     * drained resumes its session, cache included, on another ({@code docs/scale-out.md}).
     * Default: a random key per server process, so sessions resume only on the same process.
     * Keep the key as secret as a session cookie's: whoever holds it can forge tokens (which
     * only ever let a client describe its own cache, never read another session's data).
     */
    public KhameleonServer.Builder resumeKey(byte[] key) {
        Objects.requireNonNull(key, "resumeKey");
        if (key.length < ResumeTokens.MIN_KEY_BYTES) {
            throw new IllegalArgumentException("resumeKey must have at least " + ResumeTokens.MIN_KEY_BYTES
                    + " bytes, had " + key.length);
        }
        this.resumeKey = key.clone();
        return self();
    }

    /**
     * How long a resume token is accepted after it was issued, in {@code [1 s, 24 h]} (default
     * 10 min). Clients that asked for it get a fresh token every half of this, so only a
     * client that has been away longer than this (or whose clock-distant node issued it)
     * starts afresh.
     */
    public KhameleonServer.Builder resumeTtl(Duration ttl) {
        this.resumeTtlMillis = millis("resumeTtl", ttl, 1_000, 86_400_000);
        return self();
    }

    /**
     * The wall clock that dates resume tokens, in milliseconds since the epoch (default
     * {@link System#currentTimeMillis()}); nodes sharing a key must agree on it within a
     * minute. For tests.
     */
    public KhameleonServer.Builder resumeClock(LongSupplier epochMillis) {
        this.resumeClock = Objects.requireNonNull(epochMillis, "resumeClock");
        return self();
    }

    /** Seeds session ids and each session's scheduler (default: a random seed per server). */
    public KhameleonServer.Builder seed(long seed) {
        this.seed = seed;
        return self();
    }

    /**
     * The settings as a server's configuration, once their combination is checked.
     *
     * @throws IllegalArgumentException if no application was added, or {@code maxCacheBlocks}
     *     exceeds {@code maxTotalCacheBlocks}
     */
    final ServerConfig toConfig() {
        if (applications.isEmpty()) {
            throw new IllegalArgumentException("at least one application is required");
        }
        if (maxCacheBlocks > maxTotalCacheBlocks) {
            throw new IllegalArgumentException("maxCacheBlocks (" + maxCacheBlocks
                    + ") must not exceed maxTotalCacheBlocks (" + maxTotalCacheBlocks + ")");
        }
        long s = seed != null ? seed : new SecureRandom().nextLong();
        byte[] key = resumeKey;
        if (key == null) {
            key = new byte[ResumeTokens.MIN_KEY_BYTES];
            new SecureRandom().nextBytes(key);
        }
        return new ServerConfig(host, port,
                Collections.unmodifiableMap(new LinkedHashMap<>(applications)), maxSessions,
                allowedOrigins, allowAnyOrigin, allowedHosts, maxConnectionsPerAddress, maxHandshakesPerAddress,
                helloTimeoutMillis, maxFramePayloadBytes, handshakeTimeoutMillis, readIdleTimeoutMillis,
                writeStallTimeoutMillis, maxPingsPerSecond, maxInboundBytesPerSecond, writeBufferLowBytes,
                writeBufferHighBytes, sendBufferBytes, notSentLowWaterBytes,
                initialBytesPerSecond, maxBytesPerSecond, fixedBytesPerSecond, pacingGain, inFlightGain, fetchWindow,
                fetchTimeoutMillis, fetchThreads, schedulerThreads, ioThreads, maxCacheBlocks, maxTotalCacheBlocks,
                maxSchedulerBytes > 0 ? maxSchedulerBytes : Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 2),
                stateIntervalMillis, schedulerShare, transport,
                Optional.ofNullable(sslContext), shutdownTimeoutMillis, closeTimeoutMillis, clock, s,
                new ResumeTokens(key, resumeTtlMillis, resumeClock));
    }
}
