package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Keeps the bytes a client sent right behind its WebSocket upgrade request (a hello frame in the same
 * TCP packet) out of the HTTP codec, which would otherwise hold them and drop them when the handshake
 * removes it; {@link #release} hands them on once the WebSocket decoder is in place. It sits in front
 * of the codec of the server's own port, reads only the first request's head and then passes
 * everything on: a request with a body (or not an upgrade) goes through whole, as without it.
 *
 * <p><b>Threading.</b> The channel's event loop.
 */
final class UpgradeHead extends ChannelInboundHandlerAdapter {
    private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};

    private final int maxHeadBytes;
    private ByteBuf head;
    /** What came after an upgrade request's head, held for {@link #release}; null if nothing is held. */
    private ByteBuf held;
    private boolean passing;

    /** @param maxHeadBytes the longest head it looks for an end in; past it, everything passes */
    UpgradeHead(int maxHeadBytes) {
        this.maxHeadBytes = maxHeadBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (held != null && msg instanceof ByteBuf more) {
            held.writeBytes(more); // after the request, in order, until release
            more.release();
            return;
        }
        if (passing || !(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        head = head == null ? in : ctx.alloc().compositeBuffer(2).addComponents(true, head, in);
        int end = indexOf(head, HEAD_END);
        if (end < 0) {
            if (head.readableBytes() > maxHeadBytes) {
                pass(ctx); // too long: the codec refuses it
            }
            return;
        }
        int headLength = end + HEAD_END.length;
        String text = head.toString(head.readerIndex(), headLength, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        boolean upgrade = text.contains("\nupgrade:") && text.contains("websocket");
        boolean body = text.contains("\ncontent-length:") || text.contains("\ntransfer-encoding:");
        if (!upgrade || body || head.readableBytes() == headLength) {
            pass(ctx);
            return;
        }
        held = ctx.alloc().buffer(head.readableBytes() - headLength);
        held.writeBytes(head, head.readerIndex() + headLength, head.readableBytes() - headLength);
        ByteBuf request = head.retainedSlice(head.readerIndex(), headLength);
        head.release();
        head = null;
        passing = true; // the codec sees only the request; the rest waits for release
        ctx.fireChannelRead(request);
    }

    private void pass(ChannelHandlerContext ctx) {
        passing = true;
        ByteBuf all = head;
        head = null;
        ctx.pipeline().remove(this); // first: what the bytes set off may look for this handler
        ctx.fireChannelRead(all);
    }

    /**
     * Leaves the pipeline, handing on what came after the upgrade request if the handshake installed
     * the WebSocket decoder behind this handler (else it is dropped with the refused connection).
     * Does nothing if it is not in {@code p}.
     */
    static void release(ChannelPipeline p) {
        ChannelHandlerContext ctx = p.context(UpgradeHead.class);
        if (ctx == null) {
            return;
        }
        UpgradeHead h = (UpgradeHead) ctx.handler();
        ByteBuf rest = h.held;
        h.held = null;
        if (rest != null && p.get(WebSocketFrameDecoder.class) != null) {
            ctx.fireChannelRead(rest);
        } else if (rest != null) {
            rest.release();
        }
        if (p.context(h) != null) {
            p.remove(h);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (head != null) {
            head.release();
            head = null;
        }
        if (held != null) {
            held.release();
            held = null;
        }
    }

    private static int indexOf(ByteBuf buf, byte[] needle) {
        int from = buf.readerIndex();
        int to = buf.writerIndex() - needle.length;
        for (int i = from; i <= to; i++) {
            boolean match = true;
            for (int k = 0; k < needle.length; k++) {
                if (buf.getByte(i + k) != needle[k]) {
                    match = false;
                    break;
                }
            }
            if (match) {
                return i - from;
            }
        }
        return -1;
    }
}
