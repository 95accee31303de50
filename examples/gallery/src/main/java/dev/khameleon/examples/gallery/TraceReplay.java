package dev.khameleon.examples.gallery;

import dev.khameleon.client.ClientMetrics;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Replays a pointer trace against a running gallery with the Java {@link KhameleonClient},
 * headless: the pointer positions feed the client's Kalman predictor and every change of hovered
 * tile is a request, at the trace's own pace. What a browser does, without the browser.
 */
final class TraceReplay {
    private TraceReplay() {
    }

    /**
     * Replays {@code trace} (already scaled to the mosaic) and returns the client's metrics,
     * taken {@code settle} after the last sample.
     *
     * @throws InterruptedException if interrupted while replaying
     * @throws IllegalStateException if the client cannot connect within 30 s
     */
    static ClientMetrics replay(GalleryServer gallery, PointerTrace trace, Duration settle) throws InterruptedException {
        GalleryServer.Config config = gallery.config();
        GridLayout grid = new GridLayout(config.rows(), config.cols(), 0, 0,
                GalleryServer.Config.THUMB_WIDTH, GalleryServer.Config.THUMB_HEIGHT);
        try (KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                .uri(gallery.webSocketUri())
                .application(GalleryServer.APPLICATION)
                .cacheBlocks(config.cacheBlocks())
                .utility(gallery.utility().toUtilityFunction())
                .build()) {
            try {
                client.connect().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("cannot connect to " + gallery.webSocketUri() + ": " + e, e);
            }
            long startNanos = System.nanoTime();
            long firstMillis = trace.samples().get(0).timeMillis();
            int current = -1;
            for (PointerTrace.Sample s : trace.samples()) {
                parkUntil(startNanos + TimeUnit.MILLISECONDS.toNanos(s.timeMillis() - firstMillis));
                client.onEvent(s.x(), s.y(), System.currentTimeMillis());
                int tile = grid.requestAt(s.x(), s.y());
                if (tile >= 0 && tile != current) {
                    current = tile;
                    client.request(tile, response -> { });
                }
            }
            parkUntil(System.nanoTime() + settle.toNanos());
            return client.metrics();
        }
    }

    private static void parkUntil(long deadlineNanos) throws InterruptedException {
        long wait;
        while ((wait = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
