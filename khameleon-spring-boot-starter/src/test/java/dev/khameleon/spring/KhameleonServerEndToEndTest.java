package dev.khameleon.spring;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.DocSnippets;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The auto-configured server over loopback: the Java client gets the exact blocks of an
 * application bean, and the limits set as properties are the server's.
 */
class KhameleonServerEndToEndTest {
    private static final int MAX_CACHE_BLOCKS = 100;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KhameleonAutoConfiguration.class))
            .withUserConfiguration(Thumbnails.class, GalleryConfig.class)
            .withPropertyValues("khameleon.host=127.0.0.1", "khameleon.port=0",
                    "khameleon.max-cache-blocks=" + MAX_CACHE_BLOCKS, "khameleon.max-total-cache-blocks=1000");

    @Configuration(proxyBeanMethods = false)
    static class Thumbnails {
        @Bean
        BlockSource thumbnails() {
            return TestApplications.blocks();
        }
    }

    /** docs/spring-boot.md quotes the tagged region. */
    @Configuration(proxyBeanMethods = false)
    static class GalleryConfig {
        // tag::application[]
        @Bean
        Application gallery(BlockSource thumbnails) {   // your blocks: a FileBlockStore, BlockSource.inMemory(...)
            return Application.builder("gallery")       // served at ws://<host>:<server.port>/gallery
                    .blockSource(thumbnails)
                    .build();
        }
        // end::application[]
    }

    private static KhameleonClient<PointerEvent> client(KhameleonServer server, int cacheBlocks) {
        return KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/gallery"))
                .application("gallery")
                .cacheBlocks(cacheBlocks)
                .reconnect(false)
                .build();
    }

    @Test
    void client_receivesTheExactBlocksOfAnApplicationBean() {
        runner.run(context -> {
            KhameleonServer server = context.getBean(KhameleonServer.class);
            int request = 5;
            try (KhameleonClient<PointerEvent> client = client(server, MAX_CACHE_BLOCKS)) {
                client.connect().get(10, TimeUnit.SECONDS);
                TestApplications.assertServesExactBlocks(client, request);
            }
            assertEquals(1, server.metrics().sessionsOpened());
        });
    }

    @Test
    void cacheAboveTheMaxCacheBlocksProperty_isRefused() {
        runner.run(context -> {
            KhameleonServer server = context.getBean(KhameleonServer.class);
            try (KhameleonClient<PointerEvent> client = client(server, MAX_CACHE_BLOCKS + 1)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> client.connect().get(10, TimeUnit.SECONDS));
                assertTrue(String.valueOf(e.getCause().getMessage()).contains("limit_exceeded"),
                        "refused for its cache size: " + e.getCause());
            }
            assertEquals(0, server.metrics().sessionsOpened());
        });
    }

    @Test
    void springBootDoc_quotesTheApplicationBeanAsCompiled() throws IOException {
        String region = DocSnippets.regions(DocSnippets.read(
                "khameleon-spring-boot-starter/src/test/java/dev/khameleon/spring/KhameleonServerEndToEndTest.java"))
                .get("application");
        assertTrue(DocSnippets.read("docs/spring-boot.md").contains(region),
                "docs/spring-boot.md does not quote the application bean as compiled:\n" + region);
    }
}
