package dev.khameleon.server.spi;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The client end of a WebSocket connection that another WebSocket stack accepted (a Jakarta
 * WebSocket container, a servlet container, …), as a Khameleon server writes to it through
 * {@link dev.khameleon.server.KhameleonServer#attach}. An adapter implements it over its stack's
 * session; the stack owns the handshake, framing, pings and the maximum message size.
 *
 * <p><b>Threading.</b> The server calls the send methods and {@link #close} from one thread at a
 * time, and never starts a send before the previous one's stage has completed, so an adapter need
 * not queue (some stacks refuse a second asynchronous send while one is in progress). Sends must
 * not block: they return at once and complete the stage when the message is written, or
 * exceptionally when it cannot be (also when the connection closes meanwhile); the server's
 * back-pressure (its write-buffer water marks) works on these completions.
 */
public interface WebSocketPeer {

    /** Sends one whole text message. */
    CompletionStage<Void> sendText(String text);

    /** Sends one whole binary message; {@code data} is the adapter's to keep (a heap buffer of its own). */
    CompletionStage<Void> sendBinary(ByteBuffer data);

    /**
     * Sends a close frame with {@code status} (an RFC 6455 code, never 1005 or 1006) and
     * {@code reason} (at most 123 bytes of UTF-8), then closes the connection. Called once; sends
     * still in progress may be abandoned.
     */
    void close(int status, String reason);

    /**
     * Completes once the stack has carried out {@link #close}: its close frame written, or the
     * connection already gone (also when the close failed). A server shutting down waits for it,
     * within its shutdown timeout, before it returns, so a container stopped next does not cut the
     * close frame off. The default completes at once, for stacks whose {@code close} has done so
     * by the time it returns; an adapter that closes on another thread returns that close's stage.
     */
    default CompletionStage<Void> closed() {
        return CompletableFuture.completedFuture(null);
    }

    /** The client's address, for the per-address limits and the logs; empty if the stack does not tell. */
    default Optional<SocketAddress> remoteAddress() {
        return Optional.empty();
    }

    /** The upgrade request's {@code Origin} header, for the server's origin check; empty if none was sent. */
    default Optional<String> origin() {
        return Optional.empty();
    }

    /** The upgrade request's {@code Host} header, which a same-origin {@code Origin} must match; empty if unknown. */
    default Optional<String> host() {
        return Optional.empty();
    }
}
