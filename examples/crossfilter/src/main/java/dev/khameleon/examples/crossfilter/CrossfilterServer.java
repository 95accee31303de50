package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The crossfilter served live: a Khameleon WebSocket on 127.0.0.1 whose six request ids are the
 * views ({@link View} ordinals), request {@code v} meaning "the progressive tile of view {@code v}
 * under the client's current brushes on the other views".
 *
 * <ul>
 *   <li><b>Scope</b>: the client sends its brushes as {@code {"VIEW": [from, to], ...}} in pixels
 *       ({@code client.scope(...)}); each view is bound to the content key of its {@link TileKey}
 *       in a bounded key table ({@code maxKeys}, default {@value #DEFAULT_MAX_KEYS}; past it the
 *       least recently used key is forgotten). A malformed scope ends that session with
 *       {@code invalid_scope}.</li>
 *   <li><b>Blocks</b>: fetched by content key through the shared {@link TileCache} and a
 *       {@link TileEncoder}; the database is queried on the cache's threads, tiles are encoded on
 *       one thread of this server, never on a network thread.</li>
 *   <li><b>Prediction</b>: {@link ServerPredictor#point}: the client's state
 *       {@code {"request": v}} (the hovered view) or its request events put the mass on that
 *       view; uniform before either.</li>
 * </ul>
 *
 * <p>{@link #close()} stops the server and the encoding thread, not the cache. Thread-safe.
 */
public final class CrossfilterServer implements AutoCloseable {
    /** The Khameleon application's name and WebSocket path. */
    public static final String APPLICATION = "crossfilter";
    /** Default of {@code maxKeys}: filtered tile keys remembered by the key table. */
    public static final int DEFAULT_MAX_KEYS = 4096;
    /** Prediction horizons announced to clients, ms (the library's defaults). */
    static final long[] HORIZONS = {50, 150, 250, 500};
    /** Tiles kept encoded (about 170 KB each). */
    static final int ENCODED_TILES = 16;

    private final KhameleonServer khameleon;
    private final ExecutorService encoding;
    private final ContentKeys keys;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CrossfilterServer(KhameleonServer khameleon, ExecutorService encoding, ContentKeys keys) {
        this.khameleon = khameleon;
        this.encoding = encoding;
        this.keys = keys;
    }

    /**
     * Starts the server on 127.0.0.1 at {@code port} (0 for any free port), serving the tiles of
     * {@code cache} in blocks of {@code encoder}.
     *
     * @throws IllegalArgumentException if {@code port} is not in [0, 65535] or {@code maxKeys < 1}
     * @throws RuntimeException if the port cannot be bound
     */
    public static CrossfilterServer start(TileCache cache, TileEncoder encoder, int port, int maxKeys) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
        }
        ContentKeys keys = new ContentKeys(maxKeys);
        ExecutorService encoding = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tile-encoder");
            t.setDaemon(true);
            return t;
        });
        int views = View.values().length;
        Application application = Application.builder(APPLICATION)
                .path("/" + APPLICATION)
                .blockSource(new TileBlockSource(cache, encoder, keys, encoding, ENCODED_TILES))
                .requestScope(new BrushScope(keys))
                .horizons(HORIZONS)
                .predictor(ServerPredictor.point(views, HORIZONS))
                .predictFromRequests(true)
                .build();
        try {
            return new CrossfilterServer(KhameleonServer.builder().host("127.0.0.1").port(port)
                    .application(application).build().start(), encoding, keys);
        } catch (RuntimeException e) {
            encoding.shutdownNow();
            throw e;
        }
    }

    /** The port the WebSocket listens on. */
    public int port() {
        return khameleon.port();
    }

    /** The WebSocket's address, e.g. {@code ws://127.0.0.1:8081/crossfilter}. */
    public URI webSocketUri() {
        return URI.create("ws://127.0.0.1:" + port() + "/" + APPLICATION);
    }

    /** How many filtered tile keys the key table holds now (at most {@code maxKeys}). */
    int keysHeld() {
        return keys.size();
    }

    /** Stops the WebSocket server and the encoding thread; idempotent. Does not close the cache. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            khameleon.close();
            encoding.shutdownNow();
        }
    }
}
