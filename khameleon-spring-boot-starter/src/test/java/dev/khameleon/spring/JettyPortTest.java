package dev.khameleon.spring;

import org.springframework.boot.autoconfigure.websocket.servlet.JettyWebSocketServletWebServerCustomizer;
import org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * On embedded Jetty 12 (ee10), Boot's other servlet web server: the shared behaviour of
 * {@link BootPortContract}. Jetty publishes each client's address itself.
 */
class JettyPortTest extends BootPortContract {

    /**
     * Jetty instead of Tomcat, which is also on the test class path: Boot backs off its own server
     * factory for this one, and sets up Jetty's Jakarta WebSocket container only through a
     * customizer that Tomcat's (registered under the same bean name) would otherwise displace.
     */
    @Configuration(proxyBeanMethods = false)
    static class JettyServer {
        @Bean
        JettyServletWebServerFactory jettyServletWebServerFactory() {
            return new JettyServletWebServerFactory();
        }

        @Bean
        JettyWebSocketServletWebServerCustomizer jettyWebSocketCustomizer() {
            return new JettyWebSocketServletWebServerCustomizer();
        }
    }

    @Override
    Class<?>[] webServer() {
        return new Class<?>[] {JettyServer.class};
    }
}
