package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ResumeRequest;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client's session as its channel sees it: the hello, a resume's manifest and the welcome,
 * then the messages that drive its {@link PushController}, whose decisions {@link ChannelPort}
 * carries out on the channel (writes, the stall and wake timers, the close) and the shared executors.
 *
 * <p><b>Threading.</b> Everything is confined to the channel's event loop except the jobs, which
 * {@link SessionScheduler} runs on the shared scheduler executor, one job per session at a time,
 * and the fetches, which start on the shared fetch executor and complete back on the event loop.
 * Counters read by {@link #metrics()} are in {@link SessionCounters}, with the event loop as their
 * only writer.
 */
final class Session implements ResumeFlow.Outcome {
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
    private final ServerConfig config;
    private final Channel channel;
    private final ChannelPort port;

    private Phase phase = Phase.AWAITING_HELLO;
    private boolean registered;
    /** The push policy; created by the hello, which gives the ring size. */
    private PushController controller;
    private final LoopTimer helloTimer;
    /** The resume tokens after the welcome; null before. */
    private ResumeTokenRefresh tokens;
    /** The accepted hello; null before. */
    private ControlMessage.Hello hello;
    /** The resume being collected or checked; null if none. */
    private ResumeFlow resume;

    private final SessionCounters counters;

    Session(ServerRuntime server, ServerRuntime.App app, Channel channel) {
        this.id = server.newSessionId();
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.config = server.config;
        this.channel = channel;
        this.counters = new SessionCounters(server);
        this.port = new ChannelPort(id, server, channel, counters, this::closeWithError);
        this.helloTimer = new LoopTimer(channel.eventLoop(), server::nanoTime, () -> {
            if (phase == Phase.AWAITING_HELLO) {
                closeWithError(ErrorCode.MISSING_HELLO, "no hello within " + config.helloTimeoutMillis() + " ms");
            } else if (phase == Phase.AWAITING_RESUME_PARTS) {
                closeWithError(ErrorCode.MISSING_HELLO, "the hello's resume manifest was not complete within "
                        + config.helloTimeoutMillis() + " ms");
            }
        });
    }

    String id() {
        return id;
    }

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
            if (phase == Phase.AWAITING_RESUME_PARTS) {
                // After the welcome (a resume refused before its parts came) a part is ignored, so
                // that a refusal never turns into an error.
                resume.onPart(p);
            }
        } else if (phase == Phase.AWAITING_RESUME_PARTS) {
            closeWithError(ErrorCode.INVALID_MESSAGE, "the hello announced more resumePart messages, got " + m.type());
        } else if (controller.onMessage(m)) {
            return;
        } else if (m instanceof ControlMessage.Bye) {
            log.debug("session {}: client said bye", id);
            closeNormally();
        }
    }

    void onBinary() {
        closeWithError(ErrorCode.UNSUPPORTED_DATA, "clients must not send binary frames");
    }

    private void onHello(ControlMessage.Hello h) {
        Hellos.Refusal refusal = Hellos.check(h, application, config, id);
        if (refusal == null) {
            refusal = Hellos.registration(server.tryRegister(this, h.cacheBlocks()), config, h.cacheBlocks());
        }
        if (refusal != null) {
            closeWithError(refusal.code(), refusal.message());
            return;
        }
        registered = true;
        hello = h;
        AddressLimits.Ticket ticket = channel.attr(AddressLimits.TICKET).get();
        if (ticket != null) {
            ticket.handshakeDone();
        }
        int cacheBlocks = h.cacheBlocks();
        counters.cacheBlocks(cacheBlocks);
        SessionScheduler jobs = new SessionScheduler(server, app, id, cacheBlocks);
        controller = new PushController(id, app, config, counters, cacheBlocks, port);
        port.attach(jobs, controller);
        if (h.resume().isPresent()) {
            startResume(h.resume().get(), jobs);
        } else {
            welcome(0, Optional.empty(), Optional.empty());
        }
    }

    /** Sends the welcome and starts the session at {@code firstSeq}. */
    private void welcome(long firstSeq, Optional<Boolean> resumed, Optional<String> refused) {
        helloTimer.cancel();
        phase = Phase.ACTIVE;
        if (resume != null) {
            resume.stop();
            resume = null;
        }
        int cacheBlocks = hello.cacheBlocks();
        tokens = new ResumeTokenRefresh(server, channel, id, application, cacheBlocks);
        Optional<String> token = tokens.first(hello.supports(Protocol.FEATURE_RESUME) || hello.resume().isPresent());
        channel.writeAndFlush(Hellos.welcome(application, id, cacheBlocks, firstSeq, token, resumed, refused));
        log.info("session {}: {} opened by {}, cache {} blocks{}", id, application.name(), channel.remoteAddress(),
                cacheBlocks, resumed.isEmpty() ? "" : resumed.get() ? ", resumed at sequence number " + firstSeq
                        : ", resume refused (" + refused.orElse("") + "), starting afresh");
        controller.start();
    }

    /** The hello asks to resume: a {@link ResumeFlow} collects and checks its manifest, then welcomes. */
    private void startResume(ResumeRequest r, SessionScheduler jobs) {
        resume = new ResumeFlow(id, server, application, hello.cacheBlocks(), jobs, channel.eventLoop(), this);
        if (resume.start(r)) {
            phase = Phase.AWAITING_RESUME_PARTS;
        }
    }

    @Override
    public void resuming() {
        phase = Phase.RESUMING;
    }

    @Override
    public void resumed(long nextSeq) {
        controller.startAt(nextSeq);
        welcome(nextSeq, Optional.of(true), Optional.empty());
    }

    @Override
    public void refused(String refusal) {
        welcome(0, Optional.of(false), Optional.of(refusal));
    }

    @Override
    public void close(ErrorCode code, String message) {
        closeWithError(code, message);
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

    /** Closes this session with {@code shutdown} and {@code reason}, from any thread. */
    void requestShutdown(String reason) {
        try {
            channel.eventLoop().execute(() -> closeWithError(ErrorCode.SHUTDOWN, reason));
        } catch (RejectedExecutionException e) {
            channel.close();
        }
    }

    /** The session's connection; for tests. */
    Channel channel() {
        return channel;
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
        port.logClosed(code, message, true);
        stop(Phase.CLOSING);
    }

    /** Logs and closes the session with {@code code}: an error message, then a close frame. */
    void closeWithError(ErrorCode code, String message) {
        if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
            return;
        }
        port.logClosed(code, message, false);
        stop(Phase.CLOSING);
        port.sendClose(code, message);
    }

    private void closeNormally() {
        stop(Phase.CLOSING);
        port.sendClose(null, "bye");
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
        if (tokens != null) {
            tokens.stop();
        }
        if (controller != null) {
            controller.stop();
        }
        if (resume != null) {
            resume.stop();
        }
    }

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
