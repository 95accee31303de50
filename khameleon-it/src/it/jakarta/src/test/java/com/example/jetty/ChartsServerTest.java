package com.example.jetty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One Jetty port serves both the web application's servlet and Khameleon's pushed blocks. */
class ChartsServerTest {
    private ChartsServer server;

    @BeforeEach
    void start() throws Exception {
        server = ChartsServer.start(0);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void theOwnRouteAnswersOnTheSamePort() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> hello = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/hello")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, hello.statusCode());
        assertEquals("hello", hello.body());
        HttpResponse<String> missing = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/nothing")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
    }

    @Test
    void aClientReceivesTheWholeChartItHovers() throws Exception {
        int hovered = 10;
        try (KhameleonClient<Integer> client = KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/ws"))
                .application("charts")
                .predictor(Predictors.clientHalf())
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
            for (Block b : new SeriesEncoder(2048).encode(hovered, ChartsServer.query(hovered))) {
                ByteBuffer content = b.content();
                byte[] bytes = new byte[content.remaining()];
                content.get(bytes);
                expected.writeBytes(bytes);
            }
            assertArrayEquals(expected.toByteArray(), answer.content());
            assertTrue(server.khameleon().metrics().blocksPushed() >= answer.blockCount());
        }
    }
}
