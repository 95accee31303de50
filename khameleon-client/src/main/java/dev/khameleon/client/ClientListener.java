package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.ControlMessage.ErrorMessage;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.protocol.ProtocolException;

/**
 * Tells the application what happens to the connection. Every method has an empty default;
 * override the ones you need. Calls run on the client's upcall executor, in order; an exception
 * thrown here is caught and logged.
 */
public interface ClientListener {

    /** A session started: the server's welcome (block size, request count, horizons, …). */
    default void onConnected(Welcome welcome) {
    }

    /**
     * After a reconnect the cache was emptied and the ring restarts at {@code firstSeq}: responses
     * the application holds are still valid, but it can no longer count on finding their blocks
     * in the cache. Registered requests keep waiting for blocks from the new session.
     */
    default void onCacheInvalidated(long firstSeq) {
    }

    /**
     * A reconnect asked the server to resume the session with the cache as it was. If
     * {@code resumed}, the cache was kept and the ring continues at {@code welcome.firstSeq()}
     * (no {@link #onCacheInvalidated} follows); otherwise the server started a fresh session
     * ({@code refusal} says why, e.g. {@code "expired"}; empty if the server does not offer
     * resume) and {@link #onCacheInvalidated} follows. Comes after {@link #onConnected}.
     */
    default void onResume(boolean resumed, Welcome welcome, String refusal) {
    }

    /**
     * The connection ended ({@code status} as in RFC 6455, or 1006 when it broke without a close
     * frame); {@code willReconnect} says whether the client will try again.
     */
    default void onDisconnected(int status, String reason, boolean willReconnect) {
    }

    /** The server sent an {@code error} message (it closes the connection next). */
    default void onServerError(ErrorMessage error) {
    }

    /**
     * {@code requestIds} now mean other content (the server rebound them after a
     * {@linkplain KhameleonClient#scope scope} change): their cached blocks were dropped, blocks
     * of their old meaning still on the way are ignored, and registrations of them still active
     * start over with the new content. Answers the application got before are answers to the old
     * meaning.
     */
    default void onRebind(int[] requestIds) {
    }

    /**
     * The server's predictor rejected {@code state}, the last state this client sent on the
     * session ({@code invalid_state}; {@code message} is the server's reason). The server closes
     * the connection next; the client reconnects with back-off and never sends this state again
     * (it waits for its predictor to produce a different one). Follows {@link #onServerError}.
     */
    default void onStateRejected(JsonNode state, String message) {
    }

    /**
     * The server sent something that breaks the protocol (a malformed block frame or control
     * message). The client closes that connection with status 1007 and, if enabled, reconnects.
     */
    default void onProtocolError(ProtocolException error) {
    }
}
