package dev.khameleon.testing;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.BlockCounts;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A minimal WebSocket server for client tests: it records every control message the client
 * sends and, on each hello, runs a script that decides what to push (well-formed, fragmented or
 * broken frames), so the client's connection handling can be tested frame by frame.
 */
public final class ScriptedServer implements AutoCloseable {
    /** What the test server does for the {@code n}-th connection's hello. */
    public interface Script extends BiConsumer<Integer, Channel> {
    }

    /** Every control message clients sent, in arrival order. */
    public final BlockingQueue<ControlMessage> received = new LinkedBlockingQueue<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;

    /** Starts the server on a free 127.0.0.1 port, running {@code script} on each hello. */
    public ScriptedServer(Script script) throws InterruptedException {
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                new WebSocketServerProtocolHandler("/app"),
                                new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) {
                                        ControlMessage m = ControlCodec.decodeFromClient(frame.text());
                                        received.add(m);
                                        if (m instanceof ControlMessage.Hello) {
                                            script.accept(connections.getAndIncrement(), ctx.channel());
                                        }
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        // Tests drop and reset connections on purpose: close without a
                                        // stack trace in the build's output; anything else still shows.
                                        if (!(cause instanceof java.io.IOException)) {
                                            cause.printStackTrace();
                                        }
                                        ctx.close();
                                    }
                                });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** The WebSocket URI clients connect to. */
    public URI uri() {
        return URI.create("ws://127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort() + "/app");
    }

    /** A welcome for a session with {@code cacheBlocks}, first sequence number and block size given. */
    public static ControlMessage.Welcome welcome(int cacheBlocks, long firstSeq, int blockSize) {
        return new ControlMessage.Welcome(1, "s" + firstSeq, "app", blockSize, 10, cacheBlocks,
                List.of(50L, 150L, 250L, 500L), firstSeq, BlockCounts.uniform(2));
    }

    /** Sends {@code m} on {@code ch} as one text frame. */
    public static void sendText(Channel ch, ControlMessage m) {
        ch.writeAndFlush(new TextWebSocketFrame(ControlCodec.encode(m)));
    }

    /** Sends {@code block} with sequence number {@code seq} on {@code ch} as one binary frame. */
    public static void sendBlock(Channel ch, long seq, Block block) {
        ch.writeAndFlush(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(BlockFrame.encode(seq, block))));
    }

    /** Sends the frame in three WebSocket fragments. */
    public static void sendFragmented(Channel ch, long seq, Block block) {
        byte[] f = BlockFrame.encode(seq, block);
        int a = 5;
        int b = f.length / 2;
        ch.write(new BinaryWebSocketFrame(false, 0, Unpooled.wrappedBuffer(f, 0, a)));
        ch.write(new ContinuationWebSocketFrame(false, 0, Unpooled.wrappedBuffer(f, a, b - a)));
        ch.writeAndFlush(new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(f, b, f.length - b)));
    }

    /** Closes the channel and its event loops, waiting through an interrupt and keeping it set. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
