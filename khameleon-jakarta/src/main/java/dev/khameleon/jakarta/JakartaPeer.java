package dev.khameleon.jakarta;

import dev.khameleon.server.spi.WebSocketPeer;
import jakarta.websocket.CloseReason;
import jakarta.websocket.SendHandler;
import jakarta.websocket.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A container's WebSocket session as the Khameleon server writes to it: asynchronous sends whose
 * completion the server waits for before the next, and a close that never blocks the caller (some
 * containers write the close frame synchronously, so it runs on a pool thread).
 */
final class JakartaPeer implements WebSocketPeer {
    private static final Logger log = LoggerFactory.getLogger(JakartaPeer.class);
    /** Where Jetty (and some other containers) publish the client's address; the API itself has no accessor. */
    static final String REMOTE_ADDRESS = "jakarta.websocket.endpoint.remoteAddress";

    private final Session session;
    private final String origin;
    private final String host;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    JakartaPeer(Session session, String origin, String host) {
        this.session = session;
        this.origin = origin;
        this.host = host;
    }

    @Override
    public CompletionStage<Void> sendText(String text) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            session.getAsyncRemote().sendText(text, completer(done));
        } catch (RuntimeException e) { // e.g. the session closed meanwhile
            done.completeExceptionally(e);
        }
        return done;
    }

    @Override
    public CompletionStage<Void> sendBinary(ByteBuffer data) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            session.getAsyncRemote().sendBinary(data, completer(done));
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    private static SendHandler completer(CompletableFuture<Void> done) {
        return result -> {
            if (result.isOK()) {
                done.complete(null);
            } else {
                done.completeExceptionally(result.getException() != null ? result.getException()
                        : new IOException("send failed"));
            }
        };
    }

    @Override
    public void close(int status, String reason) {
        CloseReason why = new CloseReason(CloseReason.CloseCodes.getCloseCode(status), reason);
        CompletableFuture.runAsync(() -> {
            try {
                session.close(why);
            } catch (IOException | RuntimeException e) {
                log.debug("jakarta session {}: close failed: {}", session.getId(), e.toString());
            } finally {
                closed.complete(null);
            }
        });
    }

    /** Completes when the container's {@code Session.close} has returned (or failed) on the pool thread. */
    @Override
    public CompletionStage<Void> closed() {
        return closed;
    }

    @Override
    public Optional<SocketAddress> remoteAddress() {
        Object a = session.getUserProperties().get(REMOTE_ADDRESS);
        return a instanceof InetSocketAddress inet ? Optional.of(inet) : Optional.empty();
    }

    @Override
    public Optional<String> origin() {
        return Optional.ofNullable(origin);
    }

    @Override
    public Optional<String> host() {
        return Optional.ofNullable(host);
    }
}
