package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.server.SessionScheduler.Job;
import dev.khameleon.server.SessionScheduler.Result;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * One session of a {@link KhameleonServer} without a connection, on the caller's clock: the very
 * push policy a socket session runs (planning and re-planning, the fetch window, back-offs, the
 * pacer, the lazy-count rules), the session's scheduler jobs and its block source, driven by the
 * caller's events instead of a channel. For simulators and tests: what comes out is the server's
 * behaviour, with only the network and the clock replaced.
 *
 * <p>The server must be built with {@link KhameleonServer.Builder#clock} reading the caller's
 * virtual clock; it need not be started. A scheduler job runs at once on the caller's thread and
 * its result is applied {@link Host#jobNanos} later on the virtual clock; a block source that does
 * not complete its fetches at once is called on the caller's thread too.
 *
 * <p><b>Threading.</b> Confined to the caller's thread: every method, and every {@link Host} call,
 * is on it. Not reusable after {@link #close()}.
 */
public final class VirtualSession implements AutoCloseable {
    /** The simulated connection and clock, as the session sees them. Called on the caller's thread. */
    public interface Host {
        /** Runs {@code task} at {@code atNanos} on the virtual clock, which never goes back. */
        void at(long atNanos, Runnable task);

        /**
         * Whether a block frame written now would go out without the connection's outbound window
         * being full; when it was false, the host calls {@link VirtualSession#onWritable()} once it
         * is true again.
         */
        boolean isWritable();

        /** Block frame {@code seq}, of {@code frameBytes} bytes on the wire, is written now. */
        void send(long seq, Block block, int frameBytes);

        /**
         * How long on the virtual clock a scheduler job takes that took {@code measuredNanos} on
         * the caller's CPU, decoded a state or not, and planned {@code blocks} slots: the time from
         * its submission to its result.
         */
        long jobNanos(long measuredNanos, boolean decodedState, int blocks);

        /** The server closed the session with {@code code}; nothing more is sent. */
        void closed(ErrorCode code, String message);
    }

    private final Host host;
    private final ServerRuntime runtime;
    private final SessionScheduler jobs;
    private final PushController controller;
    private final SessionCounters counters;
    private final String id;
    private final Port port = new Port();
    private boolean closed;

    private VirtualSession(ServerRuntime runtime, ServerRuntime.App app, int cacheBlocks, Host host) {
        this.host = host;
        this.runtime = runtime;
        this.id = runtime.newSessionId();
        this.counters = new SessionCounters(runtime);
        counters.cacheBlocks(cacheBlocks);
        this.jobs = new SessionScheduler(runtime, app, id, cacheBlocks);
        this.controller = new PushController(id, app, runtime.config, counters, cacheBlocks, port);
    }

    /**
     * Opens a session of {@code server}'s application at {@code path} for a client with a ring of
     * {@code cacheBlocks} blocks, as if its hello had just been welcomed, and starts pushing.
     *
     * @throws IllegalArgumentException if no application is at {@code path}, or {@code cacheBlocks}
     *     is not in {@code [1, maxCacheBlocks]}
     */
    public static VirtualSession open(KhameleonServer server, String path, int cacheBlocks, Host host) {
        Objects.requireNonNull(host, "host");
        ServerRuntime rt = server.runtime();
        ServerRuntime.App app = rt.appAt(path);
        if (app == null) {
            throw new IllegalArgumentException("no application at " + path + "; the server has "
                    + rt.appsByPath.keySet());
        }
        if (cacheBlocks < 1 || cacheBlocks > rt.config.maxCacheBlocks()) {
            throw new IllegalArgumentException("cacheBlocks must be in [1, " + rt.config.maxCacheBlocks() + "], was "
                    + cacheBlocks);
        }
        VirtualSession s = new VirtualSession(rt, app, cacheBlocks, host);
        s.controller.start();
        return s;
    }

    /** A prediction state from the client, made at the client's {@code timeMillis}, arrives now. */
    public void onState(long timeMillis, JsonNode state) {
        controller.onState(timeMillis, state);
    }

    /** A receive-rate report from the client arrives now. */
    public void onRate(ControlMessage.RateReport report) {
        controller.onRate(report);
    }

    /**
     * A request event from the client arrives now; {@code miss}: the client had no block of it, so
     * its fetches go ahead of speculative ones.
     */
    public void onRequest(long timeMillis, int requestId, boolean miss) {
        controller.onRequest(timeMillis, requestId, miss);
    }

    /** The connection is writable again (see {@link Host#isWritable()}). */
    public void onWritable() {
        controller.onWritable();
    }

    /** The bytes of one block frame on the wire. */
    public int frameBytes() {
        return controller.frameBytes();
    }

    /** The server's low water mark: a host models the channel writable again below it. */
    public int writeBufferLowBytes() {
        return runtime.config.writeBufferLowBytes();
    }

    /** The server's high water mark: a host models the channel unwritable above it. */
    public int writeBufferHighBytes() {
        return runtime.config.writeBufferHighBytes();
    }

    /** Block frames written so far; the sequence number of the next one. */
    public long nextSeq() {
        return controller.nextSeq();
    }

    /** The session's counters so far. */
    public SessionMetrics metrics() {
        return counters.snapshot(id, "virtual", "virtual", controller.nextSeq());
    }

    /** Ends the session: nothing more is planned, fetched or sent. Idempotent. */
    @Override
    public void close() {
        closed = true;
        controller.stop();
    }

    /** Carries out the controller's decisions on the host's clock; a job runs at once, its result later. */
    private final class Port implements PushPort {
        private long wakeDeadline = Long.MAX_VALUE;
        private long wakeToken;

        @Override
        public boolean submit(Job job, boolean replan, long order) {
            long t0 = System.nanoTime();
            Result r = jobs.run(job);
            long took = System.nanoTime() - t0;
            long charge = Math.max(0, host.jobNanos(took, job.state() != null, r.chunk().size()));
            host.at(now() + charge, () -> controller.onResult(r));
            return true;
        }

        @Override
        public long withdraw() {
            // A job starts as it is submitted: one session never waits for a scheduler thread.
            return PushPort.NOT_WITHDRAWN;
        }

        @Override
        public boolean isWritable() {
            return host.isWritable();
        }

        @Override
        public void write(long seq, Block block, int generation) {
            host.send(seq, block, controller.frameBytes());
        }

        @Override
        public void writeControl(List<String> messages) {
            // Rebind messages take no room worth modelling next to block frames.
        }

        @Override
        public void flush() {
        }

        @Override
        public void blocked() {
        }

        @Override
        public void wakeAt(long atNanos) {
            if (wakeDeadline <= atNanos && wakeDeadline >= now()) {
                return;
            }
            wakeDeadline = atNanos;
            long token = ++wakeToken;
            host.at(Math.max(now(), atNanos), () -> {
                if (token == wakeToken) {
                    wakeDeadline = Long.MAX_VALUE;
                    if (!closed) {
                        controller.onWake();
                    }
                }
            });
        }

        @Override
        public void close(ErrorCode code, String message) {
            if (!closed) {
                VirtualSession.this.close();
                host.closed(code, message);
            }
        }

        @Override
        public Executor loop() {
            return task -> host.at(now(), task);
        }

        @Override
        public Executor fetchExecutor() {
            return Runnable::run;
        }

        @Override
        public Runnable schedule(long delayNanos, Runnable task) {
            boolean[] cancelled = new boolean[1];
            host.at(now() + Math.max(0, delayNanos), () -> {
                if (!cancelled[0]) {
                    task.run();
                }
            });
            return () -> cancelled[0] = true;
        }

        private long now() {
            return runtime.nanoTime();
        }
    }
}
