package dev.khameleon.spring;

import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.spring.KhameleonProperties.Mode;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Serves the application context's {@link Application} beans with a {@link KhameleonServer}.
 *
 * <p>Applies only when the context has at least one {@code Application} bean. Then it defines a
 * {@code KhameleonServer} bean with every {@code Application} (in {@code @Order} order), configured
 * from {@link KhameleonProperties} ({@code khameleon.*}). Where it serves depends on
 * {@code khameleon.mode}:
 * <ul>
 *   <li>{@code auto} (the default): on the port of Boot's own web server when the application is a
 *       servlet web application whose server has a Jakarta WebSocket container (Tomcat, Boot's
 *       default, Jetty and Undertow have one), through {@code khameleon-jakarta}'s endpoint, one
 *       per application path; otherwise (no web server, WebFlux, a mock servlet environment) on a
 *       port of its own;</li>
 *   <li>{@code embedded}: on Boot's port, and startup fails when that is not possible;</li>
 *   <li>{@code own-port}: on {@code khameleon.host}:{@code khameleon.port}.</li>
 * </ul>
 * On Boot's port the endpoints are registered once every singleton exists, before the web server
 * accepts connections, and {@code GET /healthz} answers for the server unless
 * {@code khameleon.healthz=false}. On a port of its own the server starts once the context is
 * refreshed. Either way, on shutdown (before Boot's web server stops) it closes every session with
 * {@code shutdown} and waits up to {@code khameleon.shutdown-timeout}. A property the server
 * rejects fails the context with an {@link IllegalArgumentException} that names the property.
 *
 * <p>Backs off entirely when the context defines its own {@code KhameleonServer} bean: the user's
 * server is then neither configured, mounted nor started here (Spring still calls its
 * {@code close()} when the context closes).
 */
@AutoConfiguration
@ConditionalOnBean(Application.class)
@EnableConfigurationProperties(KhameleonProperties.class)
public class KhameleonAutoConfiguration {

    /** Creates the auto-configuration; Spring Boot calls it. */
    public KhameleonAutoConfiguration() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(KhameleonServer.class)
    static class ServerConfiguration {

        @Bean
        KhameleonServer khameleonServer(KhameleonProperties properties, ObjectProvider<Application> applications,
                                        ObjectProvider<WebServerMount> webServer) {
            if (properties.getMode() == null) {
                throw new IllegalArgumentException("khameleon.mode: must be one of auto, embedded, own-port");
            }
            if (properties.getMode() == Mode.EMBEDDED && webServer.getIfAvailable() == null) {
                throw new IllegalArgumentException("khameleon.mode: embedded needs a servlet web application whose"
                        + " web server has a Jakarta WebSocket container (e.g. spring-boot-starter-web); set"
                        + " khameleon.mode=own-port (or auto) to serve on a port of Khameleon's own");
            }
            KhameleonServer.Builder builder = properties.toBuilder();
            applications.orderedStream().forEach(builder::application);
            return properties.build(builder);
        }

        @Bean
        ServerLifecycle khameleonServerLifecycle(KhameleonServer server, ObjectProvider<WebServerMount> webServer) {
            WebServerMount mount = webServer.getIfAvailable();
            return new ServerLifecycle(server, mount != null ? mount::mount : () -> false);
        }

        /**
         * Boot's port, in a servlet web application with a Jakarta WebSocket API on the class path,
         * unless {@code khameleon.mode=own-port}. Whether the web server really has a container is
         * known only once it has been created: {@link ServletWebServerMount} checks then.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        @ConditionalOnClass(name = {"jakarta.websocket.server.ServerContainer", "jakarta.servlet.Filter"})
        @Conditional(NotOwnPortCondition.class)
        static class WebServerConfiguration {

            @Bean
            ServletWebServerMount khameleonWebServerMount(ApplicationContext context,
                                                          ObjectProvider<KhameleonServer> server,
                                                          KhameleonProperties properties) {
                return new ServletWebServerMount(context, server, properties);
            }

            /** Tells the endpoints each client's address, for the per-address limits (Tomcat does not). */
            @Bean
            FilterRegistrationBean<RemoteAddressFilter> khameleonRemoteAddressFilter() {
                FilterRegistrationBean<RemoteAddressFilter> filter = new FilterRegistrationBean<>(new RemoteAddressFilter());
                filter.setName("khameleonRemoteAddressFilter");
                filter.setOrder(Ordered.HIGHEST_PRECEDENCE);
                return filter;
            }

            @Bean
            @ConditionalOnProperty(prefix = "khameleon", name = "healthz", havingValue = "true", matchIfMissing = true)
            ServletRegistrationBean<HealthzServlet> khameleonHealthzServlet(ObjectProvider<KhameleonServer> server) {
                ServletRegistrationBean<HealthzServlet> servlet = new ServletRegistrationBean<>(
                        new HealthzServlet(server), HealthzServlet.PATH);
                servlet.setName("khameleonHealthz");
                return servlet;
            }
        }
    }

    /** Matches unless {@code khameleon.mode} is {@code own-port}, in any spelling Spring binds to it. */
    static final class NotOwnPortCondition extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Mode mode = Binder.get(context.getEnvironment()).bind("khameleon.mode", Mode.class).orElse(Mode.AUTO);
            return mode == Mode.OWN_PORT ? ConditionOutcome.noMatch("khameleon.mode is own-port")
                    : ConditionOutcome.match("khameleon.mode is " + mode);
        }
    }
}
