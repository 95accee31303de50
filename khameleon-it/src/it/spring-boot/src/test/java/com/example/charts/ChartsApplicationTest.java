package com.example.charts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.server.KhameleonServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The application starts under Spring Boot on a random port of embedded Tomcat, and a Java client
 * on 127.0.0.1 gets a whole chart from Khameleon on that same port.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ChartsApplicationTest {
    @LocalServerPort int port;
    @Autowired KhameleonServer khameleon;
    @Autowired SeriesEncoder encoder;

    @Test
    void aClientReceivesTheWholeChartItHoversOnTheWebServersPort() throws Exception {
        int hovered = 10;
        try (KhameleonClient<Integer> client = KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + port + "/charts"))
                .application("charts")
                .predictor(new LastHoverPredictor())
                .cacheBlocks(2000)                                   // room for all 1,536 blocks
                .build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            client.onEvent(hovered);
            CompletableFuture<Response> full = new CompletableFuture<>();
            client.request(hovered, response -> {
                if (response.isComplete()) {
                    full.complete(response);
                }
            });
            Response answer = full.get(30, TimeUnit.SECONDS);

            assertEquals(hovered, answer.requestId());
            assertEquals(1.0, answer.utility(), 1e-9);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (Block b : encoder.encode(hovered, ChartsApplication.query(hovered))) {
                ByteBuffer content = b.content();
                byte[] bytes = new byte[content.remaining()];
                content.get(bytes);
                expected.writeBytes(bytes);
            }
            assertArrayEquals(expected.toByteArray(), answer.content());
            assertTrue(khameleon.metrics().blocksPushed() >= answer.blockCount());
        }
    }

    @Test
    void theHealthCheckAnswersOnTheWebServersPort() throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode());
        assertEquals("ok\n", health.body());
    }
}
