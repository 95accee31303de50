package dev.khameleon.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The port a started server listens on: the bound server channel with its accept loop
 * ({@code khameleon-accept}) and I/O loops ({@code khameleon-io-*}), on the chosen transport, with
 * the socket options and write-buffer water marks every accepted connection gets. Made by
 * {@link #bind}; used by the thread that starts or closes the server.
 */
final class ListeningPort {
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final Channel channel;
    private final long shutdownTimeoutMillis;

    private ListeningPort(EventLoopGroup bossGroup, EventLoopGroup workerGroup, Channel channel,
                          long shutdownTimeoutMillis) {
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
        this.channel = channel;
        this.shutdownTimeoutMillis = shutdownTimeoutMillis;
    }

    /**
     * Binds {@code config}'s host and port on {@code transport}, each accepted connection
     * initialized by {@code childHandler}; returns when it is listening. On failure its event loops
     * are shut down before this throws.
     *
     * @throws UncheckedIOException if the address cannot be bound
     */
    static ListeningPort bind(ServerConfig config, Transports.Choice transport, ChannelHandler childHandler) {
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("khameleon-accept", true),
                transport.ioHandlerFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(config.ioThreads(),
                new DefaultThreadFactory("khameleon-io", true), transport.ioHandlerFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.writeBufferLowBytes(), config.writeBufferHighBytes()))
                .childHandler(childHandler);
        if (config.sendBufferBytes() > 0) {
            b.childOption(ChannelOption.SO_SNDBUF, config.sendBufferBytes());
        }
        if (config.notSentLowWaterBytes() > 0 && transport.transport() == KhameleonServer.Transport.EPOLL) {
            Transports.notSentLowWater(b, config.notSentLowWaterBytes());
        }
        try {
            Channel channel = b.bind(config.host(), config.port()).syncUninterruptibly().channel();
            return new ListeningPort(boss, workers, channel, config.shutdownTimeoutMillis());
        } catch (Exception e) { // bind failures arrive as checked exceptions thrown sneakily
            ListeningPort failed = new ListeningPort(boss, workers, null, config.shutdownTimeoutMillis());
            failed.shutdownGracefully();
            failed.awaitTermination();
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw new UncheckedIOException("cannot bind " + config.host() + ":" + config.port(),
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /** The bound address; the actual port when the configured one was 0. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops accepting connections, waiting up to the shutdown timeout for the channel to close. */
    void stopAccepting() {
        channel.close().awaitUninterruptibly(shutdownTimeoutMillis);
    }

    /** Starts shutting the event loops down, letting queued tasks run for up to the shutdown timeout. */
    void shutdownGracefully() {
        bossGroup.shutdownGracefully(0, shutdownTimeoutMillis, TimeUnit.MILLISECONDS);
        workerGroup.shutdownGracefully(0, shutdownTimeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Waits up to the shutdown timeout for each event loop group to end, after {@link #shutdownGracefully}. */
    void awaitTermination() {
        bossGroup.terminationFuture().awaitUninterruptibly(shutdownTimeoutMillis);
        workerGroup.terminationFuture().awaitUninterruptibly(shutdownTimeoutMillis);
    }
}
