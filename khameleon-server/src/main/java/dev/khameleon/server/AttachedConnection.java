package dev.khameleon.server;

import java.nio.ByteBuffer;

/**
 * A WebSocket connection accepted by another WebSocket stack and attached to a Khameleon server
 * with {@link KhameleonServer#attach}: the adapter feeds it what the client sends and tells it when
 * the connection ends; the server answers through the adapter's
 * {@link dev.khameleon.server.spi.WebSocketPeer}.
 *
 * <p>Thread-safe; every method returns at once (the work runs on the connection's event loop).
 * Calls after the connection has closed are ignored.
 */
public interface AttachedConnection {

    /** The client sent a whole text message (a control message of the protocol). */
    void onText(String text);

    /**
     * The client sent a whole binary message. Clients send none in this protocol, so this closes
     * the session with a protocol error, as on the server's own port. {@code data} is not kept.
     */
    void onBinary(ByteBuffer data);

    /** The connection ended (closed by the client, or failed): the session ends and frees its places. */
    void onClose();

    /** Whether the connection is still open on the server's side. */
    boolean isOpen();
}
