package dev.khameleon.server;

import dev.khameleon.core.protocol.ErrorCode;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.event.Level;

import java.util.concurrent.TimeUnit;

/**
 * Answers a client's pings without letting them queue: a ping gets its pong only while the channel
 * is writable and no earlier pong is still waiting to be written; otherwise it is dropped (RFC 6455
 * lets an endpoint answer only the latest of several pings). So a client that floods pings and never
 * reads costs at most one queued pong, not one per ping. A pong still not written after the write
 * stall timeout means the client stopped reading: the connection is closed as {@code slow_consumer}
 * (in any phase, before the hello too).
 *
 * <p>A client that sends more than {@code maxPingsPerSecond} pings within a second is flooding: the
 * handler stops reading from it (so the flood costs the server no more decoding) and fires
 * {@link PingLimitExceeded}, on which the session closes with {@code limit_exceeded}.
 *
 * <p>It also paces what a client sends in data frames (text, binary, continuation) to
 * {@code maxInboundBytesPerSecond}, each frame counting its payload plus
 * {@value #FRAME_COST_BYTES} bytes: a token bucket holding one second's worth, and when a frame
 * leaves it in debt the handler stops reading until the debt is repaid. Decoding a message costs
 * the event loop, which other sessions share, time in proportion to its bytes plus a fixed part for
 * its handling, so an unpaced client flooding tiny states starves the sessions on its event loop.
 * Frames already read when reading stops (at most one socket read) are still passed on: the bucket
 * bounds the rate, not each message.
 *
 * <p>Sits in front of the WebSocket protocol handler, which would otherwise write a pong per ping
 * without looking at writability. Confined to the channel's event loop; releases every ping.
 */
final class ControlFrameHandler extends ChannelInboundHandlerAdapter {
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * What every data frame costs beyond its payload, in bytes: the work of handling any message
     * (decoding it, a session's bookkeeping), about that of parsing a kilobyte of JSON.
     */
    static final int FRAME_COST_BYTES = 1024;
    /** The least wait before reading again, so that a small debt does not make a busy timer loop. */
    private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The user event fired once when a client sends more than {@code limit} pings within a second. */
    record PingLimitExceeded(int limit) {
    }

    private final ServerRuntime server;
    private ChannelFuture pendingPong;
    private long droppedPongs;
    private long windowStartNanos;
    private int pingsInWindow;
    private boolean flooding;
    /** Bytes the client may still send now; negative while it is in debt. */
    private double inboundTokens;
    private long inboundRefillNanos;
    /** Reading is off until the inbound debt is repaid. */
    private boolean inboundPaused;

    ControlFrameHandler(ServerRuntime server) {
        this.server = server;
        this.inboundTokens = server.config.maxInboundBytesPerSecond();
        this.inboundRefillNanos = server.nanoTime();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof PingWebSocketFrame ping)) {
            if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame
                    || msg instanceof ContinuationWebSocketFrame) {
                charge(ctx, ((WebSocketFrame) msg).content().readableBytes());
            }
            ctx.fireChannelRead(msg);
            return;
        }
        if (flooding || overLimit()) {
            // Pings already read past the limit are dropped; reading stays off until the session closes.
            ping.release();
            if (!flooding) {
                flooding = true;
                ctx.channel().config().setAutoRead(false);
                ctx.fireUserEventTriggered(new PingLimitExceeded(server.config.maxPingsPerSecond()));
            }
            return;
        }
        try {
            if (ctx.channel().isWritable() && (pendingPong == null || pendingPong.isDone())) {
                // Written from the tail so that the protocol handler drops it once a close was sent.
                pendingPong = ctx.channel().writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
                if (!pendingPong.isDone()) {
                    watch(ctx, pendingPong);
                }
            } else {
                droppedPongs++;
            }
        } finally {
            ping.release();
        }
        if (!ctx.channel().config().isAutoRead() && !inboundPaused) {
            ctx.read();
        }
    }

    /** Takes a data frame's cost from the inbound bucket; stops reading if that leaves it in debt. */
    private void charge(ChannelHandlerContext ctx, int payloadBytes) {
        refillInbound();
        inboundTokens -= payloadBytes + FRAME_COST_BYTES;
        if (inboundTokens < 0 && !inboundPaused && !flooding) {
            inboundPaused = true;
            ctx.channel().config().setAutoRead(false);
            scheduleResume(ctx);
        }
    }

    private void refillInbound() {
        long now = server.nanoTime();
        long elapsed = now - inboundRefillNanos;
        if (elapsed > 0) {
            double rate = server.config.maxInboundBytesPerSecond();
            inboundTokens = Math.min(rate, inboundTokens + elapsed * 1e-9 * rate);
            inboundRefillNanos = now;
        }
    }

    private void scheduleResume(ChannelHandlerContext ctx) {
        long wait = (long) Math.ceil(-inboundTokens / server.config.maxInboundBytesPerSecond() * 1e9);
        ctx.executor().schedule(() -> resumeReading(ctx), Math.max(MIN_PAUSE_NANOS, wait), TimeUnit.NANOSECONDS);
    }

    /** Reads again once the debt is repaid; a ping flood keeps reading off for good. */
    private void resumeReading(ChannelHandlerContext ctx) {
        if (!inboundPaused || flooding || !ctx.channel().isActive()) {
            return;
        }
        refillInbound();
        if (inboundTokens < 0) {
            scheduleResume(ctx);
            return;
        }
        inboundPaused = false;
        ctx.channel().config().setAutoRead(true); // which also asks for the next read
    }

    /** Counts a ping in the current one-second window; true if it is one too many. */
    private boolean overLimit() {
        long now = server.nanoTime();
        if (pingsInWindow == 0 || now - windowStartNanos >= WINDOW_NANOS) {
            windowStartNanos = now;
            pingsInWindow = 0;
        }
        return ++pingsInWindow > server.config.maxPingsPerSecond();
    }

    private void watch(ChannelHandlerContext ctx, ChannelFuture pong) {
        long stallMillis = server.config.writeStallTimeoutMillis();
        ScheduledFuture<?> timer = ctx.executor().schedule(() -> {
            if (!pong.isDone() && ctx.channel().isActive()) {
                server.countError(ErrorCode.SLOW_CONSUMER);
                server.refusals.log(Level.WARN, "connection from " + ctx.channel().remoteAddress(),
                        ErrorCode.SLOW_CONSUMER.wireName(), "closing: a pong was not read within " + stallMillis + " ms");
                ctx.channel().close();
            }
        }, stallMillis, TimeUnit.MILLISECONDS);
        pong.addListener(f -> timer.cancel(false));
    }

    /** Pings not answered because the client was not reading them; for tests. */
    long droppedPongs() {
        return droppedPongs;
    }
}
