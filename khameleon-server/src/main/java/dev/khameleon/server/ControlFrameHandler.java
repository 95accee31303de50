package dev.khameleon.server;

import dev.khameleon.core.protocol.ErrorCode;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
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
 * <p>Sits in front of the WebSocket protocol handler, which would otherwise write a pong per ping
 * without looking at writability. Confined to the channel's event loop; releases every ping.
 */
final class ControlFrameHandler extends ChannelInboundHandlerAdapter {
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The user event fired once when a client sends more than {@code limit} pings within a second. */
    record PingLimitExceeded(int limit) {
    }

    private final ServerRuntime server;
    private ChannelFuture pendingPong;
    private long droppedPongs;
    private long windowStartNanos;
    private int pingsInWindow;
    private boolean flooding;

    ControlFrameHandler(ServerRuntime server) {
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof PingWebSocketFrame ping)) {
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
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
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
