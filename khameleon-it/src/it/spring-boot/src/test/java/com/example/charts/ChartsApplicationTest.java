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
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The application starts under Spring Boot and a Java client on 127.0.0.1 gets a whole chart from it. */
@SpringBootTest(properties = "khameleon.port=0")
class ChartsApplicationTest {
    @Autowired KhameleonServer khameleon;
    @Autowired SeriesEncoder encoder;

    @Test
    void aClientReceivesTheWholeChartItHovers() throws Exception {
        int hovered = 10;
        try (KhameleonClient<Integer> client = KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + khameleon.port() + "/charts"))
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
}
