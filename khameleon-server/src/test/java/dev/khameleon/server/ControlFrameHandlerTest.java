package dev.khameleon.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Regression for the ping flood: a client that sent pings and never read made the server queue one
 * pong per ping (2 million pongs, 650 MB, then OutOfMemoryError). Pongs are now bounded: at most
 * one waits to be written, and none is queued while the channel is unwritable.
 */
class ControlFrameHandlerTest {
    private final KhameleonServer server = KhameleonServer.builder().seed(1).writeStallTimeout(Duration.ofSeconds(1))
            .maxPingsPerSecond(1_000_000)
            .application(Application.builder("app").blockSource(TestApps.inMemory(4, 1, 16)).build()).build();
    private EmbeddedChannel ch;
    private final List<Object> held = new ArrayList<>();

    @AfterEach
    void tearDown() {
        held.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
        server.close();
    }

    private static PingWebSocketFrame ping(int i) {
        return new PingWebSocketFrame(Unpooled.copyInt(i));
    }

    private int pongsWritten() {
        int n = 0;
        for (Object o; (o = ch.readOutbound()) != null; n++) {
            assertInstanceOf(PongWebSocketFrame.class, o);
            ReferenceCountUtil.release(o);
        }
        return n;
    }

    @Test
    void pingFlood_whileAPongIsStillQueued_queuesNoMorePongs() {
        // An outbound handler that never completes a write stands for a client that does not read.
        ControlFrameHandler control = new ControlFrameHandler(server.runtime());
        ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                held.add(msg);
            }
        }, control);
        for (int i = 0; i < 10_000; i++) {
            ch.writeInbound(ping(i));
        }
        assertEquals(1, held.size(), "one pong waits to be written, not one per ping");
        assertEquals(9_999, control.droppedPongs());
        assertNull(ch.readInbound(), "pings are not passed on");
    }

    @Test
    void pongNotWrittenWithinTheStallTimeout_closesTheConnectionAsSlowConsumer() {
        ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                held.add(msg);
            }
        }, new ControlFrameHandler(server.runtime()));
        ch.freezeTime();
        ch.writeInbound(ping(1));
        ch.advanceTimeBy(900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen());
        ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen(), "closed one stall timeout after the pong");
        assertEquals(1L, server.metrics().errorsByCode().get("slow_consumer"));
    }

    @Test
    void pingFlood_whileUnwritable_queuesNoPong() {
        ch = new EmbeddedChannel(new ControlFrameHandler(server.runtime()));
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        for (int i = 0; i < 1_000; i++) {
            ch.writeInbound(ping(i));
        }
        assertEquals(0, pongsWritten());
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        ch.writeInbound(ping(7));
        assertEquals(1, pongsWritten(), "writable again: the next ping is answered");
    }

    @Test
    void pingsFromAReadingClient_areEachAnsweredWithTheirPayload() {
        ch = new EmbeddedChannel(new ControlFrameHandler(server.runtime()));
        for (int i = 0; i < 3; i++) {
            ch.writeInbound(ping(i));
            PongWebSocketFrame pong = ch.readOutbound();
            try {
                assertEquals(i, pong.content().getInt(0));
            } finally {
                pong.release();
            }
        }
    }

    @Test
    void dataFrames_passThrough() {
        ch = new EmbeddedChannel(new ControlFrameHandler(server.runtime()));
        ch.writeInbound(new TextWebSocketFrame("{}"));
        TextWebSocketFrame f = ch.readInbound();
        try {
            assertEquals("{}", f.text());
        } finally {
            f.release();
        }
    }

    /** Records the user events that reach the end of the pipeline. */
    private static final class Events extends io.netty.channel.ChannelInboundHandlerAdapter {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            seen.add(evt);
        }
    }

    @Test
    void pingsOverTheLimitWithinASecond_stopReadingAndFireTheLimitEventOnce() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        try (KhameleonServer limited = KhameleonServer.builder().seed(1).maxPingsPerSecond(5).clock(clock::get)
                .application(Application.builder("app").blockSource(TestApps.inMemory(4, 1, 16)).build()).build()) {
            Events events = new Events();
            ch = new EmbeddedChannel(new ControlFrameHandler(limited.runtime()), events);
            for (int i = 0; i < 5; i++) {
                ch.writeInbound(ping(i));
            }
            assertEquals(5, pongsWritten(), "pings up to the limit are answered");
            clock.set(TimeUnit.MILLISECONDS.toNanos(1_000));
            for (int i = 0; i < 5; i++) {
                ch.writeInbound(ping(i));
            }
            assertEquals(5, pongsWritten(), "a new second starts a new count");
            assertTrue(ch.config().isAutoRead());
            assertEquals(List.of(), events.seen);
            for (int i = 0; i < 100; i++) {
                ch.writeInbound(ping(i));
            }
            assertEquals(0, pongsWritten(), "pings past the limit are not answered");
            assertFalse(ch.config().isAutoRead(), "nothing more is read from a flooding client");
            assertEquals(List.of(new ControlFrameHandler.PingLimitExceeded(5)), events.seen, "one event, naming the limit");
        }
    }
}
