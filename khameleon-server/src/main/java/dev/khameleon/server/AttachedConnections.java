package dev.khameleon.server;

import dev.khameleon.server.spi.WebSocketPeer;
import io.netty.channel.Channel;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections other WebSocket stacks accepted and handed to {@link KhameleonServer#attach}: it
 * admits each under the checks an upgrade on the server's own port gets (per-address limits,
 * draining, origin), wraps it in an {@link AttachedChannel} with the session handler, and runs it
 * on event loops of its own ({@code khameleon-attached-*}), made at the first connection. A refused
 * connection is closed through its peer and counted as a refused handshake.
 *
 * <p>Thread-safe: {@link #attach} from any thread; {@link #shutdown} and {@link #awaitTermination}
 * from the thread closing the server.
 */
final class AttachedConnections {
    private static final Logger log = LoggerFactory.getLogger(AttachedConnections.class);

    private final ServerRuntime runtime;
    private final ServerConfig config;
    /** Not the server's lock: close() holds that while sessions close. */
    private final Object lock = new Object();
    /** Made at the first connection; under {@code lock}. */
    private EventLoopGroup group;
    /** Set by {@link #shutdown}: no group is made and no channel registered from then on; under {@code lock}. */
    private volatile boolean closed;
    /** Channels that are registered and open: shutdown() closes the ones no session knew of yet. */
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    private final AtomicLong counter = new AtomicLong();

    AttachedConnections(ServerRuntime runtime) {
        this.runtime = runtime;
        this.config = runtime.config;
    }

    /** Admits {@code peer} as a connection to {@code app}, or closes it through the peer and returns a closed one. */
    // Netty 4.2 deprecates DefaultEventLoopGroup for MultiThreadIoEventLoopGroup, whose loops only take
    // channels made for an IoHandler; an AttachedChannel is a plain AbstractChannel driven by tasks.
    @SuppressWarnings("deprecation")
    AttachedConnection attach(ServerRuntime.App app, WebSocketPeer peer) {
        EventLoopGroup loops;
        synchronized (lock) {
            if (group == null && !closed) {
                group = new DefaultEventLoopGroup(config.ioThreads() > 0 ? config.ioThreads()
                        : Runtime.getRuntime().availableProcessors(), new DefaultThreadFactory("khameleon-attached", true));
            }
            loops = closed ? null : group;
        }
        SocketAddress remote = peer.remoteAddress().orElseGet(
                () -> new AttachedChannel.PeerAddress("attached-" + counter.incrementAndGet()));
        AddressLimits.Admission admission = runtime.addressLimits.tryOpen(remote);
        if (admission.ticket() == null) {
            return refuse(peer, remote, 1008, admission.refusal().code, "per-address limit reached");
        }
        String origin = peer.origin().orElse(null);
        if (loops == null || runtime.draining) {
            admission.ticket().close();
            return refuse(peer, remote, 1013, "draining", "the server is draining");
        }
        if (!config.allowedHosts().isEmpty()
                && !HandshakeGate.hostAllowed(config, peer.host().orElse(null), false)) {
            admission.ticket().close();
            return refuse(peer, remote, 1008, "forbidden_host", "host " + peer.host().orElse(null)
                    + " is not allowed");
        }
        if (origin != null && !HandshakeGate.originAllowed(config, origin, peer.host().orElse(null))) {
            admission.ticket().close();
            return refuse(peer, remote, 1008, "forbidden_origin", "origin " + origin + " is not allowed");
        }
        AttachedChannel ch = new AttachedChannel(peer, remote,
                new WriteBufferWaterMark(config.writeBufferLowBytes(), config.writeBufferHighBytes()));
        AddressLimits.Ticket ticket = admission.ticket();
        ch.attr(AddressLimits.TICKET).set(ticket);
        ch.closeFuture().addListener(f -> ticket.close());
        WebSocketPipeline.of(config).addAttached(ch.pipeline(), app.application().requestScope().isPresent(),
                () -> new HelloHandler(runtime, app, null));
        // Registered, and its listener added, under the lock that shutdown() takes before it shuts the
        // group down: a registration is either refused here or queued (with its listener) before
        // the shutdown, which runs queued tasks; a listener added after a terminated loop had
        // completed the registration would never run and leave the peer open.
        synchronized (lock) {
            if (closed) {
                ticket.close();
                return refuse(peer, remote, 1001, "shutdown", "the server is shutting down");
            }
            loops.next().register(ch).addListener(f -> onRegistered(f, ch, ticket, peer, app));
        }
        return ch.connection();
    }

    /** On the channel's loop: starts the session, or closes a channel the server no longer wants. */
    private void onRegistered(Future<? super Void> f, AttachedChannel ch, AddressLimits.Ticket ticket,
                              WebSocketPeer peer, ServerRuntime.App app) {
        if (!f.isSuccess()) {
            ticket.close();
            peer.close(1011, "internal_error");
            return;
        }
        channels.add(ch);
        ch.closeFuture().addListener(c -> channels.remove(ch));
        // Added before the check, and shutdown() sets the flag before it closes the set's channels:
        // a channel registered while the server closes is closed either way.
        if (closed) {
            ch.close();
            return;
        }
        // The handshake is done (by the other stack): start the session as the protocol handler would.
        ch.pipeline().fireUserEventTriggered(new WebSocketServerProtocolHandler.HandshakeComplete(
                app.application().path(), EmptyHttpHeaders.INSTANCE, null));
    }

    private AttachedConnection refuse(WebSocketPeer peer, SocketAddress remote, int status, String code,
                                      String reason) {
        runtime.handshakesRefused.increment();
        runtime.refusals.log(Level.INFO, "refused connection from " + remote, code, "close " + status + ", " + reason);
        try {
            peer.close(status, code);
        } catch (RuntimeException e) {
            log.debug("refused attached connection from {}: the adapter failed to close: {}", remote, e.toString());
        }
        return AttachedChannel.CLOSED;
    }

    /**
     * Refuses connections from now on, closes the open ones and starts shutting the event loops
     * down, letting queued tasks run for up to the shutdown timeout. Idempotent.
     */
    void shutdown() {
        EventLoopGroup g;
        synchronized (lock) {
            closed = true;
            g = group;
        }
        if (g != null) {
            for (Channel c : channels) {
                c.close();
            }
            g.shutdownGracefully(0, config.shutdownTimeoutMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Waits up to the shutdown timeout for the event loops to end, after {@link #shutdown}. */
    void awaitTermination() {
        EventLoopGroup g;
        synchronized (lock) {
            g = group;
        }
        if (g != null) {
            g.terminationFuture().awaitUninterruptibly(config.shutdownTimeoutMillis());
        }
    }
}
