package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ResumeRequest;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The last handler of a WebSocket connection until the welcome: owns the hello (within
 * {@code helloTimeout} of the handshake, checked by {@link Hellos}), a resume's manifest
 * ({@link ResumeFlow}) and the welcome, then replaces itself with the {@link PushHandler}. While a
 * resume is seeded, states, rate reports and request events go to the session's controller, which
 * holds them for its start. Runs on the channel's event loop.
 */
final class HelloHandler extends SessionHandler implements ResumeFlow.Outcome {
    private static final Logger log = LoggerFactory.getLogger(HelloHandler.class);

    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final ScheduledFuture<?> handshakeTimer;
    private ChannelHandlerContext ctx;
    private LoopTimer helloTimer;
    /** The accepted hello; null before. */
    private ControlMessage.Hello hello;
    /** The resume being collected or checked; null if none. */
    private ResumeFlow resume;

    /**
     * @param handshakeTimer the gate's handshake timer, cancelled when the handshake completes;
     *                       null if there is none (tests)
     */
    HelloHandler(ServerRuntime server, ServerRuntime.App app, ScheduledFuture<?> handshakeTimer) {
        this.server = server;
        this.app = app;
        this.handshakeTimer = handshakeTimer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        session = new Session(server, app, ctx.channel());
        long timeoutMillis = server.config.helloTimeoutMillis();
        helloTimer = new LoopTimer(ctx.channel().eventLoop(), server::nanoTime, () -> {
            if (session.phase() == Session.Phase.AWAITING_HELLO) {
                session.closeWithError(ErrorCode.MISSING_HELLO, "no hello within " + timeoutMillis + " ms");
            } else if (session.phase() == Session.Phase.AWAITING_RESUME_PARTS) {
                session.closeWithError(ErrorCode.MISSING_HELLO, "the hello's resume manifest was not complete within "
                        + timeoutMillis + " ms");
            }
        });
        session.onStop(this::stop);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            cancelHandshakeTimer();
            if (session.phase() == Session.Phase.AWAITING_HELLO) {
                helloTimer.armIn(TimeUnit.MILLISECONDS.toNanos(server.config.helloTimeoutMillis()));
                log.debug("session {}: WebSocket open from {} on {}", session.id(), ctx.channel().remoteAddress(),
                        app.application().path());
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelHandshakeTimer();
        super.channelInactive(ctx);
    }

    private void cancelHandshakeTimer() {
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
    }

    @Override
    void onMessage(ChannelHandlerContext ctx, ControlMessage m) {
        Session.Phase phase = session.phase();
        if (phase == Session.Phase.AWAITING_HELLO) {
            if (m instanceof ControlMessage.Hello h) {
                onHello(h);
            } else {
                session.closeWithError(ErrorCode.MISSING_HELLO, "the first message must be hello, was " + m.type());
            }
        } else if (m instanceof ControlMessage.Hello) {
            session.closeWithError(ErrorCode.DUPLICATE_HELLO, "hello was already received");
        } else if (phase == Session.Phase.AWAITING_RESUME_PARTS) {
            if (m instanceof ControlMessage.ResumePart p) {
                resume.onPart(p);
            } else {
                session.closeWithError(ErrorCode.INVALID_MESSAGE, "the hello announced more resumePart messages, got "
                        + m.type());
            }
        } else if (m instanceof ControlMessage.ResumePart) {
            // The manifest is complete and being seeded: a late part is ignored.
            return;
        } else if (session.controller().onMessage(m)) {
            // While the resume is seeded the controller keeps the newest state for its start.
            return;
        } else if (m instanceof ControlMessage.Bye) {
            session.closeNormally();
        }
    }

    private void onHello(ControlMessage.Hello h) {
        Hellos.Refusal refusal = Hellos.check(h, app.application(), server.config, session.id());
        if (refusal != null) {
            session.closeWithError(refusal.code(), refusal.message());
            return;
        }
        SessionScheduler jobs = session.register(h);
        if (jobs == null) {
            return;
        }
        hello = h;
        if (h.resume().isPresent()) {
            startResume(h.resume().get(), jobs);
        } else {
            welcome(0, Optional.empty(), Optional.empty());
        }
    }

    /** The hello asks to resume: a {@link ResumeFlow} collects and checks its manifest, then welcomes. */
    private void startResume(ResumeRequest r, SessionScheduler jobs) {
        resume = new ResumeFlow(session.id(), server, app.application(), hello.cacheBlocks(), jobs,
                session.flow(), ctx.channel(), this);
        if (resume.start(r)) {
            session.setPhase(Session.Phase.AWAITING_RESUME_PARTS);
        }
    }

    @Override
    public void resuming() {
        session.setPhase(Session.Phase.RESUMING);
    }

    @Override
    public void resumed(long nextSeq) {
        session.controller().startAt(nextSeq);
        welcome(nextSeq, Optional.of(true), Optional.empty());
    }

    @Override
    public void refused(String refusal) {
        welcome(0, Optional.of(false), Optional.of(refusal));
    }

    @Override
    public void close(ErrorCode code, String message) {
        session.closeWithError(code, message);
    }

    /** Welcomes the client at {@code firstSeq} and hands the connection to the {@link PushHandler}. */
    private void welcome(long firstSeq, Optional<Boolean> resumed, Optional<String> refused) {
        stop();
        session.onStop(() -> { });
        ctx.pipeline().replace(this, ctx.name(), new PushHandler(session));
        session.welcome(hello, firstSeq, resumed, refused);
    }

    /** The hello phase ends: its timer and any resume stop. */
    private void stop() {
        helloTimer.cancel();
        cancelHandshakeTimer();
        if (resume != null) {
            resume.stop();
            resume = null;
        }
    }
}
