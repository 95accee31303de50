package dev.khameleon.server;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.protocol.BlockCounts;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.server.spi.Authenticator;
import dev.khameleon.server.spi.SchedulerFactory;

import java.util.Objects;
import java.util.Optional;

/**
 * One application a {@link KhameleonServer} serves at a WebSocket path: its request space and
 * blocks (a {@link BlockSource}), the server half of its predictor, its utility function and
 * horizons, and how its sessions are scheduled.
 *
 * <p>Immutable and thread-safe; build one with {@link #builder(String)}. Building summarises the
 * block counts of all {@code n} requests once ({@code O(n)}), for the welcome message.
 */
public final class Application {
    private static final int MAX_CHUNK_SIZE = 100_000;
    private final String name;
    private final String path;
    private final BlockSource source;
    private final ServerPredictor predictor;
    private final UtilityFunction utility;
    private final long[] horizonsMillis;
    private final SchedulerSettings schedulerSettings;
    private final int backendConcurrency;
    private final SchedulerFactory schedulerFactory;
    private final boolean predictFromRequests;
    private final Optional<Distribution> initialDistribution;
    private final Authenticator authenticator;
    private final BlockCounts blockCounts;
    /** Which requests' counts are upper bounds ({@link BlockSource#isBlockCountBound}); null if none. */
    private final boolean[] lazyCounts;
    private final Optional<RequestScope> requestScope;
    private final int maxBoundRequests;
    // The SPIs as sessions call them, wrapped once here so that no session needs its own try/catch.
    private final GuardedBlockSource guardedSource;
    private final GuardedPredictor guardedPredictor;
    private final GuardedSchedulerFactory guardedSchedulerFactory;
    /** Null without a request scope. */
    private final GuardedRequestScope guardedScope;

    private Application(Builder b) {
        this.name = b.name;
        this.path = b.path != null ? b.path : "/" + b.name;
        this.source = b.source;
        this.horizonsMillis = b.horizonsMillis.clone();
        int n = source.requestCount();
        this.predictor = b.predictor != null ? b.predictor : ServerPredictor.uniform(n, horizonsMillis);
        this.utility = b.utility;
        this.schedulerSettings = b.schedulerSettings;
        this.backendConcurrency = b.backendConcurrency;
        this.schedulerFactory = b.schedulerFactory != null ? b.schedulerFactory : DefaultScheduler.FACTORY;
        this.predictFromRequests = b.predictFromRequests;
        this.initialDistribution = b.waitForState ? Optional.empty()
                : Optional.of(b.initialDistribution != null ? b.initialDistribution
                : Distribution.uniform(n, horizonsMillis));
        this.authenticator = b.authenticator;
        this.lazyCounts = lazyCounts(source, n);
        if (lazyCounts != null && b.requestScope != null) {
            throw new IllegalArgumentException("application " + b.name + ": a block source that tells counts lazily"
                    + " (isBlockCountBound) cannot serve a request scope, whose content keys need exact counts");
        }
        boolean[] lazy = lazyCounts;
        this.blockCounts = lazy == null ? BlockCounts.summarize(n, source::blockCount, b.maxWelcomeExceptions)
                : BlockCounts.summarize(n, source::blockCount, i -> lazy[i], b.maxWelcomeExceptions);
        this.requestScope = Optional.ofNullable(b.requestScope);
        this.maxBoundRequests = b.maxBoundRequests;
        // Fail at build time, not per session, on a utility that is not a utility.
        utility.marginalGains(Math.max(1, blockCounts.defaultCount()));
        this.guardedSource = new GuardedBlockSource(source, name, b.requestScope != null);
        this.guardedPredictor = new GuardedPredictor(predictor, name, n);
        this.guardedSchedulerFactory = new GuardedSchedulerFactory(schedulerFactory, name);
        this.guardedScope = b.requestScope == null ? null : new GuardedRequestScope(b.requestScope, name);
    }

    /** Reads {@link BlockSource#isBlockCountBound} once per request; null when it holds for none. */
    private static boolean[] lazyCounts(BlockSource source, int n) {
        boolean[] lazy = null;
        for (int i = 0; i < n; i++) {
            if (source.isBlockCountBound(i)) {
                if (lazy == null) {
                    lazy = new boolean[n];
                }
                lazy[i] = true;
            }
        }
        return lazy;
    }

    /** Starts a builder for an application called {@code name} (the name clients put in their hello). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The application's name, as clients name it in their hello. */
    public String name() {
        return name;
    }

    /** The WebSocket path the application is mounted at, e.g. {@code "/gallery"}. */
    public String path() {
        return path;
    }

    /** Where blocks come from; also defines {@code n} and the block size. */
    public BlockSource blockSource() {
        return source;
    }

    /** The server half of the predictor. */
    public ServerPredictor predictor() {
        return predictor;
    }

    /** The utility function. */
    public UtilityFunction utility() {
        return utility;
    }

    /** A copy of the horizons announced to clients, in milliseconds. */
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    /**
     * How each session's scheduler is tuned; the default scheduler is built with exactly these,
     * and a {@link SchedulerFactory} gets them in its {@code SchedulerContext}.
     */
    public SchedulerSettings schedulerSettings() {
        return schedulerSettings;
    }

    /** How many slots a session plans at a time: {@code schedulerSettings().chunkSize()}. */
    public int chunkSize() {
        return schedulerSettings.chunkSize();
    }

    /** The scheduler's per-slot discount {@code γ}: {@code schedulerSettings().discount()}. */
    public double discount() {
        return schedulerSettings.discount();
    }

    /** The scheduler's least block gain: {@code schedulerSettings().minBlockGain()}. */
    public double minBlockGain() {
        return schedulerSettings.minBlockGain();
    }

    /** The scheduler's least block weight relative to an even share: {@code schedulerSettings().blockGainShare()}. */
    public double blockGainShare() {
        return schedulerSettings.blockGainShare();
    }

    /** The limit on distinct requests being fetched at once across sessions; 0 for none. */
    public int backendConcurrency() {
        return backendConcurrency;
    }

    /** Whether explicit request events are also used as point-predictor states. */
    public boolean predictFromRequests() {
        return predictFromRequests;
    }

    /** The distribution pushed before a client's first state; empty to wait for that state. */
    public Optional<Distribution> initialDistribution() {
        return initialDistribution;
    }

    /**
     * How request ids are bound to content per session, for applications where what an id means
     * depends on the session; empty when every id has one meaning for all sessions.
     */
    public Optional<RequestScope> requestScope() {
        return requestScope;
    }

    /** The most request ids one client scope may bind to other content than their default. */
    public int maxBoundRequests() {
        return maxBoundRequests;
    }

    SchedulerFactory schedulerFactory() {
        return schedulerFactory;
    }

    Authenticator authenticator() {
        return authenticator;
    }

    BlockCounts blockCounts() {
        return blockCounts;
    }

    /**
     * Whether every request has the same, exact block count; otherwise a scheduler keeps tables of
     * the request count for the counts ({@link SchedulerFootprint}).
     */
    boolean hasUniformExactCounts() {
        return lazyCounts == null && blockCounts.exceptionCount() == 0 && blockCounts.complete();
    }

    /** Whether some request's block count is an upper bound, told exactly by its blocks. */
    boolean hasLazyCounts() {
        return lazyCounts != null;
    }

    /** Whether the block count of {@code requestId} is an upper bound (read once at build time). */
    boolean isBlockCountBound(int requestId) {
        return lazyCounts != null && lazyCounts[requestId];
    }

    /** The block source, guarded: its failures stay within the fetch or session that called it. */
    GuardedBlockSource guardedSource() {
        return guardedSource;
    }

    /** The predictor, guarded: its failures close only the session whose state it decoded. */
    GuardedPredictor guardedPredictor() {
        return guardedPredictor;
    }

    /** The scheduler factory, guarded, making guarded schedulers. */
    GuardedSchedulerFactory guardedSchedulerFactory() {
        return guardedSchedulerFactory;
    }

    /** The request scope, guarded; null for an application without one. */
    GuardedRequestScope guardedScope() {
        return guardedScope;
    }

    @Override
    public String toString() {
        return "Application[" + name + " at " + path + ", n=" + source.requestCount() + ", blockSize="
                + source.blockSize() + "]";
    }

    /**
     * Collects and validates an application's settings; each setter rejects a bad value at once
     * with a message naming the setting. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private String path;
        private BlockSource source;
        private ServerPredictor predictor;
        private UtilityFunction utility = UtilityFunction.linear();
        private long[] horizonsMillis = Horizons.defaults().toArray();
        private SchedulerSettings schedulerSettings = SchedulerSettings.defaults();
        private int backendConcurrency;
        private SchedulerFactory schedulerFactory;
        private boolean predictFromRequests;
        private boolean waitForState;
        private Distribution initialDistribution;
        private Authenticator authenticator = Authenticator.acceptAll();
        private int maxWelcomeExceptions = 65_536;
        private RequestScope requestScope;
        private int maxBoundRequests = 65_536;

        private Builder(String name) {
            if (name == null || name.isEmpty() || name.length() > Protocol.MAX_APPLICATION_LENGTH) {
                throw new IllegalArgumentException("application name must have 1 to "
                        + Protocol.MAX_APPLICATION_LENGTH + " characters, was " + (name == null ? "null" : "\"" + name + "\""));
            }
            this.name = name;
        }

        /**
         * The WebSocket path, starting with {@code /} and without query or fragment (default
         * {@code "/" + name}).
         */
        public Builder path(String path) {
            if (path == null || !path.startsWith("/") || path.contains("?") || path.contains("#")
                    || path.contains(" ")) {
                throw new IllegalArgumentException("path must start with '/' and contain no '?', '#' or space, was "
                        + path);
            }
            this.path = path;
            return this;
        }

        /** Required: where the blocks come from. */
        public Builder blockSource(BlockSource source) {
            this.source = Objects.requireNonNull(source, "blockSource");
            if (source.requestCount() < 1) {
                throw new IllegalArgumentException("blockSource.requestCount() must be >= 1, was "
                        + source.requestCount());
            }
            if (source.blockSize() < 1) {
                throw new IllegalArgumentException("blockSource.blockSize() must be >= 1, was " + source.blockSize());
            }
            return this;
        }

        /** The server half of the predictor (default: uniform, ignoring states). */
        public Builder predictor(ServerPredictor predictor) {
            this.predictor = Objects.requireNonNull(predictor, "predictor");
            return this;
        }

        /** The utility function (default {@link UtilityFunction#linear()}). */
        public Builder utility(UtilityFunction utility) {
            this.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /**
         * The horizons announced to clients in milliseconds: at least one, {@code >= 0}, strictly
         * increasing (default {@link Horizons#defaults()}, 50, 150, 250, 500).
         *
         * @throws IllegalArgumentException as {@link Horizons#check}
         */
        public Builder horizons(long... horizonsMillis) {
            this.horizonsMillis = Horizons.check("horizons", horizonsMillis);
            return this;
        }

        /** The horizons announced to clients (default {@link Horizons#defaults()}). */
        public Builder horizons(Horizons horizons) {
            this.horizonsMillis = Objects.requireNonNull(horizons, "horizons").toArray();
            return this;
        }

        /**
         * How each session's scheduler is tuned (default {@link SchedulerSettings#defaults()}):
         * chunk size, discount, the floors on a block's weight, planning horizon, forecast fade
         * and selection rule, replacing any set before. The chunk size must be at most 100,000,
         * a cap on the work and memory of one job.
         *
         * @throws IllegalArgumentException naming {@code chunkSize} if it is above the cap
         */
        public Builder schedulerSettings(SchedulerSettings settings) {
            Objects.requireNonNull(settings, "schedulerSettings");
            if (settings.chunkSize() > MAX_CHUNK_SIZE) {
                throw new IllegalArgumentException("chunkSize must be in [1, " + MAX_CHUNK_SIZE + "], was "
                        + settings.chunkSize());
            }
            this.schedulerSettings = settings;
            return this;
        }

        /** How many slots a session plans at a time, in {@code [1, 100000]} (default 100). */
        public Builder chunkSize(int chunkSize) {
            return schedulerSettings(schedulerSettings.toBuilder().chunkSize(chunkSize).build());
        }

        /**
         * The least weight of a block when the scheduler compares blocks, in
         * {@code [SchedulerConfig.MIN_BLOCK_GAIN, 1]} (default {@link SchedulerConfig#MIN_BLOCK_GAIN}):
         * as {@link SchedulerSettings.Builder#minBlockGain}.
         */
        public Builder minBlockGain(double gain) {
            return schedulerSettings(schedulerSettings.toBuilder().minBlockGain(gain).build());
        }

        /**
         * The least weight of a block relative to its response's size, in {@code [0, 1]} (default
         * {@link SchedulerConfig#DEFAULT_BLOCK_GAIN_SHARE}): as {@link SchedulerSettings.Builder#blockGainShare}.
         */
        public Builder blockGainShare(double share) {
            return schedulerSettings(schedulerSettings.toBuilder().blockGainShare(share).build());
        }

        /** The scheduler's per-slot discount {@code γ}, in {@code (0, 1]} (default 1). */
        public Builder discount(double discount) {
            return schedulerSettings(schedulerSettings.toBuilder().discount(discount).build());
        }

        /**
         * {@code Cb}: at most this many distinct requests are fetched from the block source at
         * once, across all sessions of the application; {@code 0} for no limit (the default).
         */
        public Builder backendConcurrency(int limit) {
            if (limit < 0) {
                throw new IllegalArgumentException("backendConcurrency must be >= 0, was " + limit);
            }
            this.backendConcurrency = limit;
            return this;
        }

        /** How each session's scheduler is made (default: the greedy scheduler). */
        public Builder scheduler(SchedulerFactory factory) {
            this.schedulerFactory = Objects.requireNonNull(factory, "scheduler");
            return this;
        }

        /**
         * Whether a client's explicit request event for {@code r} also counts as the prediction
         * state {@code {"request": r}} (for the point predictor); default false.
         */
        public Builder predictFromRequests(boolean enabled) {
            this.predictFromRequests = enabled;
            return this;
        }

        /**
         * Whether a session waits for the client's first state before pushing anything (default
         * false: it pushes with the {@linkplain #initialDistribution initial distribution}).
         */
        public Builder waitForState(boolean wait) {
            this.waitForState = wait;
            return this;
        }

        /** The distribution pushed before a client's first state (default uniform). */
        public Builder initialDistribution(Distribution distribution) {
            this.initialDistribution = Objects.requireNonNull(distribution, "initialDistribution");
            return this;
        }

        /** Checks the token of each hello (default: accept all). */
        public Builder authenticator(Authenticator authenticator) {
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
            return this;
        }

        /**
         * At most this many per-request block-count exceptions are listed in the welcome,
         * in {@code [0, 10000000]} (default 65,536); beyond it the welcome says the list is incomplete.
         */
        public Builder maxWelcomeExceptions(int max) {
            if (max < 0 || max > 10_000_000) {
                throw new IllegalArgumentException("maxWelcomeExceptions must be in [0, 10000000], was " + max);
            }
            this.maxWelcomeExceptions = max;
            return this;
        }

        /**
         * Makes what a request id means depend on the session (default: one meaning for all
         * sessions). Clients send their scope (e.g. brushes) in {@code scope} messages;
         * {@code scope} turns each into the session's {@link dev.khameleon.core.Bindings}, and the
         * server invalidates the cached and scheduled blocks of every id whose content changed.
         * The block source must then answer {@link BlockSource#fetch(int, long, int)}. Block
         * frames of such an application carry a 36-byte header with the binding generation.
         */
        public Builder requestScope(RequestScope scope) {
            this.requestScope = Objects.requireNonNull(scope, "requestScope");
            return this;
        }

        /**
         * The most request ids one scope may bind, in {@code [1, 10000000]} (default 65,536); a
         * scope binding more ends its session with {@code limit_exceeded}. Bounds each session's
         * binding table and the work of applying one scope.
         */
        public Builder maxBoundRequests(int max) {
            if (max < 1 || max > 10_000_000) {
                throw new IllegalArgumentException("maxBoundRequests must be in [1, 10000000], was " + max);
            }
            this.maxBoundRequests = max;
            return this;
        }

        /**
         * Validates the combination and builds the application.
         *
         * @throws IllegalArgumentException if no block source was given, the initial distribution's
         *     request count differs from the source's, or the utility function is invalid
         */
        public Application build() {
            if (source == null) {
                throw new IllegalArgumentException("application " + name + ": blockSource is required");
            }
            if (initialDistribution != null && initialDistribution.requestCount() != source.requestCount()) {
                throw new IllegalArgumentException("initialDistribution has " + initialDistribution.requestCount()
                        + " requests but the block source has " + source.requestCount());
            }
            return new Application(this);
        }
    }
}
