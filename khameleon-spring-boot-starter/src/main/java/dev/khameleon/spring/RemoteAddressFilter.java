package dev.khameleon.spring;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.websocket.Extension;
import jakarta.websocket.HandshakeResponse;
import jakarta.websocket.server.HandshakeRequest;
import jakarta.websocket.server.ServerEndpointConfig;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Tells the Khameleon endpoints the address of the client whose WebSocket upgrade they accept, so
 * that the server's per-address limits apply on Boot's port too. The Jakarta WebSocket API has no
 * accessor for it and Tomcat publishes none, so this filter keeps the servlet request's
 * {@code getRemoteAddr()} and {@code getRemotePort()} for the current thread while an upgrade
 * request passes on to the container, which calls the endpoint configurator's
 * {@code modifyHandshake} on that thread; the configurator from {@link #telling} stores the address
 * in the connection's user properties where {@code khameleon-jakarta} reads it. A container that
 * publishes the address itself (Jetty) keeps its own. The address is the one the servlet request
 * reports, so behind a proxy it is the client's only when Boot is set to trust the proxy's
 * forwarded headers ({@code server.forward-headers-strategy}).
 */
final class RemoteAddressFilter implements Filter {
    /** Where {@code khameleon-jakarta} reads the client's address (Jetty writes it there too). */
    static final String REMOTE_ADDRESS = "jakarta.websocket.endpoint.remoteAddress";
    private static final ThreadLocal<InetSocketAddress> UPGRADING = new ThreadLocal<>();
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        InetSocketAddress client = request instanceof HttpServletRequest http && isUpgrade(http)
                ? address(http.getRemoteAddr(), http.getRemotePort()) : null;
        if (client == null) {
            chain.doFilter(request, response);
            return;
        }
        UPGRADING.set(client);
        try {
            chain.doFilter(request, response);
        } finally {
            UPGRADING.remove();
        }
    }

    private static boolean isUpgrade(HttpServletRequest request) {
        String upgrade = request.getHeader("Upgrade");
        return upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
    }

    /** The address of a literal IP (never a name: no DNS look-up on a request thread), or null. */
    static InetSocketAddress address(String ip, int port) {
        if (ip == null || port < 0 || port > 65_535 || !(IPV4.matcher(ip).matches() || ip.indexOf(':') >= 0)) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    /** {@code config} with a configurator that adds the address this filter kept to each connection. */
    static ServerEndpointConfig telling(ServerEndpointConfig config) {
        return ServerEndpointConfig.Builder.create(config.getEndpointClass(), config.getPath())
                .subprotocols(config.getSubprotocols())
                .extensions(config.getExtensions())
                .encoders(config.getEncoders())
                .decoders(config.getDecoders())
                .configurator(new AddressConfigurator(config.getConfigurator()))
                .build();
    }

    /** Delegates everything to the endpoint's own configurator, then adds the client's address. */
    private static final class AddressConfigurator extends ServerEndpointConfig.Configurator {
        private final ServerEndpointConfig.Configurator delegate;

        AddressConfigurator(ServerEndpointConfig.Configurator delegate) {
            this.delegate = delegate;
        }

        @Override
        public void modifyHandshake(ServerEndpointConfig sec, HandshakeRequest request, HandshakeResponse response) {
            delegate.modifyHandshake(sec, request, response);
            InetSocketAddress client = UPGRADING.get();
            if (client != null) {
                sec.getUserProperties().putIfAbsent(REMOTE_ADDRESS, client);
            }
        }

        @Override
        public boolean checkOrigin(String originHeaderValue) {
            return delegate.checkOrigin(originHeaderValue);
        }

        @Override
        public String getNegotiatedSubprotocol(List<String> supported, List<String> requested) {
            return delegate.getNegotiatedSubprotocol(supported, requested);
        }

        @Override
        public List<Extension> getNegotiatedExtensions(List<Extension> installed, List<Extension> requested) {
            return delegate.getNegotiatedExtensions(installed, requested);
        }

        @Override
        public <T> T getEndpointInstance(Class<T> endpointClass) throws InstantiationException {
            return delegate.getEndpointInstance(endpointClass);
        }
    }
}
