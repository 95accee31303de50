package dev.khameleon.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
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

    /** A server reading at most {@code bytesPerSecond} per client, on a clock the test sets. */
    private static KhameleonServer inboundLimited(int bytesPerSecond, java.util.concurrent.atomic.AtomicLong clock) {
        return KhameleonServer.builder().seed(1).maxInboundBytesPerSecond(bytesPerSecond).clock(clock::get)
                .application(Application.builder("app").blockSource(TestApps.inMemory(4, 1, 16)).build()).build();
    }

    private int framesPassed() {
        int n = 0;
        for (Object o; (o = ch.readInbound()) != null; n++) {
            ReferenceCountUtil.release(o);
        }
        return n;
    }

    /**
     * A client that sends more than {@code maxInboundBytesPerSecond} (each frame its payload plus
     * {@link ControlFrameHandler#FRAME_COST_BYTES}) is read no faster: reading stops when a frame
     * leaves the bucket in debt and starts again once the debt is repaid; frames already read pass.
     */
    @Test
    void dataFramesOverTheInboundRate_stopReadingUntilTheDebtIsRepaid() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        try (KhameleonServer limited = inboundLimited(4096, clock)) {
            ch = new EmbeddedChannel(new ControlFrameHandler(limited.runtime()));
            ch.freezeTime();
            String payload = "x".repeat(1000); // 2,024 bytes each, counted
            ch.writeInbound(new TextWebSocketFrame(payload), new ContinuationWebSocketFrame(Unpooled.copiedBuffer(
                    payload, java.nio.charset.StandardCharsets.US_ASCII)));
            assertTrue(ch.config().isAutoRead(), "two frames fit a bucket of 4,096 bytes");
            ch.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[1000])));
            assertFalse(ch.config().isAutoRead(), "the third leaves it in debt: reading stops");
            ch.writeInbound(new TextWebSocketFrame(payload)); // read before reading stopped
            assertEquals(4, framesPassed(), "frames already read are passed on");
            ch.writeInbound(ping(1));
            assertFalse(ch.config().isAutoRead(), "answering a ping does not read on");
            // The debt is 4,000 bytes: about 0.98 s at 4,096 bytes per second.
            clock.set(TimeUnit.MILLISECONDS.toNanos(900));
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertFalse(ch.config().isAutoRead(), "still in debt after 0.9 s");
            clock.set(TimeUnit.MILLISECONDS.toNanos(1_000));
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertTrue(ch.config().isAutoRead(), "repaid after 0.98 s: reading again");
        }
    }

    @Test
    void pingsAndPongs_doNotCountAgainstTheInboundRate() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        try (KhameleonServer limited = inboundLimited(1024, clock)) {
            ch = new EmbeddedChannel(new ControlFrameHandler(limited.runtime()));
            for (int i = 0; i < 10; i++) {
                ch.writeInbound(ping(i));
                ch.writeInbound(new PongWebSocketFrame(Unpooled.copyInt(i)));
            }
            assertTrue(ch.config().isAutoRead());
            assertEquals(10, pongsWritten());
            assertEquals(10, framesPassed(), "the client's pongs pass on");
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
