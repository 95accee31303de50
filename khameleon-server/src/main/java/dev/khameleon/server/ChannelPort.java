package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
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

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Carries out a session's {@link PushController} on its channel: block frames are written while the
 * channel is writable (the controller asks before each), sending resumes when writability comes
 * back ({@link #onWritabilityChanged()}), a client that stops reading is closed after the write-stall
 * timeout, one timer wakes the controller when it asked to be, and scheduler jobs and fetches go to
 * the server's shared executors and back onto the event loop.
 *
 * <p><b>Threading.</b> Confined to the channel's event loop, except the jobs it submits, which run on
 * the scheduler executor and hand their results back through the event loop.
 */
final class ChannelPort implements PushPort {
    private static final Logger log = LoggerFactory.getLogger(ChannelPort.class);

    private final String id;
    private final ServerRuntime server;
    private final Channel channel;
    private final EventLoop loop;
    private final SessionCounters counters;
    private final long writeStallTimeoutMillis;
    private final BiConsumer<ErrorCode, String> close;
    private final LoopTimer wakeTimer;
    private final LoopTimer stallTimer;
    private SchedulerTask queued;
    private SessionScheduler jobs;
    private PushController controller;
    /** The session's share of the scheduler; set by {@link #attach}. */
    private FairJobQueue.Flow flow;

    /**
     * @param close closes the session with an error (its message, then a close frame)
     */
    ChannelPort(String id, ServerRuntime server, Channel channel, SessionCounters counters,
                BiConsumer<ErrorCode, String> close) {
        this.id = id;
        this.server = server;
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.counters = counters;
        this.writeStallTimeoutMillis = server.config.writeStallTimeoutMillis();
        this.close = close;
        this.wakeTimer = new LoopTimer(loop, server::nanoTime, () -> {
            if (controller != null) {
                controller.onWake();
            }
        });
        this.stallTimer = new LoopTimer(loop, server::nanoTime, this::onStallTimeout);
    }

    /**
     * The hello made the session's scheduler, controller and scheduler flow: from now on this port
     * carries them out.
     */
    void attach(SessionScheduler jobs, PushController controller, FairJobQueue.Flow flow) {
        this.jobs = jobs;
        this.controller = controller;
        this.flow = flow;
    }

    /**
     * Writable again: the sender goes on. Unwritable: whatever the phase (before the hello too, when
     * only a welcome or pongs are queued), a client that does not read for the stall timeout is
     * closed, unless {@code closing}.
     */
    void onWritabilityChanged(boolean closing) {
        if (channel.isWritable()) {
            stallTimer.cancel();
            if (controller != null) {
                controller.onWritable();
            }
        } else if (!closing) {
            armStallTimer();
        }
    }

    /**
     * Logs and counts the session's close with {@code code}: by the WebSocket layer (a protocol
     * violation it has answered itself) or by the session.
     */
    void logClosed(ErrorCode code, String message, boolean byWebSocketLayer) {
        Level level = !byWebSocketLayer && (code == ErrorCode.SHUTDOWN || code == ErrorCode.IDLE_TIMEOUT)
                ? Level.INFO : Level.WARN;
        server.refusals.log(level, "session " + id + " from " + channel.remoteAddress(), code.wireName(),
                (byWebSocketLayer ? "closed by the WebSocket layer (" : "closing (") + code.closeStatus() + "): "
                        + message);
        server.countError(code);
    }

    /**
     * Closes the connection: an error message and a close frame with {@code code}, or (code null) a
     * normal close frame with {@code reason}; nothing if the channel is already inactive.
     */
    void sendClose(ErrorCode code, String reason) {
        if (!channel.isActive()) {
            return;
        }
        if (code == null) {
            sendClose(new CloseWebSocketFrame(1000, reason));
        } else {
            channel.write(ControlMessage.ErrorMessage.of(code, reason));
            sendClose(new CloseWebSocketFrame(code.closeStatus(), code.wireName()));
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
        }, server.config.closeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    /** The session stops: no timer of this port fires any more. */
    void stop() {
        wakeTimer.cancel();
        stallTimer.cancel();
    }


    @Override
    public boolean submit(Job job, boolean replan, long order) {
        SchedulerTask.Work work = task -> {
            Result r = jobs.run(job);
            task.ranFor(r.nanos()); // before the hand-back: the session's next job is queued with it charged
            try {
                loop.execute(() -> {
                    queued = null;
                    controller.onResult(r);
                });
            } catch (RejectedExecutionException e) {
                log.debug("session {}: event loop gone before a scheduler result", id);
            }
        };
        try {
            queued = server.schedule(replan, order >= 0 ? order : server.nextSchedulerOrder(), flow, work);
            return true;
        } catch (RejectedExecutionException e) {
            queued = null;
            return false;
        }
    }

    @Override
    public long withdraw() {
        SchedulerTask t = queued;
        if (t == null || !server.withdraw(t)) {
            return PushPort.NOT_WITHDRAWN;
        }
        queued = null;
        return t.replan() ? t.order() : PushPort.WITHDRAWN;
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public void write(long seq, Block block, int generation) {
        // BlockFrameEncoder, in front of this session's handler, turns it into a binary frame.
        channel.write(new BlockFrame(seq, block, generation))
                .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    @Override
    public void writeControl(List<String> messages) {
        messages.forEach(text -> channel.write(new TextWebSocketFrame(text)));
        flush();
    }

    @Override
    public void flush() {
        channel.flush();
        updateQueuedBytes();
    }

    @Override
    public void blocked() {
        armStallTimer();
    }

    @Override
    public void wakeAt(long atNanos) {
        wakeTimer.armAt(atNanos);
    }

    @Override
    public void close(ErrorCode code, String message) {
        close.accept(code, message);
    }

    @Override
    public Executor loop() {
        return loop;
    }

    @Override
    public Executor fetchExecutor() {
        return server.fetchExecutor;
    }

    @Override
    public Runnable schedule(long delayNanos, Runnable task) {
        io.netty.util.concurrent.ScheduledFuture<?> f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }
    private void updateQueuedBytes() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        counters.queuedBytes(out == null ? 0 : out.totalPendingWriteBytes());
    }

    private void armStallTimer() {
        updateQueuedBytes();
        stallTimer.armIn(TimeUnit.MILLISECONDS.toNanos(writeStallTimeoutMillis));
    }

    private void onStallTimeout() {
        if (!channel.isWritable()) {
            updateQueuedBytes();
            close.accept(ErrorCode.SLOW_CONSUMER, "the client stopped reading: nothing could be written for "
                    + writeStallTimeoutMillis + " ms, " + counters.queuedBytes() + " bytes queued");
        }
    }

}
