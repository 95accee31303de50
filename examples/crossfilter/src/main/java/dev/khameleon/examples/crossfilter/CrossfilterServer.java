package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The crossfilter served live: a page of six linked histograms and a Khameleon WebSocket, both on
 * 127.0.0.1 (the WebSocket on a free port, admitting pages of the site's origin and clients
 * without an origin). The six request ids are the views ({@link View} ordinals), request
 * {@code v} meaning "the progressive tile of view {@code v} under the client's current brushes on
 * the other views".
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
 * <p>{@link #close()} stops the page, the server and the encoding thread, not the cache.
 * Thread-safe.
 */
public final class CrossfilterServer implements AutoCloseable {
    /** The Khameleon application's name and WebSocket path. */
    public static final String APPLICATION = "crossfilter";
    /** Default of {@code maxKeys}: filtered tile keys remembered by the key table. */
    public static final int DEFAULT_MAX_KEYS = 4096;
    /** Prediction horizons announced to clients, ms (the library's defaults). */
    static final long[] HORIZONS = Horizons.defaults().toArray();
    /** Tiles kept encoded (about 170 KB each). */
    static final int ENCODED_TILES = 16;

    /** The browser's ring in blocks: room for the six tiles about five times over. */
    static final int PAGE_CACHE_BLOCKS = 400;

    private final HttpServer site;
    private final KhameleonServer khameleon;
    private final ExecutorService encoding;
    private final ContentKeys keys;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CrossfilterServer(HttpServer site, KhameleonServer khameleon, ExecutorService encoding, ContentKeys keys) {
        this.site = site;
        this.khameleon = khameleon;
        this.encoding = encoding;
        this.keys = keys;
    }

    /**
     * Starts the page on 127.0.0.1 at {@code port} (0 for any free port) and the WebSocket on a
     * free port, serving the tiles of {@code cache} in blocks of {@code encoder}.
     *
     * @throws IllegalArgumentException if {@code port} is not in [0, 65535] or {@code maxKeys < 1}
     * @throws IOException if the page's port cannot be bound
     */
    public static CrossfilterServer start(TileCache cache, TileEncoder encoder, int port, int maxKeys)
            throws IOException {
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
        HttpServer site;
        KhameleonServer khameleon;
        try {
            // The site is bound first: its port names the one browser origin the WebSocket admits.
            site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        } catch (IOException | RuntimeException e) {
            encoding.shutdownNow();
            throw e;
        }
        int sitePort = site.getAddress().getPort();
        try {
            khameleon = KhameleonServer.builder().host("127.0.0.1").port(0).application(application)
                    .allowedOrigins("http://127.0.0.1:" + sitePort, "http://localhost:" + sitePort)
                    .build().start();
        } catch (RuntimeException e) {
            site.stop(0);
            encoding.shutdownNow();
            throw e;
        }
        byte[] info = info(khameleon.port());
        site.createContext("/", exchange -> serve(exchange, info));
        site.start(); // no executor: one dispatcher thread answers, each answer is a ready array
        return new CrossfilterServer(site, khameleon, encoding, keys);
    }

    /** What the page needs: where the WebSocket is, and each view's axis and bins. */
    private static byte[] info(int wsPort) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode o = json.createObjectNode().put("application", APPLICATION).put("wsPort", wsPort)
                .put("wsPath", "/" + APPLICATION).put("cacheBlocks", PAGE_CACHE_BLOCKS).put("pixels", View.PIXELS);
        for (View v : View.values()) {
            o.withArray("views").addObject().put("name", v.name()).put("start", v.start()).put("stop", v.stop())
                    .put("step", v.step()).put("bins", v.bins());
        }
        return json.writeValueAsBytes(o);
    }

    private static void serve(HttpExchange exchange, byte[] info) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            byte[] body = switch (path) {
                case "/", "/index.html" -> resource("dev/khameleon/examples/crossfilter/index.html");
                case "/khameleon/khameleon.js" -> resource("META-INF/resources/khameleon/khameleon.js");
                case "/info.json" -> info;
                default -> null;
            };
            int status = !exchange.getRequestMethod().equals("GET") ? 405 : body == null ? 404 : 200;
            String type = path.endsWith(".js") ? "text/javascript" : path.endsWith(".json") ? "application/json"
                    : "text/html; charset=utf-8";
            exchange.getResponseHeaders().set("Content-Type", status == 200 ? type : "text/plain");
            body = status == 200 ? body : (status + "\n").getBytes();
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = CrossfilterServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("resource missing from the class path: " + name);
            }
            return in.readAllBytes();
        }
    }

    /** The page's address, e.g. {@code http://127.0.0.1:8080/}. */
    public URI pageUri() {
        return URI.create("http://127.0.0.1:" + site.getAddress().getPort() + "/");
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

    /** Stops the page, the WebSocket server and the encoding thread; idempotent. Does not close the cache. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            site.stop(0);
            khameleon.close();
            encoding.shutdownNow();
        }
    }
}
