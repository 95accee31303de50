package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.core.testkit.DocSnippets;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's server + client snippet, compiled and run over loopback; the README must quote
 * the tagged regions verbatim.
 */
class ReadmeExampleTest {
    /** Encoded images standing in for a real corpus: any bytes already in progressive order. */
    private static List<byte[]> images(int count) {
        SplittableRandom rnd = new SplittableRandom(1);
        List<byte[]> images = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] image = new byte[rnd.nextInt(1, 200_000)];
            rnd.nextBytes(image);
            images.add(image);
        }
        return images;
    }

    @Test
    void readmeSnippet_servesAndAnswersARequest() throws Exception {
        List<byte[]> images = images(100);
        int port = 0;
        double x = 415;
        double y = 233;
        // tag::server[]
        GridLayout mosaic = Layout.grid(10, 10, 0, 0, 64, 48);         // 100 thumbnails
        ProgressiveEncoder<byte[]> jpeg = ProgressiveEncoder.fixedBlocks(16 * 1024);
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < mosaic.requestCount(); id++) {
            responses.add(jpeg.encode(id, images.get(id)));              // progressive JPEG bytes
        }
        KhameleonServer server = KhameleonServer.builder()
                .port(port)
                .application(Application.builder("gallery")
                        .blockSource(BlockSource.inMemory(jpeg.blockSize(), responses))
                        .predictor(GaussianGridPredictor.builder(mosaic).build())
                        .utility(UtilityFunction.tabulated(
                                new double[] {0.09, 0.19, 0.45, 0.61}, new double[] {0.81, 0.95, 0.985, 0.993}))
                        .build())
                .build()
                .start();
        // end::server[]
        List<Response> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<Response> complete = new CompletableFuture<>();
        Upcall show = response -> {
            answers.add(response);
            if (response.isComplete()) {
                complete.complete(response);
            }
        };
        try (server) {
            URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/gallery");
            // tag::client[]
            try (KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                    .uri(uri)                                            // ws://host:port/gallery
                    .application("gallery")
                    .cacheBlocks(3_000)                                  // 48 MB of 16 KiB blocks
                    .build()) {
                client.connect().get();
                // On every pointer move:
                client.onEvent(x, y, System.currentTimeMillis());
                // When the pointer enters a thumbnail; show(response) gets the usable prefix
                // (response.blocks(), response.utility()) at once or on arrival, then better ones:
                client.request(mosaic.requestAt(x, y), show);
                // end::client[]
                Response full = complete.get(30, TimeUnit.SECONDS);
                int id = mosaic.requestAt(x, y);
                assertEquals(id, full.requestId());
                assertEquals(1.0, full.utility(), 1e-9);
                byte[] joined = new byte[images.get(id).length];
                int at = 0;
                for (Block b : full.blocks()) {
                    int len = b.content().remaining();
                    b.content().get(joined, at, len);
                    at += len;
                }
                assertEquals(joined.length, at);
                assertArrayEquals(images.get(id), joined, "the client reassembles the exact image");
                assertTrue(client.metrics().upcalls() >= 1);
                for (int i = 1; i < answers.size(); i++) {
                    assertTrue(answers.get(i).blocks().size() > answers.get(i - 1).blocks().size(),
                            "each upcall brings a longer prefix");
                }
            }
        }
    }

    @Test
    void readme_quotesTheSnippetVerbatim() throws IOException {
        Map<String, String> regions = DocSnippets.regions(DocSnippets.read(
                "khameleon-client/src/test/java/dev/khameleon/client/ReadmeExampleTest.java"));
        String readme = DocSnippets.read("README.md");
        assertEquals(2, regions.size(), "snippets found: " + regions.keySet());
        for (Map.Entry<String, String> region : regions.entrySet()) {
            assertTrue(readme.contains(region.getValue()),
                    "README.md does not quote '" + region.getKey() + "' as compiled:\n" + region.getValue());
        }
    }
}
