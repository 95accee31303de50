package dev.khameleon.jakarta;

import dev.khameleon.server.KhameleonServer;
import jakarta.websocket.HandshakeResponse;
import jakarta.websocket.server.HandshakeRequest;
import jakarta.websocket.server.ServerEndpointConfig;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Endpoint configurations that serve a Khameleon server's applications from a Jakarta WebSocket
 * 2.1 container (Jetty 12, Tomcat 10.1 and others):
 *
 * <pre>{@code
 * KhameleonServer khameleon = KhameleonServer.builder().application(app).build().mount();
 * serverContainer.addEndpoint(KhameleonEndpoints.at(khameleon, app.path()));
 * }</pre>
 *
 * <p>Each connection the container accepts at the path is attached to the server
 * ({@link KhameleonServer#attach}): the container does the handshake, framing and pings, and
 * limits the message size; the server applies its origin check, per-address limits, hello
 * deadline, session limits and timeouts, and paces its sends on the container's completions.
 */
public final class KhameleonEndpoints {
    /** The largest client message by default: the server's default {@code maxFramePayloadBytes}. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

    static final String ORIGIN = "dev.khameleon.jakarta.origin";
    static final String HOST = "dev.khameleon.jakarta.host";

    private KhameleonEndpoints() {
    }

    /**
     * The configuration of an endpoint at {@code path} serving the application that {@code server}
     * mounts at that path, accepting client messages of up to {@link #DEFAULT_MAX_MESSAGE_BYTES}.
     *
     * @throws IllegalArgumentException if {@code server} has no application at {@code path}
     */
    public static ServerEndpointConfig at(KhameleonServer server, String path) {
        return at(server, path, DEFAULT_MAX_MESSAGE_BYTES);
    }

    /**
     * The configuration of an endpoint at {@code path} serving the application that {@code server}
     * mounts at that path. {@code maxMessageBytes}, in {@code [256, 16777216]}, is the largest
     * client message the container accepts (larger ones close the connection with 1009); keep it
     * equal to the server's {@code maxFramePayloadBytes}.
     *
     * @throws IllegalArgumentException if {@code server} has no application at {@code path}, or
     *     {@code maxMessageBytes} is out of range
     */
    public static ServerEndpointConfig at(KhameleonServer server, String path, int maxMessageBytes) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(path, "path");
        if (server.applications().stream().noneMatch(a -> a.path().equals(path))) {
            throw new IllegalArgumentException("the server has no application at path " + path);
        }
        if (maxMessageBytes < 256 || maxMessageBytes > 16 << 20) {
            throw new IllegalArgumentException("maxMessageBytes must be in [256, 16777216], was " + maxMessageBytes);
        }
        return ServerEndpointConfig.Builder.create(KhameleonEndpoint.class, path)
                .configurator(new Configurator(server, path, maxMessageBytes))
                .build();
    }

    /** Makes one endpoint per connection and keeps the upgrade request's Origin and Host for the origin check. */
    private static final class Configurator extends ServerEndpointConfig.Configurator {
        private final KhameleonServer server;
        private final String path;
        private final int maxMessageBytes;

        Configurator(KhameleonServer server, String path, int maxMessageBytes) {
            this.server = server;
            this.path = path;
            this.maxMessageBytes = maxMessageBytes;
        }

        @Override
        public void modifyHandshake(ServerEndpointConfig sec, HandshakeRequest request, HandshakeResponse response) {
            // The container gives each connection its own copy of the user properties (Jakarta WebSocket 2.1).
            Map<String, Object> props = sec.getUserProperties();
            first(request.getHeaders(), "Origin").ifPresent(o -> props.put(ORIGIN, o));
            first(request.getHeaders(), "Host").ifPresent(h -> props.put(HOST, h));
        }

        private static java.util.Optional<String> first(Map<String, List<String>> headers, String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return java.util.Optional.of(e.getValue().get(0));
                }
            }
            return java.util.Optional.empty();
        }

        @Override
        public boolean checkOrigin(String originHeaderValue) {
            return true; // the Khameleon server checks the origin, against the Host too, when the connection attaches
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getEndpointInstance(Class<T> endpointClass) {
            return (T) new KhameleonEndpoint(server, path, maxMessageBytes);
        }
    }
}
