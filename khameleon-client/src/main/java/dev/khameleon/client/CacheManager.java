package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.UtilityFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Answers the application's requests from the {@link RingBufferCache} and keeps answering them
 * as more blocks arrive.
 *
 * <ul>
 *   <li>{@link #register}: if block 0 of the request is cached the application gets an upcall
 *       at once (a <em>hit</em>); otherwise when block 0 arrives.</li>
 *   <li>Each time the cached prefix of a registered request grows, a further upcall delivers
 *       the longer prefix, until the response is complete; then the registration ends.</li>
 *   <li>A newer registration <em>preempts</em> every older one that has had no upcall yet:
 *       those are dropped without any upcall and counted. Registrations that already got an
 *       answer keep improving; at most {@code maxActive} of them are kept (the oldest is
 *       retired silently beyond that), so nothing grows without bound.</li>
 * </ul>
 *
 * <p><b>Threading.</b> {@link #register} may be called from any thread. {@link #onBlock} and
 * {@link #reset} are the cache's writer side: one thread at a time, in sequence order.
 * Upcalls run on the configured {@link Executor}; for one registration they never overlap and
 * come in order of growing prefix, and at most one task per registration is queued at a time
 * (later growth is folded into it), so the executor's queue stays bounded by the number of
 * active registrations. With a direct executor (the simulator's choice) upcalls run inside
 * {@code register} or {@code onBlock}, after every internal lock is released, so an upcall may
 * itself call {@code register}. An exception thrown by an upcall is caught, logged and counted;
 * it never reaches the caller of {@code onBlock}.
 *
 * <p>Time comes from the injected clock (nanoseconds), so a simulator can run this class on
 * virtual time.
 */
public final class CacheManager {
    private static final Logger LOG = LoggerFactory.getLogger(CacheManager.class);

    private final RingBufferCache cache;
    private final UtilityFunction utility;
    private final Executor executor;
    private final LongSupplier nanoClock;
    private final int maxActive;
    private final MetricsRecorder metrics = new MetricsRecorder();

    private final Object lock = new Object();
    /** requestId → its registrations; read for every block, hence not boxed. */
    private final IntObjectMap<List<Registration>> byRequest;
    private final LinkedHashSet<Registration> active = new LinkedHashSet<>();
    private Registration waiting;
    private Registration latest;
    /** requestId → generation of its current binding, for ids not at generation 0; writer thread only. */
    private final LongIntMap generations = new LongIntMap(16);
    private volatile long staleBlocks;

    private CacheManager(Builder b) {
        this.cache = b.cache;
        this.utility = b.utility;
        this.executor = b.executor;
        this.nanoClock = b.nanoClock;
        this.maxActive = b.maxActive;
        // Every indexed registration is active, and at most maxActive + 1 are (the latest is never retired).
        this.byRequest = new IntObjectMap<>(b.maxActive + 1);
    }

    /** Starts a builder for a manager over {@code cache}. */
    public static Builder builder(RingBufferCache cache) {
        return new Builder(cache);
    }

    /** The cache this manager answers from. */
    public RingBufferCache cache() {
        return cache;
    }

    /**
     * Registers the application's request {@code requestId}; {@code upcall} receives the
     * usable answer now if block 0 is cached, otherwise when it arrives, then each longer prefix.
     * Preempts every older registration that has had no upcall yet. Any thread.
     *
     * @return whether this was a cache hit (block 0 present at registration)
     * @throws IllegalArgumentException if {@code requestId < 0}
     */
    public boolean register(int requestId, Upcall upcall) {
        if (requestId < 0) {
            throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
        }
        Objects.requireNonNull(upcall, "upcall");
        Registration reg;
        boolean hit;
        boolean run = false;
        synchronized (lock) {
            if (waiting != null) {
                remove(waiting);
                metrics.preempted();
                waiting = null;
            }
            reg = new Registration(requestId, upcall, nanoClock.getAsLong());
            int prefix = cache.prefixLength(requestId);
            hit = prefix > 0;
            metrics.registered(hit);
            List<Registration> regs = byRequest.get(requestId);
            if (regs == null) {
                regs = new ArrayList<>(2);
                byRequest.put(requestId, regs);
            }
            regs.add(reg);
            active.add(reg);
            latest = reg;
            if (hit) {
                reg.target = prefix;
                reg.scheduled = true;
                run = true;
            } else {
                waiting = reg;
            }
            retireBeyondLimit();
        }
        if (run) {
            submit(reg);
        }
        return hit;
    }

    /**
     * Stores a block that arrived with sequence number {@code seq} in the cache and makes the
     * upcalls its arrival enables. Writer thread only, in sequence order.
     *
     * @return whether the cache accepted the block (see {@link RingBufferCache#put})
     */
    public boolean onBlock(long seq, Block block) {
        return onBlock(seq, block, 0);
    }

    /**
     * Like {@link #onBlock(long, Block)} for a block that answers the binding of generation
     * {@code generation} of its request: a block of any other generation than the request's
     * current one (see {@link #rebind}) answers content the request no longer means and is
     * dropped, its slot cleared. Writer thread only, in sequence order.
     *
     * @return whether the cache accepted the block
     */
    public boolean onBlock(long seq, Block block, int generation) {
        if (generation != generation(block.requestId())) {
            cache.skip(seq);
            staleBlocks++;
            metrics.block(false);
            return false;
        }
        boolean stored = cache.put(seq, block);
        metrics.block(stored);
        if (!stored) {
            return false;
        }
        List<Registration> toRun = null;
        synchronized (lock) {
            List<Registration> regs = byRequest.get(block.requestId());
            if (regs == null) {
                return true;
            }
            int prefix = cache.prefixLength(block.requestId());
            for (Registration reg : regs) {
                // Compare with what was delivered, not with the target: blocks evicted while an
                // upcall was pending can shrink the prefix below a target that was never
                // delivered, and its regrowth must still wake the registration.
                if (prefix > reg.delivered) {
                    reg.target = Math.max(reg.target, prefix);
                    if (reg == waiting) {
                        waiting = null;
                    }
                    if (!reg.scheduled) {
                        reg.scheduled = true;
                        if (toRun == null) {
                            toRun = new ArrayList<>(regs.size());
                        }
                        toRun.add(reg);
                    }
                }
            }
        }
        if (toRun != null) {
            for (Registration reg : toRun) {
                submit(reg);
            }
        }
        return true;
    }

    /**
     * Empties the cache and expects {@code firstSeq} next: after a reconnect. Registrations stay;
     * those already answered get further upcalls only once the prefix grows past what they
     * already delivered. Writer thread only.
     */
    public void reset(long firstSeq) {
        synchronized (lock) {
            cache.reset(firstSeq);
            generations.clear();
        }
    }

    /**
     * Request {@code requestIds[k]} now means other content, answered by blocks of generation
     * {@code generations[k]} (0: its default meaning): drops its cached blocks, refuses blocks of
     * any other generation from now on, and makes each of its registrations still active start
     * over, so their next upcalls carry the new content from its first block. Writer thread only.
     *
     * @throws IllegalArgumentException if the arrays differ in length or hold a negative value
     */
    public void rebind(int[] requestIds, int[] generations) {
        if (requestIds.length != generations.length) {
            throw new IllegalArgumentException(requestIds.length + " request ids but " + generations.length
                    + " generations");
        }
        synchronized (lock) {
            for (int k = 0; k < requestIds.length; k++) {
                int id = requestIds[k];
                if (id < 0 || generations[k] < 0) {
                    throw new IllegalArgumentException("request " + id + " generation " + generations[k]
                            + ": both must be >= 0");
                }
                if (generations[k] == 0) {
                    this.generations.remove(id);
                } else {
                    this.generations.put(id, generations[k]);
                }
                cache.invalidate(id);
                List<Registration> regs = byRequest.get(id);
                if (regs != null) {
                    for (Registration reg : regs) {
                        reg.delivered = 0;
                        reg.target = 0;
                    }
                }
            }
        }
    }

    /** The current binding generation of {@code requestId} (0 for its default meaning). Writer thread only. */
    public int generation(int requestId) {
        return generations.size() == 0 || requestId < 0 ? 0 : generations.get(requestId, 0);
    }

    /** How many blocks were dropped because they answered an old binding of their request. Any thread. */
    public long staleBlocks() {
        return staleBlocks;
    }

    /**
     * Records the probability mass that the last prediction gave the request actually made
     * (for the prediction-accuracy metric). Any thread.
     *
     * @throws IllegalArgumentException if {@code mass} is not in {@code [0, 1 + 1e-6]}
     */
    public void recordPredictionAccuracy(double mass) {
        if (!(mass >= 0 && mass <= 1 + 1e-6)) {
            throw new IllegalArgumentException("prediction mass must be in [0, 1], was " + mass);
        }
        metrics.predictionAccuracy(Math.min(1.0, mass));
    }

    /** A snapshot of the metrics so far. Any thread. */
    public ClientMetrics metrics() {
        return metrics.snapshot();
    }

    /** How many registrations are still waiting for an answer or for more blocks. */
    public int activeRegistrations() {
        synchronized (lock) {
            return active.size();
        }
    }

    private void submit(Registration reg) {
        try {
            executor.execute(() -> deliver(reg));
        } catch (RejectedExecutionException e) {
            LOG.warn("upcall executor rejected the upcall for request {}: {}", reg.requestId, e.toString());
            metrics.upcallFailed();
            synchronized (lock) {
                reg.scheduled = false;
            }
        }
    }

    /** Runs on the upcall executor: delivers the newest prefix until nothing new is left. */
    private void deliver(Registration reg) {
        while (true) {
            Response response;
            synchronized (lock) {
                // Read the cache under our lock so a block arriving now either shows up here or
                // finds scheduled == false and submits a new task: no growth is ever lost.
                List<Block> blocks = reg.finished ? List.of() : cache.prefix(reg.requestId);
                if (blocks.size() <= reg.delivered) {
                    reg.scheduled = false;
                    return;
                }
                long now = nanoClock.getAsLong();
                boolean first = !reg.answered;
                reg.answered = true;
                int count = blocks.get(0).count();
                reg.delivered = blocks.size();
                reg.target = Math.max(reg.target, blocks.size());
                response = new Response(reg.requestId, blocks, count, utility.utility((double) blocks.size() / count));
                int newlyUsed = cache.markUsed(reg.requestId, blocks.size());
                metrics.upcall(first, now - reg.registeredNanos, response.utility(), newlyUsed);
                if (response.isComplete()) {
                    if (reg == latest) {
                        metrics.converged(now - reg.registeredNanos);
                    }
                    remove(reg);
                }
            }
            try {
                reg.upcall.onResponse(response);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
                metrics.upcallFailed();
                LOG.warn("upcall for request {} threw; contained", reg.requestId, e);
            }
            if (response.isComplete()) {
                return;
            }
        }
    }

    /** Drops {@code reg} from every structure; caller holds the lock. */
    private void remove(Registration reg) {
        active.remove(reg);
        unindex(reg);
        if (waiting == reg) {
            waiting = null;
        }
    }

    /** Ends {@code reg} and drops it from the by-request index; caller holds the lock. */
    private void unindex(Registration reg) {
        reg.finished = true;
        List<Registration> regs = byRequest.get(reg.requestId);
        if (regs != null) {
            regs.remove(reg);
            if (regs.isEmpty()) {
                byRequest.remove(reg.requestId);
            }
        }
    }

    private void retireBeyondLimit() {
        Iterator<Registration> oldest = active.iterator();
        while (active.size() > maxActive && oldest.hasNext()) {
            Registration reg = oldest.next();
            if (reg == latest) {
                continue;
            }
            oldest.remove();
            unindex(reg);
        }
    }

    /** One registered request. Fields are guarded by the manager's lock. */
    private static final class Registration {
        final int requestId;
        final Upcall upcall;
        final long registeredNanos;
        /** Longest prefix known to be available; grows as blocks arrive. */
        int target;
        /** Blocks in the last upcall; 0 before the first and after its request was rebound. */
        int delivered;
        /** Whether it had an upcall (for the metrics of first upcalls). */
        boolean answered;
        /** Whether a delivery task is queued or running. */
        boolean scheduled;
        /** Complete, preempted or retired: no further upcall. */
        boolean finished;

        Registration(int requestId, Upcall upcall, long registeredNanos) {
            this.requestId = requestId;
            this.upcall = upcall;
            this.registeredNanos = registeredNanos;
        }
    }

    /**
     * Configures a {@link CacheManager}. Each setter validates at once and names the setting in
     * its error message. Not thread-safe.
     */
    public static final class Builder {
        private final RingBufferCache cache;
        private UtilityFunction utility = UtilityFunction.linear();
        private Executor executor = Runnable::run;
        private LongSupplier nanoClock = System::nanoTime;
        private int maxActive = 64;

        private Builder(RingBufferCache cache) {
            this.cache = Objects.requireNonNull(cache, "cache");
        }

        /** The utility of a prefix, for the upcalls' utility value and the metrics. Default linear. */
        public Builder utility(UtilityFunction utility) {
            this.utility = Objects.requireNonNull(utility, "utility");
            return this;
        }

        /**
         * Where upcalls run. Default: directly on the calling thread ({@code Runnable::run}),
         * which suits a simulator; a networked client must pass an executor that is not its
         * network thread ({@link KhameleonClient} does).
         */
        public Builder upcallExecutor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "upcallExecutor");
            return this;
        }

        /** The clock, in nanoseconds, for latencies. Default {@link System#nanoTime()}. */
        public Builder clock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "clock");
            return this;
        }

        /**
         * How many registrations may be kept improving at once (default 64); beyond it the
         * oldest is retired without further upcalls.
         *
         * @throws IllegalArgumentException if {@code maxActive < 1}
         */
        public Builder maxActiveRegistrations(int maxActive) {
            if (maxActive < 1) {
                throw new IllegalArgumentException("maxActiveRegistrations must be >= 1, was " + maxActive);
            }
            this.maxActive = maxActive;
            return this;
        }

        /** Builds the manager. */
        public CacheManager build() {
            return new CacheManager(this);
        }
    }
}
