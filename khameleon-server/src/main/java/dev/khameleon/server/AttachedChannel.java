package dev.khameleon.server;

import dev.khameleon.server.spi.WebSocketPeer;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * A Netty channel over a {@link WebSocketPeer}: it lets a connection that another WebSocket stack
 * accepted run the same session handler as a connection on the server's own port. Outbound
 * WebSocket frames become the peer's sends, one at a time: a frame leaves Netty's outbound buffer
 * only when its send completes, so the buffer's water marks and the channel's writability reflect
 * what the peer has not yet written, exactly as for a socket. Inbound messages are fired into the
 * pipeline as whole text or binary frames on the channel's event loop.
 *
 * <p>Runs on a {@link DefaultEventLoop} (no I/O of its own). Every method of Netty's contract runs
 * on that loop; {@link #connection()} may be used from any thread.
 */
final class AttachedChannel extends AbstractChannel {
    private static final Logger log = LoggerFactory.getLogger(AttachedChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false);
    /** A connection that was refused: it ignores everything. */
    static final AttachedConnection CLOSED = new AttachedConnection() {
        @Override
        public void onText(String text) {
        }

        @Override
        public void onBinary(ByteBuffer data) {
        }

        @Override
        public void onClose() {
        }

        @Override
        public boolean isOpen() {
            return false;
        }
    };
    /** Client messages that may wait for the event loop before the adapter's thread waits too. */
    static final int MAX_QUEUED_MESSAGES = 16;

    /** Names an attached client whose stack does not tell its address. */
    static final class PeerAddress extends SocketAddress {
        private static final long serialVersionUID = 1L;
        private final String name;

        PeerAddress(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private final WebSocketPeer peer;
    private final SocketAddress remote;
    private final ChannelConfig config = new DefaultChannelConfig(this);
    private volatile boolean open = true;
    /** A send to the peer is in progress; the next waits for it. Event loop only. */
    private boolean sending;
    /** The peer has been told to close. Event loop only. */
    private boolean peerClosed;
    /** Completes when the peer has carried out its close, or when the stack closed first (nothing to close). */
    private final CompletableFuture<Void> peerDone = new CompletableFuture<>();
    private final AttachedConnection connection = new Connection();

    AttachedChannel(WebSocketPeer peer, SocketAddress remote, WriteBufferWaterMark waterMark) {
        super(null);
        this.peer = peer;
        this.remote = remote;
        config.setWriteBufferWaterMark(waterMark);
    }

    /** What the adapter feeds. */
    AttachedConnection connection() {
        return connection;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new AttachedUnsafe();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof DefaultEventLoop;
    }

    @Override
    protected SocketAddress localAddress0() {
        return null;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("an attached connection cannot be bound");
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        open = false;
        if (!peerClosed) {
            // Closed without a close frame (e.g. the close timeout, or the client went away first).
            peerClosed = true;
            closePeer(1001, "closed");
        }
    }

    @Override
    protected void doBeginRead() {
        // Inbound messages are pushed by the adapter; there is nothing to start.
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        while (!sending) {
            Object msg = in.current();
            if (msg == null) {
                return;
            }
            if (msg instanceof CloseWebSocketFrame close) {
                int status = close.statusCode();
                String reason = close.reasonText();
                // Before remove(): completing the write may close the channel at once (a close listener).
                if (!peerClosed) {
                    peerClosed = true;
                    closePeer(status < 0 ? 1000 : status, reason == null ? "" : reason);
                }
                in.remove();
                continue;
            }
            CompletionStage<Void> sent;
            try {
                if (msg instanceof TextWebSocketFrame text) {
                    sent = peer.sendText(text.text());
                } else if (msg instanceof BinaryWebSocketFrame binary) {
                    // A copy: the frame is released when the channel closes, which may be before the
                    // peer is done with the bytes.
                    sent = peer.sendBinary(ByteBuffer.wrap(ByteBufUtil.getBytes(binary.content())));
                } else {
                    in.remove(new UnsupportedOperationException("an attached connection sends WebSocket text,"
                            + " binary and close frames only, not " + msg.getClass().getSimpleName()));
                    continue;
                }
            } catch (RuntimeException e) { // an adapter's bug: the connection cannot go on
                in.remove(e);
                continue;
            }
            sending = true;
            sent.whenComplete((v, error) -> {
                try {
                    eventLoop().execute(() -> sendDone(error));
                } catch (RejectedExecutionException e) {
                    // The server is closed: the channel has released what was queued.
                }
            });
        }
    }

    private void sendDone(Throwable error) {
        sending = false;
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        if (in == null || in.current() == null) {
            return; // closed meanwhile: the channel has failed and released what was queued
        }
        if (error == null) {
            in.remove();
        } else {
            in.remove(error);
        }
        ((AttachedUnsafe) unsafe()).writeMore();
    }

    private void closePeer(int status, String reason) {
        try {
            peer.close(status, reason);
            peer.closed().whenComplete((x, e) -> peerDone.complete(null));
        } catch (RuntimeException e) {
            log.debug("attached connection {}: the adapter failed to close: {}", remote, e.toString());
            peerDone.complete(null);
        }
    }

    /**
     * Completes once the peer has carried out the close the channel gave it ({@link WebSocketPeer#closed}),
     * or at once if the stack closed the connection itself; a server shutting down waits for it.
     */
    CompletionStage<Void> peerClosed() {
        return peerDone;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    private final class AttachedUnsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("an attached connection is already connected"));
        }

        /** Writes what was flushed while the last send was in progress. */
        void writeMore() {
            flush0();
        }
    }

    /**
     * Feeds the pipeline on the event loop, whatever thread the adapter calls from. At most
     * {@link #MAX_QUEUED_MESSAGES} messages wait for the loop; beyond that the adapter's thread
     * waits, which holds the client back (its stack stops reading) instead of queueing without bound.
     */
    private final class Connection implements AttachedConnection {
        private final Semaphore queued = new Semaphore(MAX_QUEUED_MESSAGES);

        @Override
        public void onText(String text) {
            run(() -> pipeline().fireChannelRead(new TextWebSocketFrame(text)));
        }

        @Override
        public void onBinary(ByteBuffer data) {
            byte[] copy = new byte[data.remaining()];
            data.duplicate().get(copy);
            run(() -> pipeline().fireChannelRead(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(copy))));
        }

        @Override
        public void onClose() {
            peerClosedByClient();
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        private void run(Runnable task) {
            if (!open) {
                return;
            }
            queued.acquireUninterruptibly();
            try {
                eventLoop().execute(() -> {
                    queued.release();
                    if (open) {
                        task.run();
                    }
                });
            } catch (RejectedExecutionException e) {
                queued.release();
                log.debug("attached connection {}: message after the server closed", remote);
            }
        }
    }

    private void peerClosedByClient() {
        try {
            eventLoop().execute(() -> {
                peerClosed = true; // the stack has closed: nothing to send it
                peerDone.complete(null);
                if (open) {
                    unsafe().close(voidPromise());
                }
            });
        } catch (RejectedExecutionException e) {
            open = false;
            peerDone.complete(null);
        }
    }

    @Override
    public String toString() {
        return "AttachedChannel(" + remote + (open ? "" : ", closed") + ")";
    }
}
