package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;

/**
 * One client's session: what its connection's handlers share from the hello to the close — its
 * registration with the server, its {@link PushController} and the {@link ChannelPort} that carries
 * the controller's decisions out on the channel, its counters, and the close. {@link HelloHandler}
 * drives it until the welcome, {@link PushHandler} afterwards.
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
    enum Phase { AWAITING_HELLO, AWAITING_RESUME_PARTS, RESUMING, ACTIVE, CLOSING, CLOSED }

    private final String id;
    private final ServerRuntime server;
    private final ServerRuntime.App app;
    private final Application application;
    private final Channel channel;
    private final ChannelPort port;
    private final SessionCounters counters;

    private Phase phase = Phase.AWAITING_HELLO;
    private boolean registered;
    /** The scheduler heap this session was charged at registration (SchedulerFootprint). */
    private long schedulerBytes;
    /** The push policy; created by the hello, which gives the ring size. */
    private PushController controller;
    /** The resume tokens after the welcome; null before. */
    private ResumeTokenRefresh tokens;
    /** The session's share of the scheduler, from {@link #register} until the connection closes; null before. */
    private FairJobQueue.Flow flow;
    /** Stopped with the session: the hello's timer and resume. */
    private Runnable onStop = () -> { };

    Session(ServerRuntime server, ServerRuntime.App app, Channel channel) {
        this.id = server.newSessionId();
        this.server = server;
        this.app = app;
        this.application = app.application();
        this.channel = channel;
        this.counters = new SessionCounters(server);
        this.port = new ChannelPort(id, server, channel, counters, this::closeWithError);
    }

    String id() {
        return id;
    }

    Phase phase() {
        return phase;
    }

    /** Whether the session is closing or closed: nothing the client sends matters any more. */
    boolean isClosing() {
        return phase == Phase.CLOSING || phase == Phase.CLOSED;
    }

    /** The hello's resume awaits its parts, or is being seeded. */
    void setPhase(Phase p) {
        phase = p;
    }

    /** Runs {@code stop} when the session stops, whatever the phase. */
    void onStop(Runnable stop) {
        this.onStop = stop;
    }

    /** The session's scheduler flow; null before {@link #register}. */
    FairJobQueue.Flow flow() {
        return flow;
    }

    /** The push controller; null before {@link #register}. */
    PushController controller() {
        return controller;
    }

    /**
     * The hello passed its checks: takes the session's place under the server's session cap, cache
     * budget and scheduler memory budget and makes its scheduler and controller.
     *
     * @return the session's scheduler, or null if the server refused it (the session is closing)
     */
    SessionScheduler register(ControlMessage.Hello h) {
        Application a = app.application();
        schedulerBytes = SchedulerFootprint.estimate(a.guardedSource().requestCount(), h.cacheBlocks(),
                !a.hasUniformExactCounts());
        Hellos.Refusal refusal = Hellos.registration(server.tryRegister(this, h.cacheBlocks(), schedulerBytes),
                server.config, h.cacheBlocks(), schedulerBytes);
        if (refusal != null) {
            closeWithError(refusal.code(), refusal.message());
            return null;
        }
        registered = true;
        AddressLimits.Ticket ticket = channel.attr(AddressLimits.TICKET).get();
        if (ticket != null) {
            ticket.handshakeDone();
        }
        int cacheBlocks = h.cacheBlocks();
        counters.cacheBlocks(cacheBlocks);
        SessionScheduler jobs = new SessionScheduler(server, app, id, cacheBlocks);
        controller = new PushController(id, app, server.config, counters, cacheBlocks, port);
        flow = server.openFlow(AddressLimits.key(channel.remoteAddress()));
        FairJobQueue.Flow opened = flow;
        channel.closeFuture().addListener(f -> opened.close());
        port.attach(jobs, controller, flow);
        return jobs;
    }

    /** Sends the welcome for {@code h}, starting the ring at {@code firstSeq}, and starts pushing. */
    void welcome(ControlMessage.Hello h, long firstSeq, Optional<Boolean> resumed, Optional<String> refused) {
        phase = Phase.ACTIVE;
        int cacheBlocks = h.cacheBlocks();
        tokens = new ResumeTokenRefresh(server, channel, id, application, cacheBlocks);
        Optional<String> token = tokens.first(h.supports(Protocol.FEATURE_RESUME) || h.resume().isPresent());
        channel.writeAndFlush(Hellos.welcome(application, id, cacheBlocks, firstSeq, token, resumed, refused));
        log.info("session {}: {} opened by {}, cache {} blocks{}", id, application.name(), channel.remoteAddress(),
                cacheBlocks, resumed.isEmpty() ? "" : resumed.get() ? ", resumed at sequence number " + firstSeq
                        : ", resume refused (" + refused.orElse("") + "), starting afresh");
        controller.start();
    }

    void onBinary() {
        closeWithError(ErrorCode.UNSUPPORTED_DATA, "clients must not send binary frames");
    }

    /**
     * Writable again: resume sending. Unwritable: whatever the phase (before the hello too, when
     * only a welcome or pongs are queued), a client that does not read for the stall timeout is
     * closed.
     */
    void onWritabilityChanged() {
        port.onWritabilityChanged(isClosing());
    }

    void onIdle() {
        closeWithError(ErrorCode.IDLE_TIMEOUT, "no message from the client for "
                + server.config.readIdleTimeoutMillis() + " ms");
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
        if (isClosing()) {
            return;
        }
        port.logClosed(code, message, true);
        stop(Phase.CLOSING);
    }

    /** Logs and closes the session with {@code code}: an error message, then a close frame. */
    void closeWithError(ErrorCode code, String message) {
        if (isClosing()) {
            return;
        }
        port.logClosed(code, message, false);
        stop(Phase.CLOSING);
        port.sendClose(code, message);
    }

    /** The client said bye: a normal close. */
    void closeNormally() {
        stop(Phase.CLOSING);
        port.sendClose(null, "bye");
    }

    void onInactive() {
        boolean wasOpen = phase == Phase.ACTIVE || phase == Phase.CLOSING;
        stop(Phase.CLOSED);
        if (registered) {
            server.unregister(this, counters.cacheBlocks(), schedulerBytes);
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
        onStop.run();
        if (tokens != null) {
            tokens.stop();
        }
        if (controller != null) {
            controller.stop();
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
