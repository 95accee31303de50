package dev.khameleon.simulator.live;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A user-space link between a client and a server on this machine: a TCP relay on
 * {@code 127.0.0.1} that forwards each connection to {@code target} through a shaped link.
 *
 * <ul>
 *   <li>Downstream (server → client): a {@link Bottleneck} at the {@link DeliverySchedule}'s
 *       rate with a queue of at most {@code queueBytes}, then the one-way delay. When the queue is
 *       full the relay stops reading from the server (Netty {@code autoRead} off), so TCP
 *       back-pressure reaches the server's socket and outbound buffer as on a real link; it
 *       never buffers without bound.</li>
 *   <li>Upstream (client → server): the one-way delay only, at unlimited rate.</li>
 * </ul>
 *
 * <p>The link's clock starts when a connection is accepted (a Mahimahi trace plays from its
 * start for each connection). Not modelled: loss, reordering, jitter beyond the schedule's own.
 *
 * <p><b>Threading.</b> One event loop thread runs both sides of every connection and all
 * timers (Netty's scheduler; nothing sleeps). {@link #start}, {@link #port()}, the counters and
 * {@link #close()} may be called from any thread.
 */
final class LinkShaper implements AutoCloseable {
    /** Bytes read from the server at a time: the queue is never overfilled by more than a read. */
    static final int READ_BYTES = 16 * 1024;

    private final EventLoopGroup group;
    private final Channel listener;
    private final AtomicLong maxQueued = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();

    private LinkShaper(EventLoopGroup group, Channel listener) {
        this.group = group;
        this.listener = listener;
    }

    /**
     * Starts a shaper on {@code 127.0.0.1:port} (0 picks a free port) in front of {@code target},
     * which is asked for the server's address at each connection (so the shaper can bind first).
     *
     * @param down        the downstream delivery schedule
     * @param oneWayNanos the delay in each direction
     * @param queueBytes  the bottleneck's queue bound, at least one packet
     * @param clock       nanoseconds, monotonic (e.g. {@code System::nanoTime})
     * @throws UncheckedIOException if the port cannot be bound (e.g. in use)
     */
    static LinkShaper start(int port, Supplier<InetSocketAddress> target, DeliverySchedule down, long oneWayNanos,
                                   long queueBytes, LongSupplier clock) {
        new Bottleneck(down, queueBytes); // validates the bound before anything starts
        new DelayLine<>(oneWayNanos);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("khameleon-link", true),
                NioIoHandler.newFactory());
        LinkShaper[] self = new LinkShaper[1];
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(self[0].new Relay(target, down, oneWayNanos, queueBytes, clock).client);
                    }
                });
        try {
            Channel listener = b.bind("127.0.0.1", port).syncUninterruptibly().channel();
            self[0] = new LinkShaper(group, listener);
            return self[0];
        } catch (Exception e) { // bind failures arrive as checked exceptions thrown sneakily
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new UncheckedIOException("cannot bind 127.0.0.1:" + port,
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /** The port clients connect to. */
    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The most bytes the bottleneck of any connection ever held. */
    long maxQueuedBytes() {
        return maxQueued.get();
    }

    /** Bytes delivered to clients so far. */
    long deliveredBytes() {
        return delivered.get();
    }

    /** Closes the listener and every connection; waits for the event loop to stop. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One relayed connection; every method runs on the event loop. */
    private final class Relay {
        private final Supplier<InetSocketAddress> target;
        private final LongSupplier clock;
        private final Bottleneck bottleneck;
        private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
        private final DelayLine<ByteBuf> down;
        private final DelayLine<ByteBuf> up;
        private final ChannelInboundHandlerAdapter client = new ClientSide();
        private Channel clientCh;
        private Channel serverCh;
        private long origin;
        private boolean tickPending;
        private boolean downPending;
        private boolean upPending;
        private boolean serverGone;
        private boolean released;

        Relay(Supplier<InetSocketAddress> target, DeliverySchedule schedule, long oneWayNanos, long queueBytes,
              LongSupplier clock) {
            this.target = target;
            this.clock = clock;
            this.bottleneck = new Bottleneck(schedule, queueBytes);
            this.down = new DelayLine<>(oneWayNanos);
            this.up = new DelayLine<>(oneWayNanos);
        }

        private long now() {
            return clock.getAsLong() - origin;
        }

        private EventLoop loop() {
            return clientCh.eventLoop();
        }

        private void at(long atNanos, Runnable task) {
            loop().schedule(task, Math.max(0, atNanos - now()), TimeUnit.NANOSECONDS);
        }

        private final class ClientSide extends ChannelInboundHandlerAdapter {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                clientCh = ctx.channel();
                origin = clock.getAsLong();
                new Bootstrap().group(clientCh.eventLoop()).channel(NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(ChannelOption.AUTO_READ, false)
                        .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(READ_BYTES))
                        .option(ChannelOption.SO_RCVBUF, 64 * 1024)
                        .handler(new ServerSide())
                        .connect(target.get()).addListener((ChannelFutureListener) f -> {
                            if (!f.isSuccess()) {
                                clientCh.close();
                                return;
                            }
                            serverCh = f.channel();
                            serverCh.config().setAutoRead(true);
                            clientCh.config().setAutoRead(true);
                        });
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                up.add((ByteBuf) msg, now());
                if (!upPending) {
                    upPending = true;
                    at(up.nextDueNanos(), Relay.this::pumpUp);
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                if (serverCh != null) {
                    serverCh.close();
                }
                release();
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }

        private final class ServerSide extends ChannelInboundHandlerAdapter {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf buf = (ByteBuf) msg;
                bottleneck.offer(buf.readableBytes(), now());
                queue.add(buf);
                maxQueued.accumulateAndGet(bottleneck.maxQueuedBytes(), Math::max);
                if (bottleneck.room() < READ_BYTES) {
                    ctx.channel().config().setAutoRead(false);
                }
                if (!tickPending) {
                    tickPending = true;
                    at(bottleneck.nextDepartureNanos(), Relay.this::tick);
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                serverGone = true;
                closeClientWhenDrained();
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        }

        /** The bottleneck's opportunities up to now: bytes leave the queue into the delay line. */
        private void tick() {
            tickPending = false;
            if (released) {
                return;
            }
            long out = bottleneck.drain(now());
            if (out > 0) {
                long departedAt = bottleneck.lastDepartureNanos();
                ByteBuf slices = null;
                while (out > 0) {
                    ByteBuf head = queue.peek();
                    int n = (int) Math.min(out, head.readableBytes());
                    ByteBuf part = head.readRetainedSlice(n);
                    slices = slices == null ? part : Unpooled.wrappedBuffer(slices, part);
                    if (!head.isReadable()) {
                        queue.poll().release();
                    }
                    out -= n;
                }
                down.add(slices, departedAt);
                if (!downPending) {
                    downPending = true;
                    at(down.nextDueNanos(), this::pumpDown);
                }
            }
            if (serverCh != null && bottleneck.room() >= READ_BYTES && !serverCh.config().isAutoRead()) {
                serverCh.config().setAutoRead(true);
            }
            if (bottleneck.nextDepartureNanos() != Long.MAX_VALUE) {
                tickPending = true;
                at(bottleneck.nextDepartureNanos(), this::tick);
            }
        }

        private void pumpDown() {
            downPending = false;
            if (released) {
                return;
            }
            boolean wrote = false;
            for (ByteBuf b; (b = down.pollDue(now())) != null; ) {
                delivered.addAndGet(b.readableBytes());
                clientCh.write(b);
                wrote = true;
            }
            if (wrote) {
                clientCh.flush();
            }
            if (!down.isEmpty()) {
                downPending = true;
                at(down.nextDueNanos(), this::pumpDown);
            }
            closeClientWhenDrained();
        }

        private void pumpUp() {
            upPending = false;
            if (released) {
                return;
            }
            boolean wrote = false;
            for (ByteBuf b; (b = up.pollDue(now())) != null; ) {
                if (serverCh == null || !serverCh.isActive()) {
                    b.release();
                    continue;
                }
                serverCh.write(b);
                wrote = true;
            }
            if (wrote) {
                serverCh.flush();
            }
            if (!up.isEmpty()) {
                upPending = true;
                at(up.nextDueNanos(), this::pumpUp);
            }
        }

        /** What the server sent before it closed still crosses the link; then the client's side closes. */
        private void closeClientWhenDrained() {
            if (serverGone && queue.isEmpty() && down.isEmpty() && clientCh.isOpen()) {
                clientCh.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private void release() {
            released = true;
            queue.forEach(ReferenceCountUtil::safeRelease);
            queue.clear();
            down.clear(ReferenceCountUtil::safeRelease);
            up.clear(ReferenceCountUtil::safeRelease);
        }
    }
}
