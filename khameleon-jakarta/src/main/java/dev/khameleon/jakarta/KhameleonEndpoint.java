package dev.khameleon.jakarta;

import dev.khameleon.server.AttachedConnection;
import dev.khameleon.server.KhameleonServer;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * One connection's endpoint: attaches the container's session to the Khameleon server on open and
 * passes the client's messages and the end of the connection on. Made by
 * {@link KhameleonEndpoints}' configurator, one instance per connection; public only because
 * containers instantiate endpoint classes reflectively.
 */
public final class KhameleonEndpoint extends Endpoint {
    private static final Logger log = LoggerFactory.getLogger(KhameleonEndpoint.class);

    private final KhameleonServer server;
    private final String path;
    private final int maxMessageBytes;
    private volatile AttachedConnection connection;

    KhameleonEndpoint(KhameleonServer server, String path, int maxMessageBytes) {
        this.server = server;
        this.path = path;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** Attaches the session; called by the container when the handshake has completed. */
    @Override
    public void onOpen(Session session, EndpointConfig config) {
        session.setMaxTextMessageBufferSize(maxMessageBytes);
        session.setMaxBinaryMessageBufferSize(maxMessageBytes);
        AttachedConnection c = server.attach(path, new JakartaPeer(session,
                (String) config.getUserProperties().get(KhameleonEndpoints.ORIGIN),
                (String) config.getUserProperties().get(KhameleonEndpoints.HOST)));
        connection = c;
        if (!c.isOpen()) {
            return; // refused: the server has closed the session through the peer
        }
        session.addMessageHandler(String.class, (MessageHandler.Whole<String>) c::onText);
        session.addMessageHandler(ByteBuffer.class, (MessageHandler.Whole<ByteBuffer>) c::onBinary);
    }

    /** Ends the Khameleon session; called by the container when the connection has closed. */
    @Override
    public void onClose(Session session, CloseReason closeReason) {
        AttachedConnection c = connection;
        if (c != null) {
            c.onClose();
        }
    }

    /** A transport error: the connection is over for Khameleon (the container closes it). */
    @Override
    public void onError(Session session, Throwable thr) {
        log.debug("jakarta session {}: {}", session.getId(), thr.toString());
        AttachedConnection c = connection;
        if (c != null) {
            c.onClose();
        }
    }
}
