package dev.khameleon.client;

import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * The settings of one {@link KhameleonClient}: each field holds its default until the
 * {@link KhameleonClient.Builder} sets it, and each setter here checks its value at once, naming
 * the setting and the bad value. The public builder documents every setting and delegates here,
 * so the client's parts read their settings from one object. Not thread-safe, like the builder;
 * read once, by the client's constructor.
 */
final class ClientSettings {
    URI uri;
    String application;
    int cacheBlocks = 1000;
    String token;
    UtilityFunction utility = UtilityFunction.linear();
    Duration stateInterval = Duration.ofMillis(150);
    Duration missStateInterval = Duration.ofMillis(20);
    Duration rateInterval = Duration.ofMillis(500);
    boolean reconnect = true;
    boolean resume = true;
    Duration initialBackoff = Duration.ofMillis(100);
    Duration maxBackoff = Duration.ofSeconds(10);
    Duration healthyAfter = Duration.ofSeconds(5);
    /** The back-off's jitter source; null: a randomly seeded one. */
    RandomGenerator random;
    Duration connectTimeout = Duration.ofSeconds(10);
    Duration idleTimeout = Duration.ofSeconds(30);
    int maxActiveRegistrations = 64;
    ClientListener listener = new ClientListener() { };
    /** Null: no accuracy metric. */
    ServerPredictor predictionModel;
    /** Null: a new one. */
    HttpClient httpClient;
    /** Null: one daemon thread owned by the client. */
    Executor upcallExecutor;
    /** Null: one daemon thread owned by the client. */
    ScheduledExecutorService scheduler;
    LongSupplier millisClock = System::currentTimeMillis;
    LongSupplier nanoClock = System::nanoTime;

    /** Sets the server's address; it must be ws:// or wss://. */
    void uri(URI uri) {
        Objects.requireNonNull(uri, "uri");
        if (!"ws".equalsIgnoreCase(uri.getScheme()) && !"wss".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("uri must be ws:// or wss://, was " + uri);
        }
        this.uri = uri;
    }

    /** Sets the application's name: 1 to {@link Protocol#MAX_APPLICATION_LENGTH} characters. */
    void application(String application) {
        Objects.requireNonNull(application, "application");
        if (application.isEmpty() || application.length() > Protocol.MAX_APPLICATION_LENGTH) {
            throw new IllegalArgumentException("application must have 1.." + Protocol.MAX_APPLICATION_LENGTH
                    + " characters, was \"" + application + "\"");
        }
        this.application = application;
    }

    /** Sets {@code C}, at least 1. */
    void cacheBlocks(int cacheBlocks) {
        this.cacheBlocks = atLeastOne("cacheBlocks", cacheBlocks);
    }

    /** Sets the hello's token: at most {@link Protocol#MAX_TOKEN_LENGTH} characters. */
    void token(String token) {
        Objects.requireNonNull(token, "token");
        if (token.length() > Protocol.MAX_TOKEN_LENGTH) {
            throw new IllegalArgumentException("token must have at most " + Protocol.MAX_TOKEN_LENGTH
                    + " characters, had " + token.length());
        }
        this.token = token;
    }

    /** Sets the back-off's bounds: {@code initial >= 1 ms}, {@code max >= initial}. */
    void backoff(Duration initial, Duration max) {
        Durations.atLeastOneMilli("backoff initial", initial);
        Objects.requireNonNull(max, "backoff max");
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff max must be >= initial " + initial + ", was " + max);
        }
        this.initialBackoff = initial;
        this.maxBackoff = max;
    }

    /** Sets the idle timeout: zero (off) or in {@code [30 ms, 1 day]}. */
    void idleTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "idleTimeout");
        if (!timeout.isZero() && (timeout.compareTo(Duration.ofMillis(30)) < 0
                || timeout.compareTo(Duration.ofDays(1)) > 0)) {
            throw new IllegalArgumentException("idleTimeout must be 0 (off) or in [30 ms, 1 day], was " + timeout);
        }
        this.idleTimeout = timeout;
    }

    /** Sets how many answered requests keep improving, at least 1. */
    void maxActiveRegistrations(int max) {
        this.maxActiveRegistrations = atLeastOne("maxActiveRegistrations", max);
    }

    /** Checks that the required settings are there, naming the first one missing. */
    void checkComplete() {
        if (uri == null) {
            throw new IllegalStateException("uri is required");
        }
        if (application == null) {
            throw new IllegalStateException("application is required");
        }
    }

    /** The upcall executor when none is set: one daemon thread, which the client owns and shuts down. */
    static ExecutorService ownUpcallExecutor() {
        return Executors.newSingleThreadExecutor(daemon("khameleon-upcalls"));
    }

    /** The scheduler when none is set: one daemon thread, which the client owns and shuts down. */
    static ScheduledExecutorService ownScheduler() {
        return Executors.newSingleThreadScheduledExecutor(daemon("khameleon-client"));
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static int atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
        return value;
    }
}
