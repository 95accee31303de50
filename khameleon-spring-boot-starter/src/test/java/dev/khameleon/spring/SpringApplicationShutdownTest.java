package dev.khameleon.spring;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.net.URI;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A whole Spring Boot application, with the auto-configuration found through
 * {@code AutoConfiguration.imports}: the server serves once the application has started, and
 * closing the application closes the connected client's session with {@code shutdown} (1001).
 */
class SpringApplicationShutdownTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GalleryApplication {
        @Bean
        Application gallery() {
            return TestApplications.named("gallery");
        }
    }

    @Test
    void closingTheApplication_closesSessionsWithShutdown() throws Exception {
        TestApplications.ShutdownRecorder recorder = new TestApplications.ShutdownRecorder();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GalleryApplication.class)
                .web(WebApplicationType.NONE)
                .run("--khameleon.port=0", "--spring.main.banner-mode=off");
        try {
            KhameleonServer server = context.getBean(KhameleonServer.class);
            try (KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                    .uri(URI.create("ws://127.0.0.1:" + server.port() + "/gallery"))
                    .application("gallery")
                    .cacheBlocks(64)
                    .reconnect(false)
                    .listener(recorder)
                    .build()) {
                client.connect().get(10, TimeUnit.SECONDS);
                assertEquals(1, server.metrics().activeSessions());
                context.close();
                recorder.assertShutdown();
            }
        } finally {
            context.close();
        }
    }
}
