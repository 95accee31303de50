package dev.khameleon.spring;

import dev.khameleon.jakarta.KhameleonEndpoints;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.spring.KhameleonProperties.Mode;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.server.ServerContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.web.context.WebApplicationContext;

/**
 * Mounts the auto-configured server on Boot's servlet web server: once every singleton exists
 * (after the web server has been created, before it accepts connections), it looks for the
 * Jakarta WebSocket container in the servlet context and registers one {@link KhameleonEndpoints}
 * endpoint per application path, with the largest client message set to
 * {@code khameleon.max-frame-payload-bytes}. It needs, besides the container, a servlet mapped
 * over every application path, as Spring MVC's {@code DispatcherServlet} is at {@code /}: servlet
 * containers such as Tomcat run no filter, hence no WebSocket upgrade, for a request that no
 * servlet maps. Without either (a mock servlet environment, a server without WebSocket support, an
 * application without Spring MVC) it leaves the server to its own port in {@code auto} mode and
 * fails startup in {@code embedded} mode.
 */
final class ServletWebServerMount implements WebServerMount, SmartInitializingSingleton {
    private static final Logger log = LoggerFactory.getLogger(ServletWebServerMount.class);

    private final ApplicationContext context;
    private final ObjectProvider<KhameleonServer> server;
    private final KhameleonProperties properties;
    /** Null until decided, then whether the server is mounted; guarded by this. */
    private Boolean mounted;

    ServletWebServerMount(ApplicationContext context, ObjectProvider<KhameleonServer> server,
                          KhameleonProperties properties) {
        this.context = context;
        this.server = server;
        this.properties = properties;
    }

    /** Mounts the server now that every singleton exists: before the web server accepts connections. */
    @Override
    public void afterSingletonsInstantiated() {
        mount();
    }

    /**
     * Registers the endpoints, or leaves the server to its own port; decides once.
     *
     * @throws IllegalStateException in {@code embedded} mode without a container, or if the
     *     container refuses an endpoint (e.g. another endpoint already has the path)
     */
    @Override
    public synchronized boolean mount() {
        if (mounted == null) {
            mounted = tryMount();
        }
        return mounted;
    }

    private boolean tryMount() {
        ServletContext servletContext = context instanceof WebApplicationContext web ? web.getServletContext() : null;
        Object attribute = servletContext == null ? null : servletContext.getAttribute(ServerContainer.class.getName());
        if (!(attribute instanceof ServerContainer container)) {
            return ownPort("the web server has no Jakarta WebSocket container (no " + ServerContainer.class.getName()
                    + " in the servlet context)");
        }
        KhameleonServer khameleon = server.getObject();
        for (Application app : khameleon.applications()) {
            if (!servletMaps(servletContext, app.path())) {
                return ownPort("no servlet maps the path " + app.path() + " of application " + app.name()
                        + ", so the web server would not pass its upgrade requests on (Spring MVC's"
                        + " DispatcherServlet, of spring-boot-starter-web, maps every path)");
            }
        }
        khameleon.mount();
        for (Application app : khameleon.applications()) {
            try {
                container.addEndpoint(RemoteAddressFilter.telling(
                        KhameleonEndpoints.at(khameleon, app.path(), properties.getMaxFramePayloadBytes())));
            } catch (DeploymentException | RuntimeException e) {
                throw new IllegalStateException("cannot serve Khameleon application " + app.name() + " at "
                        + app.path() + " on the web server: " + e.getMessage(), e);
            }
        }
        log.info("Khameleon serves {} on the web server's port", khameleon.applications().stream()
                .map(Application::path).toList());
        return true;
    }

    /** Leaves the server to its own port (returns false), or fails startup if the mode says Boot's port. */
    private boolean ownPort(String why) {
        if (properties.getMode() == Mode.EMBEDDED) {
            throw new IllegalStateException("khameleon.mode=embedded, but " + why);
        }
        log.info("Khameleon serves on a port of its own: {}", why);
        return false;
    }

    /** Whether a servlet mapping of {@code context} matches {@code path} (Servlet spec 12.2 patterns). */
    static boolean servletMaps(ServletContext context, String path) {
        for (ServletRegistration registration : context.getServletRegistrations().values()) {
            for (String mapping : registration.getMappings()) {
                if (mapping.equals("/") || mapping.equals("/*") || mapping.equals(path)
                        || mapping.endsWith("/*") && (path.equals(mapping.substring(0, mapping.length() - 2))
                                || path.startsWith(mapping.substring(0, mapping.length() - 1)))
                        || mapping.startsWith("*.") && path.endsWith(mapping.substring(1))) {
                    return true;
                }
            }
        }
        return false;
    }
}
