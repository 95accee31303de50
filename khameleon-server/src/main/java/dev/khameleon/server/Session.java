package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ResumeRequest;
import dev.khameleon.server.SessionScheduler.Job;
import dev.khameleon.server.SessionScheduler.Result;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client's session as its channel sees it: the hello, a resume's manifest and the welcome,
 * then the messages that drive its {@link PushController}, whose decisions {@link NettyPort}
 * carries out on the channel (writes, the stall and wake timers) and the shared executors.
 *
 * <p><b>Threading.</b> Everything is confined to the channel's event loop except the jobs, which
 * {@link SessionScheduler} runs on the shared scheduler executor, one job per session at a time,
 * and the fetches, which start on the shared fetch executor and complete back on the event loop.
 * Counters read by {@link #metrics()} are in {@link SessionCounters}, with the event loop as their
 * only writer.
 */
final class Session {
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    /**
     * Where the session is. A hello asking to resume goes through {@code AWAITING_RESUME_PARTS}
     * (while its manifest's {@code resumePart} messages arrive) and {@code RESUMING} (while the
     * scheduler is seeded) before the welcome makes it {@code ACTIVE}.
     */
    private enum Phase { AWAITING_HELLO, AWAITING_RESUME_PARTS, RESUMING, ACTIVE, CLOSING, CLOSED }

    private final String id;
    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final Application application;
    private final GuardedBlockSource source;
    private final ServerConfig config;
    private final Channel channel;
    private final EventLoop loop;
    private final int blockSize;
    /** Null for an application whose request ids mean the same for every session. */
    private final GuardedRequestScope scope;
    private final ChannelPort port;

    // Confined to the event loop.
    private Phase phase = Phase.AWAITING_HELLO;
    private boolean registered;
    /** Runs this session's jobs on the scheduler executor; created by the hello. */
    private SessionScheduler jobs;
    /** The push policy; created by the hello, which gives the ring size. */
    private PushController controller;
    /** The resume's scheduler job while {@code RESUMING}. */
    private SchedulerTask resumeTask;
    private final LoopTimer helloTimer;
    private final LoopTimer tokenTimer;
    /** The accepted hello; null before. */
    private ControlMessage.Hello hello;
    /** The manifest of a resume being collected or checked; null otherwise. */
    private ResumeAssembly resume;

    private final SessionCounters counters;

    Session(ServerRuntime server, ServerRuntime.App app, Channel channel) {
        this.id = server.newSessionId();
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.source = application.guardedSource();
        this.config = server.config;
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.blockSize = source.blockSize();
        this.scope = application.guardedScope();
        this.counters = new SessionCounters(server);
        this.port = new ChannelPort(id, server, channel, counters, this::closeWithError);
        this.helloTimer = new LoopTimer(loop, server::nanoTime, () -> {
            if (phase == Phase.AWAITING_HELLO) {
                closeWithError(ErrorCode.MISSING_HELLO, "no hello within " + config.helloTimeoutMillis() + " ms");
            } else if (phase == Phase.AWAITING_RESUME_PARTS) {
                closeWithError(ErrorCode.MISSING_HELLO, "the hello's resume manifest was not complete within "
                        + config.helloTimeoutMillis() + " ms");
            }
        });
        this.tokenTimer = new LoopTimer(loop, server::nanoTime, this::refreshResumeToken);
    }

    String id() {
        return id;
    }

    // ---------------------------------------------------------------- life cycle (event loop)

    /** The WebSocket handshake is done: the hello must come within the hello timeout. */
    void onHandshakeComplete() {
        if (phase != Phase.AWAITING_HELLO) {
            return;
        }
        helloTimer.armIn(TimeUnit.MILLISECONDS.toNanos(config.helloTimeoutMillis()));
        log.debug("session {}: WebSocket open from {} on {}", id, channel.remoteAddress(), application.path());
    }

    /** A control message from the client, decoded by {@link ControlMessageCodec}. */
    void onMessage(ControlMessage m) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        if (phase == Phase.AWAITING_HELLO) {
            if (m instanceof ControlMessage.Hello h) {
                onHello(h);
            } else {
                closeWithError(ErrorCode.MISSING_HELLO, "the first message must be hello, was " + m.type());
            }
            return;
        }
        if (m instanceof ControlMessage.Hello) {
            closeWithError(ErrorCode.DUPLICATE_HELLO, "hello was already received");
        } else if (m instanceof ControlMessage.ResumePart p) {
            onResumePart(p);
        } else if (phase == Phase.AWAITING_RESUME_PARTS) {
            closeWithError(ErrorCode.INVALID_MESSAGE, "the hello announced more resumePart messages, got " + m.type());
        } else if (m instanceof ControlMessage.PredictionState s) {
            // While resuming, the controller keeps the newest state for its start.
            controller.onState(s.timeMillis(), s.state());
        } else if (m instanceof ControlMessage.RateReport r) {
            controller.onRate(r.bytesPerSecond());
        } else if (m instanceof ControlMessage.RequestEvent r) {
            controller.onRequest(r.timeMillis(), r.requestId());
        } else if (m instanceof ControlMessage.Scope sc) {
            controller.onScope(sc.scope());
        } else if (m instanceof ControlMessage.Bye) {
            log.debug("session {}: client said bye", id);
            closeNormally();
        }
    }

    void onBinary() {
        closeWithError(ErrorCode.UNSUPPORTED_DATA, "clients must not send binary frames");
    }

    private void onHello(ControlMessage.Hello h) {
        if (h.protocol() != Protocol.VERSION) {
            closeWithError(ErrorCode.UNSUPPORTED_VERSION, "this server speaks protocol " + Protocol.VERSION
                    + ", the client asked for " + h.protocol());
            return;
        }
        if (!h.application().equals(application.name())) {
            closeWithError(ErrorCode.UNKNOWN_APPLICATION, "application \"" + h.application()
                    + "\" is not served at " + application.path() + " (it serves \"" + application.name() + "\")");
            return;
        }
        if (h.cacheBlocks() > config.maxCacheBlocks()) {
            closeWithError(ErrorCode.LIMIT_EXCEEDED, "cacheBlocks " + h.cacheBlocks() + " exceeds the server's limit "
                    + config.maxCacheBlocks());
            return;
        }
        boolean accepted;
        try {
            accepted = application.authenticator().accept(h.token());
        } catch (Throwable e) { // user code: an Error must not escape onto the event loop either
            log.debug("session {}: authenticator of {} threw", id, application.name(), e);
            closeWithError(ErrorCode.INTERNAL_ERROR, "the authenticator failed: " + e);
            return;
        }
        if (!accepted) {
            closeWithError(ErrorCode.UNAUTHORIZED, "the token was refused");
            return;
        }
        switch (server.tryRegister(this, h.cacheBlocks())) {
            case SESSION_CAP -> {
                closeWithError(ErrorCode.TOO_MANY_SESSIONS, "the server is at its limit of " + config.maxSessions()
                        + " sessions; try again later");
                return;
            }
            case CACHE_BUDGET -> {
                closeWithError(ErrorCode.TOO_MANY_SESSIONS, "the server's budget of " + config.maxTotalCacheBlocks()
                        + " cache blocks across sessions cannot take " + h.cacheBlocks() + " more; try again later"
                        + " or with a smaller cache");
                return;
            }
            case DRAINING -> {
                closeWithError(ErrorCode.SHUTDOWN, "the server is draining; connect again to reach another one");
                return;
            }
            case REGISTERED -> {
            }
        }
        registered = true;
        hello = h;
        AddressLimits.Ticket ticket = channel.attr(AddressLimits.TICKET).get();
        if (ticket != null) {
            ticket.handshakeDone();
        }
        int cacheBlocks = h.cacheBlocks();
        counters.cacheBlocks(cacheBlocks);
        jobs = new SessionScheduler(server, app, id, cacheBlocks);
        controller = new PushController(id, app, config, counters, cacheBlocks, port);
        port.attach(jobs, controller);
        if (h.resume().isPresent()) {
            startResume(h.resume().get());
        } else {
            welcome(0, Optional.empty(), Optional.empty());
        }
    }

    /** Sends the welcome and starts the session at {@code firstSeq}. */
    private void welcome(long firstSeq, Optional<Boolean> resumed, Optional<String> refused) {
        helloTimer.cancel();
        phase = Phase.ACTIVE;
        resume = null;
        int cacheBlocks = hello.cacheBlocks();
        // An application that binds requests per session cannot resume (its bindings are not in the manifest).
        boolean resumable = scope == null;
        List<String> features = new ArrayList<>(2);
        if (scope != null) {
            features.add(Protocol.FEATURE_SCOPE);
        }
        if (resumable) {
            features.add(Protocol.FEATURE_RESUME);
        }
        Optional<String> token = resumable
                ? Optional.of(server.resumeTokens().issue(id, application.path(), cacheBlocks, blockSize))
                : Optional.empty();
        ControlMessage.Welcome welcome = new ControlMessage.Welcome(Protocol.VERSION, id, application.name(),
                blockSize, source.requestCount(), cacheBlocks, longList(application.horizonsMillis()), firstSeq,
                application.blockCounts(), features, token, resumed, refused);
        channel.writeAndFlush(welcome);
        if (resumable && (hello.supports(Protocol.FEATURE_RESUME) || hello.resume().isPresent())) {
            tokenTimer.armIn(TimeUnit.MILLISECONDS.toNanos(server.resumeTokens().ttlMillis() / 2));
        }
        log.info("session {}: {} opened by {}, cache {} blocks{}", id, application.name(), channel.remoteAddress(),
                cacheBlocks, resumed.isEmpty() ? "" : resumed.get() ? ", resumed at sequence number " + firstSeq
                        : ", resume refused (" + refused.orElse("") + "), starting afresh");
        controller.start();
    }

    // ---------------------------------------------------------------- resume (event loop)

    /**
     * The hello asks to resume: checks the token and collects the manifest (waiting for its
     * {@code resumePart} messages if any), then has the scheduler seeded. Any refusal ends in a
     * fresh session, never in an error.
     */
    private void startResume(ResumeRequest r) {
        String refusal = null;
        String detail = "";
        if (scope != null) {
            refusal = ResumeAssembly.UNSUPPORTED;
            detail = "the application binds requests per session";
        } else {
            ResumeTokens.Verdict v = server.resumeTokens().verify(r.token(), application.path(), hello.cacheBlocks(),
                    blockSize);
            if (!v.accepted()) {
                refusal = v.refusal();
                detail = "token refused";
            } else {
                detail = "earlier session " + v.sessionId().get();
            }
        }
        resume = new ResumeAssembly(r, hello.cacheBlocks(), source.requestCount(), refusal);
        if (resume.refusal() == null && resume.awaitingParts()) {
            phase = Phase.AWAITING_RESUME_PARTS;
            return;
        }
        finishResume(detail);
    }

    /**
     * More of the manifest. After the welcome (a resume refused before its parts came) it is
     * ignored, so that a refusal never turns into an error.
     */
    private void onResumePart(ControlMessage.ResumePart p) {
        if (phase != Phase.AWAITING_RESUME_PARTS) {
            return;
        }
        resume.add(p.manifest());
        if (resume.partReceived() || resume.refusal() != null) {
            finishResume("");
        }
    }

    private void finishResume(String detail) {
        ResumeAssembly a = resume;
        a.complete();
        if (a.refusal() != null) {
            log.info("session {}: resume refused: {} {} {}", id, a.refusal(), detail, a.detail());
            server.countResume(false);
            welcome(0, Optional.of(false), Optional.of(a.refusal()));
            return;
        }
        phase = Phase.RESUMING;
        try {
            resumeTask = server.schedule(false, () -> {
                String refusal = jobs.resume(a.nextSeq(), a.requestIds(), a.blockIndexes());
                try {
                    loop.execute(() -> onResumed(a, refusal));
                } catch (RejectedExecutionException e) {
                    log.debug("session {}: event loop gone before the resume result", id);
                }
            });
        } catch (RejectedExecutionException e) {
            closeWithError(ErrorCode.SHUTDOWN, "the scheduler is no longer running");
        }
    }

    /** The scheduler job seeding the resume ended; {@code refusal} null if it resumed. */
    private void onResumed(ResumeAssembly a, String refusal) {
        resumeTask = null;
        if (phase != Phase.RESUMING) {
            return;
        }
        server.countResume(refusal == null);
        if (refusal == null) {
            controller.startAt(a.nextSeq());
            welcome(a.nextSeq(), Optional.of(true), Optional.empty());
        } else {
            log.info("session {}: resume refused by the scheduler: {}", id, refusal);
            welcome(0, Optional.of(false), Optional.of(refusal));
        }
    }

    /** Sends a fresh resume token before the last one expires, every half time to live. */
    private void refreshResumeToken() {
        if (phase != Phase.ACTIVE) {
            return;
        }
        channel.writeAndFlush(new ControlMessage.ResumeToken(server.resumeTokens().issue(id, application.path(),
                hello.cacheBlocks(), blockSize)));
        tokenTimer.armIn(TimeUnit.MILLISECONDS.toNanos(server.resumeTokens().ttlMillis() / 2));
    }

    private static List<Long> longList(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    /**
     * Writable again: resume sending. Unwritable: whatever the phase (before the hello too, when
     * only a welcome or pongs are queued), a client that does not read for the stall timeout is
     * closed.
     */
    void onWritabilityChanged() {
        port.onWritabilityChanged(phase == Phase.CLOSING || phase == Phase.CLOSED);
    }

    void onIdle() {
        closeWithError(ErrorCode.IDLE_TIMEOUT, "no message from the client for " + config.readIdleTimeoutMillis()
                + " ms");
    }

    /** Asks the session, from any thread, to close with {@code shutdown}. */
    void requestShutdown() {
        requestShutdown("the server is shutting down");
    }

    /** Closes this session with {@code shutdown} and {@code reason}, from any thread. */
    void requestShutdown(String reason) {
        try {
            loop.execute(() -> closeWithError(ErrorCode.SHUTDOWN, reason));
        } catch (RejectedExecutionException e) {
            channel.close();
        }
    }

    /** Completes when the connection is closed. */
    io.netty.util.concurrent.Future<Void> closeFuture() {
        return channel.closeFuture();
    }

    /** The WebSocket layer closed the connection for a protocol violation (e.g. an oversized frame). */
    void onProtocolViolation(ErrorCode code, String message) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        server.refusals.log(Level.WARN, "session " + id + " from " + channel.remoteAddress(), code.wireName(),
                "closed by the WebSocket layer (" + code.closeStatus() + "): " + message);
        server.countError(code);
        stop(Phase.CLOSING);
    }

    /** Logs and closes the session with {@code code}: an error message, then a close frame. */
    void closeWithError(ErrorCode code, String message) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        Level level = code == ErrorCode.SHUTDOWN || code == ErrorCode.IDLE_TIMEOUT ? Level.INFO : Level.WARN;
        server.refusals.log(level, "session " + id + " from " + channel.remoteAddress(), code.wireName(),
                "closing (" + code.closeStatus() + "): " + message);
        server.countError(code);
        stop(Phase.CLOSING);
        if (channel.isActive()) {
            channel.write(ControlMessage.ErrorMessage.of(code, message));
            sendClose(new CloseWebSocketFrame(code.closeStatus(), code.wireName()));
        }
    }

    private void closeNormally() {
        stop(Phase.CLOSING);
        if (channel.isActive()) {
            sendClose(new CloseWebSocketFrame(1000, "bye"));
        }
    }

    /**
     * Writes the close frame; on a socket, {@link CloseHandshakeHandler} closes the connection when the
     * client answers it (see there why not sooner), elsewhere it is closed once the frame is written.
     * Either way, a client that neither reads nor answers is closed after the close timeout.
     */
    private void sendClose(CloseWebSocketFrame frame) {
        ChannelFuture written = channel.writeAndFlush(frame);
        if (channel.pipeline().get(CloseHandshakeHandler.class) == null) {
            written.addListener(ChannelFutureListener.CLOSE);
        } else {
            written.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
        loop.schedule(() -> {
            channel.close();
        }, config.closeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    void onInactive() {
        boolean wasOpen = phase == Phase.ACTIVE || phase == Phase.CLOSING;
        stop(Phase.CLOSED);
        if (registered) {
            server.unregister(this, counters.cacheBlocks());
            registered = false;
        }
        if (wasOpen) {
            log.info("session {}: closed after {} blocks ({} bytes), {} skipped, {} re-plans", id,
                    counters.blocksPushed(), counters.bytesPushed(), counters.blocksSkipped(), counters.replans());
        }
    }

    private void stop(Phase next) {
        phase = next;
        port.stop();
        helloTimer.cancel();
        tokenTimer.cancel();
        if (controller != null) {
            controller.stop();
        }
        if (resumeTask != null && server.withdraw(resumeTask)) {
            resumeTask = null;
        }
    }

    // ---------------------------------------------------------------- metrics (any thread)

    /** The rate the sender is paced at now (estimate × pacing gain), bytes per second; for tests. */
    double pacingBytesPerSecond() {
        return counters.pacingRate();
    }

    /** The pacer's burst at {@code rate}: the most it admits at once; for tests. */
    double pacingBurstBytes(double rate) {
        return Pacer.burstBytes(rate, controller.minBurstBytes());
    }

    SessionMetrics metrics() {
        PushController c = controller;
        return counters.snapshot(id, application.name(), String.valueOf(channel.remoteAddress()),
                c == null ? 0 : c.nextSeq());
    }
}
