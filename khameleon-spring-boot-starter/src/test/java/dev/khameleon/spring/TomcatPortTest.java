package dev.khameleon.spring;

import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.websocket.servlet.TomcatWebSocketServletWebServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On embedded Tomcat 10.1, Boot's default web server: the shared behaviour of
 * {@link BootPortContract}, the fallback to a port of its own when no servlet maps the application
 * path, and {@code own-port} mode next to Tomcat.
 */
class TomcatPortTest extends BootPortContract {

    /**
     * Tomcat's Jakarta WebSocket container. Boot picks Tomcat's server factory first, but with
     * Jetty also on the test class path its WebSocket customizer, registered under the same bean
     * name as Tomcat's, can displace Tomcat's; an application has one web server and needs none of this.
     */
    @Configuration(proxyBeanMethods = false)
    static class TomcatWebSocket {
        @Bean
        TomcatWebSocketServletWebServerCustomizer tomcatWebSocketCustomizer() {
            return new TomcatWebSocketServletWebServerCustomizer();
        }
    }

    @Override
    Class<?>[] webServer() {
        return new Class<?>[] {TomcatWebSocket.class};
    }

    @Test
    void withoutAServletOverTheApplicationPath_autoKeepsAPortOfItsOwn() throws Exception {
        String noDispatcher = "spring.autoconfigure.exclude="
                + "org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration,"
                + "org.springframework.boot.autoconfigure.web.servlet.error.ErrorMvcAutoConfiguration";
        ConfigurableApplicationContext context = start(noDispatcher, "khameleon.port=0");
        KhameleonServer server = context.getBean(KhameleonServer.class);
        assertNotEquals(webPort(context), server.port());
        try (KhameleonClient<PointerEvent> client = client(server.port(), new ClientListener() { })) {
            client.connect().get(10, TimeUnit.SECONDS);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> start(noDispatcher, "khameleon.mode=embedded"));
        assertTrue(e.getMessage().contains("no servlet maps the path /gallery"), e.getMessage());
    }

    @Test
    void lazyInitialization_stillServesOnBootsPort() throws Exception {
        ConfigurableApplicationContext context = start("spring.main.lazy-initialization=true");
        try (KhameleonClient<PointerEvent> client = client(webPort(context), new ClientListener() { })) {
            client.connect().get(10, TimeUnit.SECONDS);
        }
        assertEquals(1, context.getBean(KhameleonServer.class).metrics().sessionsOpened());
    }

    /**
     * docs/spring-boot.md: {@code /khameleon/khameleon.js} is the khameleon-client jar's
     * {@code META-INF/resources/khameleon/khameleon.js} (the starter holds no copy, so without
     * that jar there is nothing to serve), on Boot's port and under the context path.
     */
    @Test
    void khameleonJs_isServedFromTheClientJar() throws Exception {
        String resource = "META-INF/resources/khameleon/khameleon.js";
        List<URL> copies = Collections.list(getClass().getClassLoader().getResources(resource));
        assertEquals(1, copies.size(), "one copy on the class path: " + copies);
        assertTrue(copies.get(0).toString().contains("khameleon-client"), "from khameleon-client: " + copies);
        String module;
        try (InputStream in = copies.get(0).openStream()) {
            module = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        int port = webPort(start());
        HttpResponse<String> served = get(port, "/khameleon/khameleon.js");
        assertEquals(200, served.statusCode());
        assertTrue(served.headers().firstValue("Content-Type").orElse("").contains("javascript"),
                served.headers().toString());
        assertEquals(module, served.body());
        assertEquals(404, get(port, "/khameleon/absent.js").statusCode(), "what no jar holds is a 404");
        HttpResponse<String> underContextPath = get(webPort(start("server.servlet.context-path=/app")),
                "/app/khameleon/khameleon.js");
        assertEquals(200, underContextPath.statusCode());
        assertEquals(module, underContextPath.body());
    }

    @Test
    void ownPortMode_listensOnItsOwnPortNextToTomcat() throws Exception {
        ConfigurableApplicationContext context = start("khameleon.mode=own-port", "khameleon.port=0");
        KhameleonServer server = context.getBean(KhameleonServer.class);
        assertNotEquals(webPort(context), server.port());
        try (KhameleonClient<PointerEvent> client = client(server.port(), new ClientListener() { })) {
            client.connect().get(10, TimeUnit.SECONDS);
        }
        assertEquals(404, get(webPort(context), "/healthz").statusCode(), "no health servlet on Tomcat's port");
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }
}
