package dev.khameleon.examples.timeseries;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.PointerEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class TimeseriesAppTest {
    private static TimeseriesApp app;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws IOException {
        app = TimeseriesApp.start(TraceData.trace(), 0);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(app.pageUri().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void javaClientHoveringAWindow_getsItsSeriesExactly() throws Exception {
        int window = 37;
        CompletableFuture<Response> complete = new CompletableFuture<>();
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder().uri(app.webSocketUri())
                .application(TimeseriesApp.APPLICATION).cacheBlocks(TimeseriesApp.CACHE_BLOCKS).build()) {
            client.connect().get(20, TimeUnit.SECONDS);
            // The pointer rests on the window's bar, as a page's mousemove events would say.
            double x = (window + 0.5) * TimeseriesApp.BAR_WIDTH;
            long now = System.currentTimeMillis();
            for (int i = 0; i < 5; i++) {
                client.onEvent(x, TimeseriesApp.CHART_HEIGHT / 2.0, now + 20L * i);
            }
            client.request(window, response -> {
                if (response.isComplete()) {
                    complete.complete(response);
                }
            });
            Response response = complete.get(30, TimeUnit.SECONDS);
            assertEquals(window, response.requestId());
            byte[] expected = BucketSumEncoder.content(new BucketSumEncoder(TimeseriesApp.BLOCK_SIZE)
                    .encode(window, app.windows().get(window)));
            assertArrayEquals(expected, BucketSumEncoder.content(response.blocks()));
            assertArrayEquals(Arrays.stream(app.windows().get(window)).asDoubleStream().toArray(),
                    BucketSumEncoder.decode(BucketSumEncoder.content(response.blocks())));
        }
    }

    @Test
    void site_servesThePageTheClientModuleAndTheOverview() throws Exception {
        assertTrue(get("").body().contains("from './khameleon/khameleon.js'"));
        HttpResponse<String> module = get("khameleon/khameleon.js");
        assertEquals("text/javascript", module.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(module.body().contains("export class KhameleonClient"));
        JsonNode info = new ObjectMapper().readTree(get("info.json").body());
        assertEquals(app.windows().size(), info.get("meanPackets").size());
        assertEquals(app.webSocketUri().getPort(), info.get("wsPort").asInt());
        JsonNode utilities = info.get("utilities");
        assertEquals(1.0, utilities.get(utilities.size() - 1).asDouble(), "all blocks draw the exact chart");
    }

    @Test
    void site_answersOtherPathsAndMethodsWithErrors() throws Exception {
        assertEquals(404, get("etc/passwd").statusCode());
        assertEquals(405, HTTP.send(HttpRequest.newBuilder(app.pageUri()).POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }
}
