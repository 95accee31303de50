package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ResumeRequest;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;

/**
 * A hello that asks to resume, from its token to the welcome: checks the token, collects the
 * manifest (waiting for its {@code resumePart} messages if any), then has the session's scheduler
 * seeded with it on the scheduler executor. Any refusal ends in a fresh session, never in an error.
 * A token resumes one session at a time: from its check until the resumed session's connection
 * closes, it is claimed on this server, and a second resume with it is refused ({@code token_in_use}).
 *
 * <p><b>Threading.</b> Confined to the session's event loop; the seeding runs on the scheduler
 * executor and hands its verdict back through the event loop.
 */
final class ResumeFlow {
    private static final Logger log = LoggerFactory.getLogger(ResumeFlow.class);

    /** What the session does with the flow's outcome; called on the event loop, at most one of the last three. */
    interface Outcome {
        /** The manifest is complete and the scheduler is being seeded. */
        void resuming();

        /** Resumed: the client's ring holds the frames before {@code nextSeq}. */
        void resumed(long nextSeq);

        /** Refused with {@code refusal}: the session starts afresh. */
        void refused(String refusal);

        /** The scheduler no longer runs: the session closes. */
        void close(ErrorCode code, String message);
    }

    private final String id;
    private final ServerRuntime server;
    private final Application application;
    private final int cacheBlocks;
    private final SessionScheduler jobs;
    private final FairJobQueue.Flow flow;
    private final Channel channel;
    private final EventLoop loop;
    private final Outcome outcome;
    /** The token this flow claimed, null before or without a claim. */
    private String claimed;
    private ResumeAssembly assembly;
    private SchedulerTask task;
    private boolean done;

    ResumeFlow(String id, ServerRuntime server, Application application, int cacheBlocks, SessionScheduler jobs,
               FairJobQueue.Flow flow, Channel channel, Outcome outcome) {
        this.id = id;
        this.server = server;
        this.application = application;
        this.cacheBlocks = cacheBlocks;
        this.jobs = jobs;
        this.flow = flow;
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.outcome = outcome;
    }

    /**
     * Starts with the hello's resume request.
     *
     * @return true if the manifest's {@code resumePart} messages are awaited ({@link #onPart})
     */
    boolean start(ResumeRequest r) {
        String refusal = null;
        String detail;
        int blockSize = application.guardedSource().blockSize();
        if (application.guardedScope() != null) {
            refusal = ResumeAssembly.UNSUPPORTED;
            detail = "the application binds requests per session";
        } else {
            ResumeTokens.Verdict v = server.resumeTokens().verify(r.token(), application.path(), cacheBlocks,
                    blockSize);
            if (!v.accepted()) {
                refusal = v.refusal();
                detail = "token refused";
            } else if (!server.claimResumeToken(r.token(), this)) {
                refusal = ResumeTokens.IN_USE;
                detail = "earlier session " + v.sessionId().get() + " was resumed by an open session";
            } else {
                claimed = r.token();
                String token = claimed;
                channel.closeFuture().addListener(f -> server.releaseResumeToken(token, this));
                detail = "earlier session " + v.sessionId().get();
            }
        }
        assembly = new ResumeAssembly(r, cacheBlocks, application.guardedSource().requestCount(), refusal);
        if (assembly.refusal() == null && assembly.awaitingParts()) {
            return true;
        }
        finish(detail);
        return false;
    }

    /** More of the manifest, while {@link #start} said parts are awaited. */
    void onPart(ControlMessage.ResumePart p) {
        if (done) {
            return;
        }
        assembly.add(p.manifest());
        if (assembly.partReceived() || assembly.refusal() != null) {
            finish("");
        }
    }

    /** The session ends or was welcomed: a seeding that has not started is withdrawn, a late verdict ignored. */
    void stop() {
        done = true;
        if (task != null && server.withdraw(task)) {
            task = null;
        }
    }

    private void finish(String detail) {
        ResumeAssembly a = assembly;
        a.complete();
        if (a.refusal() != null) {
            release();
            log.info("session {}: resume refused: {} {} {}", id, a.refusal(), detail, a.detail());
            server.countResume(false);
            done = true;
            outcome.refused(a.refusal());
            return;
        }
        outcome.resuming();
        try {
            task = server.schedule(false, server.nextSchedulerOrder(), flow, t -> {
                String refusal = jobs.resume(a.nextSeq(), a.requestIds(), a.blockIndexes());
                try {
                    loop.execute(() -> onSeeded(a, refusal));
                } catch (RejectedExecutionException e) {
                    log.debug("session {}: event loop gone before the resume result", id);
                }
            });
        } catch (RejectedExecutionException e) {
            done = true;
            outcome.close(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    /** A refused resume starts a fresh session, which does not hold the token. */
    private void release() {
        if (claimed != null) {
            server.releaseResumeToken(claimed, this);
            claimed = null;
        }
    }

    /** The scheduler job seeding the resume ended; {@code refusal} null if it resumed. */
    private void onSeeded(ResumeAssembly a, String refusal) {
        task = null;
        if (done) {
            return;
        }
        done = true;
        server.countResume(refusal == null);
        if (refusal == null) {
            outcome.resumed(a.nextSeq());
        } else {
            release();
            log.info("session {}: resume refused by the scheduler: {}", id, refusal);
            outcome.refused(refusal);
        }
    }
}
