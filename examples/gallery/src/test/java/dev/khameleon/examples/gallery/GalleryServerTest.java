package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class GalleryServerTest {
    private static GalleryServer gallery;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws IOException {
        gallery = GalleryServer.builder().port(0).grid(4, 6).linkBytesPerSecond(0).latencyMillis(20)
                .start();
    }

    @AfterAll
    static void stop() {
        if (gallery != null) {
            gallery.close();
        }
    }

    private static HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(gallery.pageUri().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void info_describesTheMosaicTheEndpointAndTheMeasuredUtility() throws Exception {
        HttpResponse<byte[]> response = get("info.json");
        assertEquals(200, response.statusCode());
        JsonNode info = new ObjectMapper().readTree(response.body());
        assertEquals(4, info.get("rows").asInt());
        assertEquals(6, info.get("cols").asInt());
        assertEquals(24, info.get("requestCount").asInt());
        assertEquals("gallery", info.get("application").asText());
        assertEquals(gallery.webSocketUri().getPort(), info.get("wsPort").asInt());
        JsonNode u = info.get("utility").get("utilities");
        assertEquals(1.0, u.get(u.size() - 1).asDouble());
    }

    @Test
    void measuredUtility_letsTheSchedulerSendEveryBlockOfALikelyPicture() {
        UtilityFunction u = gallery.utility().toUtilityFunction();
        for (int blocks = 1; blocks <= 32; blocks++) {
            double[] gains = u.marginalGains(blocks);
            for (int b = 0; b < blocks; b++) {
                assertTrue(gains[b] > 0, "block " + b + " of " + blocks + " adds nothing to " + gallery.utility());
            }
            SchedulerConfig config = SchedulerConfig.builder().cacheBlocks(100).requestCount(24)
                    .blocksPerRequest(blocks).utility(u).build();
            Scheduler scheduler = Schedulers.greedy(config);
            scheduler.replan(Distribution.point(24, 5, 50, 150, 250, 500), 0, 1.0);
            ScheduleChunk chunk = scheduler.next(blocks);
            assertEquals(blocks, chunk.size(), "pictures of " + blocks + " blocks, utility " + gallery.utility());
            for (int k = 0; k < blocks; k++) {
                assertEquals(5, chunk.requestId(k), "block " + k + " of " + blocks + ", utility " + gallery.utility());
            }
        }
    }

    @Test
    void mosaicAndFullPictures_areJpegsOfTheConfiguredSizes() throws Exception {
        HttpResponse<byte[]> mosaic = get("mosaic.jpg");
        assertEquals("image/jpeg", mosaic.headers().firstValue("Content-Type").orElseThrow());
        BufferedImage m = ImageIO.read(new ByteArrayInputStream(mosaic.body()));
        assertEquals(6 * GalleryServer.Config.THUMB_WIDTH, m.getWidth());
        assertEquals(4 * GalleryServer.Config.THUMB_HEIGHT, m.getHeight());

        byte[] full = get("full/23.jpg").body();
        assertTrue(ProgressiveJpegEncoder.previewLength(full) < full.length, "a progressive JPEG");
        BufferedImage f = ProgressiveJpegEncoder.decode(full);
        assertEquals(GalleryServer.Config.FULL_WIDTH, f.getWidth());
    }

    @Test
    void pageScriptAndClientModule_areServed() throws Exception {
        assertTrue(new String(get("").body()).contains("<canvas id=\"view\""));
        assertTrue(new String(get("gallery.js").body()).contains("KhameleonClient"));
        HttpResponse<byte[]> module = get("khameleon/khameleon.js");
        assertEquals("text/javascript", module.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(new String(module.body()).contains("export class KhameleonClient"));
    }

    @Test
    void unknownPathsAndIdsOutOfRange_are404() throws Exception {
        assertEquals(404, get("full/24.jpg").statusCode());
        assertEquals(404, get("full/-1.jpg").statusCode());
        assertEquals(404, get("etc/passwd").statusCode());
        HttpResponse<byte[]> post = HTTP.send(HttpRequest.newBuilder(gallery.pageUri())
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(405, post.statusCode());
    }

    /** Sends {@code head} (CR LF line ends added) on a new connection and returns the status line of the answer. */
    private static String statusLine(int port, String... head) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write((String.join("\r\n", head) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = s.getInputStream().read()) >= 0 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    private static String[] upgrade(String host, String origin) {
        List<String> head = new ArrayList<>(List.of("GET /gallery HTTP/1.1", "Host: " + host, "Upgrade: websocket",
                "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"));
        if (origin != null) {
            head.add("Origin: " + origin);
        }
        return head.toArray(String[]::new);
    }

    @Test
    void webSocket_acceptsOnlyItsOwnPagesOriginAndLoopbackHostNames() throws IOException {
        int ws = gallery.webSocketUri().getPort();
        String page = "http://127.0.0.1:" + gallery.pageUri().getPort();
        assertEquals("HTTP/1.1 101 Switching Protocols", statusLine(ws, upgrade("127.0.0.1:" + ws, page)));
        assertEquals("HTTP/1.1 101 Switching Protocols", statusLine(ws, upgrade("localhost:" + ws, null)),
                "a program without Origin");
        assertEquals("HTTP/1.1 403 Forbidden", statusLine(ws, upgrade("127.0.0.1:" + ws, "http://evil.example")));
        assertEquals("HTTP/1.1 403 Forbidden", statusLine(ws, upgrade("rebound.example:" + ws, null)));
        assertEquals("HTTP/1.1 403 Forbidden", statusLine(gallery.pageUri().getPort(),
                "GET /info.json HTTP/1.1", "Host: rebound.example"), "the site checks Host too");
    }

    @Test
    void idleConnectionsBeyondTheLimit_leaveThePageAndAWebSocketSessionUsable() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < GalleryServer.MAX_CONNECTIONS + 36; i++) {
                idle.add(new Socket(InetAddress.getLoopbackAddress(), gallery.pageUri().getPort()));
                idle.add(new Socket(InetAddress.getLoopbackAddress(), gallery.webSocketUri().getPort()));
            }
            Thread.sleep(LinkEmulator.EVICTABLE_IDLE_MILLIS + 100);
            HttpClient fresh = HttpClient.newHttpClient();
            HttpResponse<String> info = fresh.send(HttpRequest.newBuilder(gallery.pageUri().resolve("info.json"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, info.statusCode());
            CountDownLatch answered = new CountDownLatch(1);
            try (KhameleonClient<PointerEvent> client = KhameleonClient.builder().uri(gallery.webSocketUri())
                    .application(GalleryServer.APPLICATION).cacheBlocks(100).build()) {
                client.connect().get(20, TimeUnit.SECONDS);
                client.request(5, response -> answered.countDown());
                assertTrue(answered.await(20, TimeUnit.SECONDS), "a pushed answer despite "
                        + idle.size() + " idle connections");
            }
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void builder_namesTheBadSetting() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> GalleryServer.builder().linkBytesPerSecond(-1));
        assertTrue(e.getMessage().contains("link rate") && e.getMessage().contains("-1"), e.getMessage());
        IllegalArgumentException images = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> GalleryServer.builder().images(java.nio.file.Path.of("/nonexistent-dir")));
        assertTrue(images.getMessage().contains("/nonexistent-dir"), images.getMessage());
    }
}
