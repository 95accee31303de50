package dev.khameleon.server;

import dev.khameleon.core.protocol.ErrorCode;
import io.netty.channel.Channel;
import org.slf4j.event.Level;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a running server's sessions share: settings, applications, the bounded scheduler and fetch
 * executors, the session registry and the counters. Thread-safe.
 */
final class ServerRuntime {
    /** An application with its cross-session backend tracker and the server's fetch queue. */
    record App(Application application, BackendTracker backend, FetchQueue fetches) {
    }

    final ServerConfig config;
    final Map<String, App> appsByPath;
    /**
     * Runs {@link SchedulerTask}s only, in {@link FairJobQueue}'s order; submit through {@link #schedule}.
     * Its own queue holds only dispatches, never more than the jobs waiting.
     */
    final ThreadPoolExecutor schedulerExecutor;
    private final int schedulerQueueBound;
    private final AtomicLong schedulerOrder = new AtomicLong();
    final ThreadPoolExecutor fetchExecutor;
    /** The order in which every session's fetches reach the fetch executor. */
    final FetchQueue fetchQueue;
    /** Why {@link #tryRegister} refused a session. */
    enum Registration { REGISTERED, SESSION_CAP, CACHE_BUDGET, SCHEDULER_BUDGET, DRAINING }

    final AddressLimits addressLimits;
    final RefusalLog refusals;
    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    /** Resume tokens held by the sessions they resumed (or are resuming), so a token resumes one session at a time. */
    private final ConcurrentHashMap<String, Object> resumeClaims = new ConcurrentHashMap<>();
    private final AtomicInteger active = new AtomicInteger();
    private final Object registry = new Object();
    /** Set once by {@link KhameleonServer#drain}: no new session from then on. */
    volatile boolean draining;
    private long cacheBlocksInUse;
    private long schedulerBytesInUse;
    /** The order in which scheduler jobs run: fair by measured cost across addresses and sessions. */
    private final FairJobQueue schedulerJobs = new FairJobQueue();
    /** The address of jobs that belong to no connection. */
    static final Object NO_ADDRESS = new Object();
    /** The flow of jobs that belong to no connection, opened with the first (tests' only); never closed. */
    private FairJobQueue.Flow noConnection;
    private final Runnable runNextJob = this::runNextJob;
    private final SplittableRandom random;
    private final AtomicLong sessionCounter = new AtomicLong();

    final LongAdder sessionsOpened = new LongAdder();
    final LongAdder sessionsRejected = new LongAdder();
    final LongAdder handshakesRefused = new LongAdder();
    final LongAdder bytesPushed = new LongAdder();
    final LongAdder blocksPushed = new LongAdder();
    final LongAdder blocksSkipped = new LongAdder();
    final LongAdder replans = new LongAdder();
    final LongAdder chunksPlanned = new LongAdder();
    final LongAdder schedulingNanos = new LongAdder();
    private final Map<ErrorCode, LongAdder> errors = new EnumMap<>(ErrorCode.class);

    ServerRuntime(ServerConfig config) {
        this.config = config;
        // Each session has at most fetchWindow fetches outstanding; beyond this bound, sessions retry.
        int fetchQueueBound = (int) Math.max(16, Math.min(1 << 16, (long) config.maxSessions() * config.fetchWindow()));
        this.fetchQueue = new FetchQueue(config.fetchThreads(), fetchQueueBound);
        Map<String, App> apps = new HashMap<>();
        config.applicationsByPath().forEach((path, app) -> apps.put(path,
                new App(app, new BackendTracker(), fetchQueue)));
        this.appsByPath = Map.copyOf(apps);
        this.random = new SplittableRandom(config.seed());
        this.addressLimits = new AddressLimits(config.maxConnectionsPerAddress(), config.maxHandshakesPerAddress());
        this.refusals = new RefusalLog(config.clock());
        for (ErrorCode c : ErrorCode.values()) {
            errors.put(c, new LongAdder());
        }
        // At most one task per session is queued or running, so the session cap bounds the fair queue;
        // schedule() enforces that bound, and the executor's queue holds at most one dispatch per job waiting.
        this.schedulerQueueBound = config.maxSessions() + 16;
        this.schedulerExecutor = new ThreadPoolExecutor(config.schedulerThreads(), config.schedulerThreads(),
                0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), daemonThreads("khameleon-scheduler"));
        // The fetch queue starts at most fetchThreads fetches at once, so this queue stays short.
        this.fetchExecutor = new ThreadPoolExecutor(config.fetchThreads(), config.fetchThreads(),
                0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(Math.max(16, 2 * config.fetchThreads())),
                daemonThreads("khameleon-fetch"));
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Opens the scheduler flow of a session of the client at {@code address} (an
     * {@link AddressLimits#key}): its jobs share the scheduler with other sessions and addresses
     * ({@link FairJobQueue}). Close it when the session ends.
     */
    FairJobQueue.Flow openFlow(Object address) {
        return schedulerJobs.open(address);
    }

    /**
     * Queues a scheduler job of no connection (all such jobs share one flow).
     *
     * @throws RejectedExecutionException if the executor is shut down or the queue is at its bound
     */
    SchedulerTask schedule(boolean replan, Runnable job) {
        return schedule(replan, nextSchedulerOrder(), noConnection(), task -> job.run());
    }

    /** The next submission order for {@link #schedule(boolean, long, FairJobQueue.Flow, SchedulerTask.Work)}. */
    long nextSchedulerOrder() {
        return schedulerOrder.incrementAndGet();
    }

    /** As {@link #schedule(boolean, long, FairJobQueue.Flow, SchedulerTask.Work)} for a job of no connection. */
    SchedulerTask schedule(boolean replan, long order, Runnable job) {
        return schedule(replan, order, noConnection(), task -> job.run());
    }

    private synchronized FairJobQueue.Flow noConnection() {
        if (noConnection == null) {
            noConnection = schedulerJobs.open(NO_ADDRESS);
        }
        return noConnection;
    }

    /**
     * Queues a job of {@code flow} at {@code order}: a re-plan that replaces a withdrawn one of the
     * same flow passes that one's {@link SchedulerTask#order()} to keep its turn. Jobs share the
     * scheduler threads' time by address and session ({@link FairJobQueue}); the work reports what
     * it cost with {@link SchedulerTask#ranFor}. O(log n) under the queue's lock; never blocks.
     *
     * @throws RejectedExecutionException if the executor is shut down, the queue is at its bound or
     *     the flow is closed
     */
    SchedulerTask schedule(boolean replan, long order, FairJobQueue.Flow flow, SchedulerTask.Work work) {
        if (schedulerExecutor.isShutdown()) {
            // Checked here too: a dispatch left over by a withdrawn job may spare this one the executor.
            throw new RejectedExecutionException("the scheduler is shut down");
        }
        if (schedulerJobs.size() >= schedulerQueueBound) {
            throw new RejectedExecutionException("the scheduler queue is full");
        }
        SchedulerTask task = new SchedulerTask(schedulerJobs, flow, replan, order, work);
        boolean dispatch;
        try {
            dispatch = schedulerJobs.add(task);
        } catch (IllegalStateException e) {
            throw new RejectedExecutionException(e.getMessage());
        }
        if (dispatch) {
            try {
                schedulerExecutor.execute(runNextJob);
            } catch (RejectedExecutionException e) {
                schedulerJobs.dispatchLost(task);
                throw e;
            }
        }
        return task;
    }

    /** One dispatch on a scheduler thread: the job the fair queue names next, if any still waits. */
    private void runNextJob() {
        SchedulerTask t = schedulerJobs.poll();
        if (t != null) {
            try {
                t.run();
            } finally {
                schedulerJobs.ended(t);
            }
        }
    }

    /** Withdraws a queued task that has not started; false if it is running, done or unknown. */
    boolean withdraw(SchedulerTask task) {
        return schedulerJobs.remove(task);
    }

    /** Scheduler jobs waiting per client address; for tests. */
    int waitingJobs(Object address) {
        return schedulerJobs.waiting(address);
    }

    /**
     * Admits connection {@code ch} under the per-address limits: gives it its ticket (freed when it
     * closes) and returns true, or counts and logs the refusal, closes it and returns false.
     */
    boolean admit(Channel ch) {
        AddressLimits.Admission admission = addressLimits.tryOpen(ch.remoteAddress());
        if (admission.ticket() == null) {
            handshakesRefused.increment();
            refusals.log(Level.INFO, "refused connection from " + ch.remoteAddress(), admission.refusal().code,
                    "per-address limit reached");
            ch.close();
            return false;
        }
        AddressLimits.Ticket ticket = admission.ticket();
        ch.attr(AddressLimits.TICKET).set(ticket);
        ch.closeFuture().addListener(f -> ticket.close());
        return true;
    }

    App appAt(String path) {
        return appsByPath.get(path);
    }

    long nanoTime() {
        return config.clock().getAsLong();
    }

    /** A new session id: a counter (for ordering in logs) and random bits (so ids are not guessable). */
    String newSessionId() {
        long r;
        synchronized (random) {
            r = random.nextLong();
        }
        return String.format("%04x%012x", sessionCounter.incrementAndGet() & 0xFFFF, r & 0xFFFF_FFFF_FFFFL);
    }

    /** A scheduler seed for a new session, derived from the server's seed. */
    long newSchedulerSeed() {
        synchronized (random) {
            return random.nextLong();
        }
    }

    /**
     * Registers {@code s}, whose hello announced {@code cacheBlocks} and whose scheduler will hold
     * about {@code schedulerBytes}, if the session cap, the cache-block budget and the scheduler
     * memory budget allow; otherwise changes nothing and says which limit refused it.
     */
    Registration tryRegister(Session s, int cacheBlocks, long schedulerBytes) {
        synchronized (registry) {
            if (draining) {
                sessionsRejected.increment();
                return Registration.DRAINING;
            }
            if (active.get() >= config.maxSessions()) {
                sessionsRejected.increment();
                return Registration.SESSION_CAP;
            }
            if (cacheBlocksInUse + cacheBlocks > config.maxTotalCacheBlocks()) {
                sessionsRejected.increment();
                return Registration.CACHE_BUDGET;
            }
            if (schedulerBytesInUse + schedulerBytes > config.maxSchedulerBytes()) {
                sessionsRejected.increment();
                return Registration.SCHEDULER_BUDGET;
            }
            cacheBlocksInUse += cacheBlocks;
            schedulerBytesInUse += schedulerBytes;
            active.incrementAndGet();
            sessions.put(s.id(), s);
        }
        sessionsOpened.increment();
        return Registration.REGISTERED;
    }

    /** Frees the places {@link #tryRegister} took for {@code s} with {@code cacheBlocks} and {@code schedulerBytes}. */
    void unregister(Session s, int cacheBlocks, long schedulerBytes) {
        synchronized (registry) {
            if (sessions.remove(s.id()) != null) {
                active.decrementAndGet();
                cacheBlocksInUse -= cacheBlocks;
                schedulerBytesInUse -= schedulerBytes;
            }
        }
    }

    /** The estimated scheduler heap of the open sessions, counted against the budget; for tests. */
    long schedulerBytesInUse() {
        synchronized (registry) {
            return schedulerBytesInUse;
        }
    }

    /** Cache blocks announced by the open sessions, counted against the budget; for tests. */
    long cacheBlocksInUse() {
        synchronized (registry) {
            return cacheBlocksInUse;
        }
    }

    private final java.util.concurrent.atomic.LongAdder sessionsResumed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder resumesRefused = new java.util.concurrent.atomic.LongAdder();

    void countError(ErrorCode code) {
        errors.get(code).increment();
    }

    List<Session> sessions() {
        return new ArrayList<>(sessions.values());
    }

    ServerMetrics metrics() {
        Map<String, Long> byCode = new HashMap<>();
        errors.forEach((c, n) -> {
            long v = n.sum();
            if (v > 0) {
                byCode.put(c.wireName(), v);
            }
        });
        long chunks = chunksPlanned.sum();
        return new ServerMetrics(active.get(), sessionsOpened.sum(), sessionsRejected.sum(), handshakesRefused.sum(),
                bytesPushed.sum(), blocksPushed.sum(), blocksSkipped.sum(), replans.sum(), chunks,
                chunks == 0 ? 0 : schedulingNanos.sum() / 1e3 / chunks, byCode, sessionsResumed.sum(),
                resumesRefused.sum());
    }

    /** A hello asking to resume got its session resumed ({@code true}) or a fresh one. */
    void countResume(boolean resumed) {
        (resumed ? sessionsResumed : resumesRefused).increment();
    }

    /**
     * Claims {@code token} for {@code owner}'s resume; false if another open session holds it. One entry
     * per resuming session at most, so the claims are bounded by the sessions.
     */
    boolean claimResumeToken(String token, Object owner) {
        return resumeClaims.putIfAbsent(token, owner) == null;
    }

    /** Gives up {@code owner}'s claim on {@code token}; a claim another owner made since stays. */
    void releaseResumeToken(String token, Object owner) {
        resumeClaims.remove(token, owner);
    }

    /** Issues and checks this server's resume tokens. */
    ResumeTokens resumeTokens() {
        return config.resumeTokens();
    }
}
