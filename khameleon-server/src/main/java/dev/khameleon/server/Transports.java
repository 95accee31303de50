package dev.khameleon.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * Chooses the I/O transport: epoll when asked for (or, with {@code AUTO}, when the optional native
 * library is on the class path and loads), NIO otherwise. The epoll classes are touched only in
 * {@link Epolls}, so the server runs without them.
 */
final class Transports {
    record Choice(KhameleonServer.Transport transport, IoHandlerFactory ioHandlerFactory,
                  Class<? extends ServerChannel> serverChannelClass) {
    }

    private Transports() {
    }

    static Choice choose(KhameleonServer.Transport wanted) {
        if (wanted != KhameleonServer.Transport.NIO) {
            Throwable why;
            try {
                if (Epolls.available()) {
                    return Epolls.choice();
                }
                why = Epolls.unavailabilityCause();
            } catch (LinkageError e) {
                why = e;
            }
            if (wanted == KhameleonServer.Transport.EPOLL) {
                throw new IllegalStateException("transport EPOLL was requested but is not available: " + why, why);
            }
        }
        return new Choice(KhameleonServer.Transport.NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class);
    }

    /** Sets {@code TCP_NOTSENT_LOWAT} on the connections {@code b} accepts; epoll transport only. */
    static void notSentLowWater(io.netty.bootstrap.ServerBootstrap b, int bytes) {
        Epolls.notSentLowWater(b, bytes);
    }

    /** Sets {@code TCP_NOTSENT_LOWAT} on {@code ch} if it is an epoll socket; nothing otherwise. */
    static void notSentLowWater(io.netty.channel.Channel ch, int bytes) {
        try {
            Epolls.notSentLowWater(ch, bytes);
        } catch (LinkageError e) {
            // No epoll classes on the class path: the channel is not an epoll socket either.
        }
    }

    /** Isolates the optional epoll classes. */
    private static final class Epolls {
        static boolean available() {
            return io.netty.channel.epoll.Epoll.isAvailable();
        }

        static Throwable unavailabilityCause() {
            return io.netty.channel.epoll.Epoll.unavailabilityCause();
        }

        static void notSentLowWater(io.netty.bootstrap.ServerBootstrap b, int bytes) {
            b.childOption(io.netty.channel.epoll.EpollChannelOption.TCP_NOTSENT_LOWAT, (long) bytes);
        }

        static void notSentLowWater(io.netty.channel.Channel ch, int bytes) {
            if (ch instanceof io.netty.channel.epoll.EpollSocketChannel) {
                ch.config().setOption(io.netty.channel.epoll.EpollChannelOption.TCP_NOTSENT_LOWAT, (long) bytes);
            }
        }

        static Choice choice() {
            return new Choice(KhameleonServer.Transport.EPOLL, io.netty.channel.epoll.EpollIoHandler.newFactory(),
                    io.netty.channel.epoll.EpollServerSocketChannel.class);
        }
    }
}
