package dev.khameleon.spring;

import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs a {@link KhameleonServer} for the application context's {@link Application} beans.
 *
 * <p>Applies only when the context has at least one {@code Application} bean. Then it defines a
 * {@code KhameleonServer} bean with every {@code Application} (in {@code @Order} order), configured
 * from {@link KhameleonProperties} ({@code khameleon.*}), and starts it once the context is
 * refreshed; on shutdown it closes every session with {@code shutdown} and waits up to
 * {@code khameleon.shutdown-timeout}. The server listens on its own port, not on the port of
 * Boot's web server. A property the server rejects fails the context with an
 * {@link IllegalArgumentException} that names the property.
 *
 * <p>Backs off entirely when the context defines its own {@code KhameleonServer} bean: the user's
 * server is then neither configured nor started here (Spring still calls its {@code close()} when
 * the context closes).
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
        KhameleonServer khameleonServer(KhameleonProperties properties, ObjectProvider<Application> applications) {
            KhameleonServer.Builder builder = properties.toBuilder();
            applications.orderedStream().forEach(builder::application);
            return properties.build(builder);
        }

        @Bean
        ServerLifecycle khameleonServerLifecycle(KhameleonServer server) {
            return new ServerLifecycle(server);
        }
    }
}
