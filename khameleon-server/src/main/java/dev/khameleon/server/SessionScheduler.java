package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.server.spi.SchedulerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * One session's scheduler and binding table, and the jobs that use them: decoding a state,
 * applying a scope, re-planning and planning the next chunk. The session's event loop decides
 * each {@link Job} and applies its {@link Result}; the job itself runs here, on the shared
 * scheduler executor, so the event loop never waits for the scheduler.
 *
 * <p><b>Threading.</b> Confined to the session's jobs: at most one runs at a time, and each is
 * handed over through the executor and back through the event loop, which orders their effects.
 */
final class SessionScheduler {
    private static final Logger log = LoggerFactory.getLogger(SessionScheduler.class);

    /**
     * What the scheduler task is to do: tell the scheduler the block counts learned since the last
     * job ({@code toldCounts}, see {@link LazyCountTable#drainTold}; may be empty), decode
     * {@code state} if present, re-plan from {@code replanFrom} if {@code >= 0} (with the decoded
     * distribution, else {@code current}), then plan up to {@code maxBlocks} slots. A
     * {@code scope}, if present, is applied at {@code replanFrom}.
     */
    record Job(HeldJson state, Distribution current, long replanFrom, double slotMillis, int maxBlocks,
               long stateArrivalNanos, long stateArrivalSeq, HeldJson scope, long[] toldCounts) {
    }

    /**
     * What a job did; {@code error} non-null if the session must close. For an application with a
     * request scope, {@code rebind} are the encoded {@code rebind} messages for the ids the job's
     * scope rebound (empty if none) and {@code annotation} what each slot of the chunk answers;
     * both null otherwise.
     */
    record Result(Job job, Distribution installed, long replanFrom, ScheduleChunk chunk, long nanos,
                  ErrorCode error, String message, List<String> rebind, BindingTable.Annotation annotation) {
    }

    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final Application application;
    private final GuardedBlockSource source;
    /** Null for an application whose request ids mean the same for every session. */
    private final GuardedRequestScope scope;
    private final String sessionId;
    private final int cacheBlocks;

    private Scheduler scheduler;
    private BindingTable bindings;

    /**
     * @param sessionId   for logs
     * @param cacheBlocks {@code C} from the session's hello
     */
    SessionScheduler(ServerRuntime server, ServerRuntime.App app, String sessionId, int cacheBlocks) {
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.source = application.guardedSource();
        this.scope = application.guardedScope();
        this.sessionId = sessionId;
        this.cacheBlocks = cacheBlocks;
    }

    private long now() {
        return server.nanoTime();
    }

    /**
     * Runs {@code job}; scheduler executor only, one job at a time. Always returns a
     * result: the guarded SPIs turn anything user code throws, {@code Error}s included, into a
     * {@link ProtocolException} that becomes an error result closing only this session (logged
     * once, by the session); without a result the session would wait for its job
     * forever, and the scheduler thread lives on.
     */
    Result run(Job job) {
        if (scheduler == null) {
            try {
                // Creation is O(n) once per session; it is not counted as scheduling time per chunk.
                scheduler = application.guardedSchedulerFactory().create(schedulerContext());
            } catch (ProtocolException e) {
                return error(job, now(), e.code(), e.getMessage());
            }
        }
        long t0 = now();
        try {
            for (long told : job.toldCounts()) {
                scheduler.blockCountKnown(LazyCountTable.requestId(told), LazyCountTable.count(told));
            }
            Distribution installed = job.state() == null ? null : application.guardedPredictor().decode(job.state().tree());
            BindingTable.Changes rebound = job.scope() == null ? null : applyScope(job.scope().tree());
            long from = -1;
            Distribution d = installed != null ? installed : job.current();
            // Without any distribution yet (waitForState) nothing was planned: a scope alone has nothing to re-plan.
            if (job.replanFrom() >= 0 && d != null) {
                from = Math.min(job.replanFrom(), scheduler.nextSeq());
                scheduler.replan(d, from, job.slotMillis());
                if (rebound != null && !rebound.isEmpty()) {
                    scheduler.invalidate(rebound.requestIds());
                }
            }
            ScheduleChunk chunk = scheduler.next(job.maxBlocks());
            if (!chunk.isEmpty()) {
                source.prefetch(chunk);
            }
            return new Result(job, installed, from, chunk, now() - t0, null, null,
                    rebound == null ? null : rebound.messages(), bindings == null ? null : bindings.annotate(chunk));
        } catch (ProtocolException e) {
            return error(job, t0, e.code(), e.getMessage());
        } catch (Throwable e) { // a bug of ours, not user code (that is guarded): still close only this session
            log.warn("session {}: scheduler job failed", sessionId, e);
            return error(job, t0, ErrorCode.INTERNAL_ERROR, "scheduler failed: " + e);
        }
    }

    /**
     * Creates the scheduler and seeds it with a resumed client's ring ({@link Scheduler#resume});
     * scheduler executor only, before any {@link #run}.
     *
     * @return null if the scheduler resumed at {@code nextSeq}; else the refusal code, and the
     *     scheduler is dropped so that the next job starts a fresh one
     */
    String resume(long nextSeq, int[] requestIds, int[] blockIndexes) {
        try {
            if (scheduler == null) {
                scheduler = application.guardedSchedulerFactory().create(schedulerContext());
            }
            if (scheduler.resume(nextSeq, requestIds, blockIndexes)) {
                return null;
            }
            scheduler = null;
            return ResumeAssembly.UNSUPPORTED;
        } catch (IllegalArgumentException e) {
            log.debug("session {}: resume manifest refused: {}", sessionId, e.getMessage());
            scheduler = null;
            return ResumeAssembly.MANIFEST_INCONSISTENT;
        } catch (RuntimeException e) { // the guarded scheduler's internal_error
            log.debug("session {}: the scheduler could not resume", sessionId, e);
            scheduler = null;
            return ResumeAssembly.UNSUPPORTED;
        }
    }

    private Result error(Job job, long t0, ErrorCode code, String message) {
        return new Result(job, null, -1, ScheduleChunk.empty(0), now() - t0, code, message, null, null);
    }

    /**
     * Decodes a client scope with the application's {@link RequestScope} and makes it the
     * session's bindings; scheduler task only.
     *
     * @throws ProtocolException as {@link GuardedRequestScope#decode} or {@link BindingTable#apply}
     */
    private BindingTable.Changes applyScope(JsonNode clientScope) {
        if (bindings == null) {
            bindings = new BindingTable(source.requestCount(), application.maxBoundRequests());
        }
        return bindings.apply(scope.decode(clientScope));
    }

    private SchedulerContext schedulerContext() {
        BackendTracker backend = app.backend();
        // The scheduler calls the source's own blockCount: a throw there is the guarded scheduler's failure.
        return new SchedulerContext(cacheBlocks, source.requestCount(), application.blockSource()::blockCount,
                application.utility(), application.schedulerSettings(), server.newSchedulerSeed(),
                application.backendConcurrency(), backend::inFlight, backend::isFetching,
                application::isBlockCountBound);
    }
}
