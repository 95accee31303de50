package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.Rect;
import dev.khameleon.core.predict.GaussianLayoutPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The crossfilter served live: a page of linked histograms, one per view of the cache's
 * {@link Views}, and a Khameleon WebSocket, both on 127.0.0.1 (the WebSocket on a free port,
 * admitting pages of the site's origin and clients without an origin). The request ids are the
 * views ({@link View#index()}), request
 * {@code v} meaning "the progressive tile of view {@code v} under the client's current brushes on
 * the other views". Two applications serve the same tiles: {@value #APPLICATION} (predicted
 * push) and {@value #ON_HOVER_APPLICATION} (the hovered view only); the page also answers
 * on-demand histogram queries ({@code /histograms}) and row counts ({@code /count}), and lists
 * the recorded sessions for its replay mode ({@code /workflows.json}, {@code /workflow/N.json}).
 *
 * <ul>
 *   <li><b>Scope</b>: the client sends its brushes as {@code {"VIEW": [from, to], ...}} in pixels
 *       ({@code client.scope(...)}); each view is bound to the content key of its {@link TileKey}
 *       in a bounded key table ({@code maxKeys}, default {@value #DEFAULT_MAX_KEYS}; past it the
 *       least recently used key is forgotten). A malformed scope ends that session with
 *       {@code invalid_scope}.</li>
 *   <li><b>Blocks</b>: fetched by content key through the shared {@link TileCache} and a
 *       {@link TileEncoder}; the database is queried on the cache's threads, tiles are encoded on
 *       one thread of this server, never on a network thread. A tile whose fetches the server
 *       all cancelled is cancelled in the cache while its queries run ({@link TileBlockSource}),
 *       and both applications fetch at most {@link #backendConcurrency} distinct requests at
 *       once, so the rest waits in the server's queue, misses first.</li>
 *   <li><b>Prediction</b> ({@value #APPLICATION}): a {@link GaussianLayoutPredictor} over the
 *       page's charts ({@link PageLayout}) decodes the client's Kalman pointer forecast, mixed with
 *       the model's view-transition prior given the chart under the pointer; the scheduler values
 *       prefixes with the model's measured {@link TileUtility}. Before the page has seen the
 *       pointer, and in the session's first plan, it pushes by the probability of each view
 *       being the first one brushed in {@code workflows} ({@link FirstViewPredictor}); the six
 *       tiles of the unfiltered state those plans need are pinned in the cache
 *       ({@link #startupTiles}). ({@value #ON_HOVER_APPLICATION}):
 *       {@link ServerPredictor#point}: the client's state {@code {"request": v}} (the hovered
 *       view) or its request events put all the mass on that view; uniform before either.</li>
 * </ul>
 *
 * <p>{@link #close()} stops the page, the server and the encoding thread, not the cache.
 * Thread-safe.
 */
public final class CrossfilterServer implements AutoCloseable {
    /** The predicted application's name and WebSocket path. */
    public static final String APPLICATION = "crossfilter";
    /** The on-hover application's name and WebSocket path. */
    public static final String ON_HOVER_APPLICATION = "crossfilter-hover";
    /** The longest query string {@code /histograms} accepts. */
    static final int MAX_QUERY_LENGTH = 2048;
    /** Default of {@code maxKeys}: filtered tile keys remembered by the key table. */
    public static final int DEFAULT_MAX_KEYS = 4096;
    /** Prediction horizons announced to clients, ms (the library's defaults). */
    static final long[] HORIZONS = Horizons.defaults().toArray();
    /** Tiles kept encoded (about 170 KB each). */
    static final int ENCODED_TILES = 16;

    /** The browser's ring in blocks: room for the six tiles about five times over. */
    static final int PAGE_CACHE_BLOCKS = 400;

    private static final ObjectMapper JSON = new ObjectMapper();

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
     * free port, serving the tiles of {@code cache} in blocks of {@code encoder}, predicted and
     * valued with {@code model}; {@code workflows} are the recorded sessions the page can replay,
     * on the cache's views ({@link Workflow#onto}).
     *
     * @throws IllegalArgumentException if {@code port} is not in [0, 65535], {@code maxKeys < 1},
     *     or the encoder or a session is of other views than the cache's
     * @throws IOException if the page's port cannot be bound
     */
    public static CrossfilterServer start(TileCache cache, TileEncoder encoder, ServingModel model,
            List<Workflow> workflows, int port, int maxKeys) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, was " + maxKeys);
        }
        Views views = cache.views();
        if (encoder.views() != views) {
            throw new IllegalArgumentException("encoder of " + encoder.views() + ", cache of " + views);
        }
        for (Workflow w : workflows) {
            if (!w.events().isEmpty() && w.events().get(0).view().views() != views) {
                throw new IllegalArgumentException("session " + w.name() + " is on " + w.events().get(0).view()
                        .views() + ", the cache on " + views);
            }
        }
        ContentKeys keys = new ContentKeys(views, maxKeys);
        byte[] sessions = sessionsJson(workflows);
        byte[][] sessionEvents = new byte[workflows.size()][];
        for (int i = 0; i < sessionEvents.length; i++) {
            sessionEvents[i] = eventsJson(workflows.get(i));
        }
        ExecutorService encoding = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tile-encoder");
            t.setDaemon(true);
            return t;
        });
        TileBlockSource blocks = new TileBlockSource(cache, encoder, keys, encoding, ENCODED_TILES);
        BrushScope scope = new BrushScope(keys);
        // The tiles of the unfiltered state are every session's first push: computed once, never evicted.
        startupTiles(cache);
        Distribution first = firstViewDistribution(views, workflows);
        PageLayout layout = new PageLayout(views.size());
        int cb = backendConcurrency(cache);
        Application predicted = Application.builder(APPLICATION)
                .path("/" + APPLICATION)
                .blockSource(blocks)
                .requestScope(scope)
                .horizons(HORIZONS)
                .initialDistribution(first)
                .predictor(new FirstViewPredictor(first, GaussianLayoutPredictor.builder(layout)
                        .horizons(HORIZONS).prior(model.prior(), model.priorWeight()).build()))
                .utility(model.utility().function())
                .backendConcurrency(cb)
                .build();
        Application onHover = Application.builder(ON_HOVER_APPLICATION)
                .path("/" + ON_HOVER_APPLICATION)
                .blockSource(blocks)
                .requestScope(scope)
                .horizons(HORIZONS)
                .predictor(ServerPredictor.point(views.size(), HORIZONS))
                .predictFromRequests(true)
                .utility(model.utility().function())
                .backendConcurrency(cb)
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
            khameleon = KhameleonServer.builder().host("127.0.0.1").port(0).application(predicted)
                    .application(onHover)
                    .allowedOrigins("http://127.0.0.1:" + sitePort, "http://localhost:" + sitePort)
                    .build().start();
        } catch (RuntimeException e) {
            site.stop(0);
            encoding.shutdownNow();
            throw e;
        }
        byte[] info = info(views, layout, khameleon.port(), cache.rows());
        site.createContext("/", exchange -> serve(exchange, info, sessions, sessionEvents));
        site.createContext("/histograms", exchange -> histograms(exchange, cache));
        site.createContext("/count", exchange -> count(exchange, cache));
        site.start(); // no executor: one dispatcher thread answers; queries answer from the cache's threads
        return new CrossfilterServer(site, khameleon, encoding, keys);
    }

    /**
     * Pins the tiles of the unfiltered state (no brush anywhere), one per view, in {@code cache}:
     * the tiles every session's first push holds, computed once and never evicted. Never blocks;
     * the future completes when all are computed.
     */
    public static CompletableFuture<Void> startupTiles(TileCache cache) {
        List<CompletableFuture<Tile>> tiles = new ArrayList<>();
        for (View v : cache.views()) {
            tiles.add(cache.pin(new TileKey(v, Filters.none(cache.views()))));
        }
        return CompletableFuture.allOf(tiles.toArray(CompletableFuture[]::new));
    }

    /**
     * Each application's {@code backendConcurrency} ({@code Cb}, the most distinct requests it
     * fetches at once) over {@code cache}: the tiles whose queries fill the cache's query slots,
     * {@code ceil(maxConcurrentQueries / (views - 1))} and at least 1.
     */
    static int backendConcurrency(TileCache cache) {
        // A request being fetched is one tile, and a tile is five slice queries (one per passive
        // view). Cb = the cache's concurrency would admit five times as many queries as it runs,
        // and the surplus would wait in the cache's first-come-first-served queue, where a miss
        // queues behind speculation; the server's queue, where misses go first, should hold them.
        // Rounding up keeps every slot busy (4 slots, DuckDB: 1 tile, 5 queries; 15, PostgreSQL:
        // 3 tiles, 15 queries), at the cost of fewer than one tile's queries waiting in the
        // cache; rounding down would leave slots idle, and give 0, which means no limit, below 5.
        // The limit counts request ids, each application its own: further blocks of a request
        // being fetched, a view's tiles under other sessions' brushes and the other application's
        // fetches pass it, and the cache's own bound still holds for those.
        int slices = cache.views().size() - 1;
        return Math.max(1, (cache.maxConcurrentQueries() + slices - 1) / slices);
    }

    /**
     * The predicted application's first push, before the page has shown the pointer: each view
     * with the probability that a recorded session brushed it first ({@link ServingModel#firstViews}),
     * at every horizon.
     */
    static Distribution firstViewDistribution(Views views, List<Workflow> workflows) {
        double[] p = ServingModel.firstViews(views, workflows);
        Distribution.Builder b = Distribution.builder(p.length, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            for (int v = 0; v < p.length; v++) {
                b.explicit(j, v, p[v]);
            }
            b.residual(j, 0);
        }
        return b.build();
    }

    /**
     * What the page needs: where the WebSocket is, the table's rows, each view's title, unit, axis
     * and bins (with a label per bin for dates and categories), and where it draws each chart.
     */
    private static byte[] info(Views views, PageLayout layout, int wsPort, long rows) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode o = json.createObjectNode().put("application", APPLICATION).put("onHoverApplication",
                ON_HOVER_APPLICATION).put("wsPort", wsPort).put("cacheBlocks", PAGE_CACHE_BLOCKS).put("rows", rows)
                .put("pixels", View.PIXELS).put("width", layout.width()).put("height", layout.height())
                .put("titleHeight", PageLayout.TITLE_HEIGHT);
        o.putArray("horizons").addAll(java.util.Arrays.stream(HORIZONS).mapToObj(json.getNodeFactory()::numberNode)
                .toList());
        for (View v : views) {
            Rect r = layout.bounds(v.index());
            ObjectNode view = o.withArray("views").addObject().put("name", v.name()).put("title", v.title())
                    .put("unit", v.unit()).put("kind", v.binning().kind());
            number(view, "start", v.start());
            number(view, "stop", v.stop());
            number(view, "step", v.step());
            view.put("bins", v.bins()).put("x", r.x()).put("y", r.y()).put("width", r.width())
                    .put("height", r.height());
            if (!(v.binning() instanceof Bins.Range)) {
                ArrayNode labels = view.putArray("labels");
                for (int b = 0; b < v.bins(); b++) {
                    labels.add(v.binLabel(b));
                }
            }
        }
        return json.writeValueAsBytes(o);
    }

    /** Puts {@code x} as an integer when it is one (as the flights views' bounds always were). */
    private static void number(ObjectNode o, String key, double x) {
        if (x == Math.rint(x) && Math.abs(x) < 1e15) {
            o.put(key, (long) x);
        } else {
            o.put(key, x);
        }
    }

    /** The recorded sessions the page can replay: name, events and duration of each. */
    private static byte[] sessionsJson(List<Workflow> workflows) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ArrayNode list = json.createArrayNode();
        for (Workflow w : workflows) {
            long duration = w.events().isEmpty() ? 0 : w.events().get(w.events().size() - 1).timeMs();
            list.addObject().put("name", w.name()).put("events", w.events().size()).put("durationMs", duration);
        }
        return json.writeValueAsBytes(list);
    }

    /** One session's events as {@code [timeMs, view, from, to]} rows. */
    private static byte[] eventsJson(Workflow w) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode o = json.createObjectNode().put("name", w.name());
        ArrayNode rows = o.putArray("events");
        for (BrushEvent e : w.events()) {
            rows.addArray().add(e.timeMs()).add(e.view().index()).add(e.from()).add(e.to());
        }
        return json.writeValueAsBytes(o);
    }

    private static void serve(HttpExchange exchange, byte[] info, byte[] sessions, byte[][] sessionEvents)
            throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            byte[] body = switch (path) {
                case "/", "/index.html" -> resource("dev/khameleon/examples/crossfilter/index.html");
                case "/khameleon/khameleon.js" -> resource("META-INF/resources/khameleon/khameleon.js");
                case "/info.json" -> info;
                case "/workflows.json" -> sessions;
                default -> sessionEvents(path, sessionEvents);
            };
            int status = !exchange.getRequestMethod().equals("GET") ? 405 : body == null ? 404 : 200;
            String type = path.endsWith(".js") ? "text/javascript" : path.endsWith(".json") ? "application/json"
                    : "text/html; charset=utf-8";
            respond(exchange, status, status == 200 ? type : "text/plain", status == 200 ? body
                    : (status + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    /** {@code /workflow/N.json}: session {@code N}'s events, or null for any other path. */
    private static byte[] sessionEvents(String path, byte[][] sessionEvents) {
        if (!path.startsWith("/workflow/") || !path.endsWith(".json")) {
            return null;
        }
        String n = path.substring("/workflow/".length(), path.length() - ".json".length());
        if (n.isEmpty() || n.length() > 6 || !n.chars().allMatch(Character::isDigit)) {
            return null;
        }
        int i = Integer.parseInt(n);
        return i < sessionEvents.length ? sessionEvents[i] : null;
    }

    /**
     * {@code /histograms?active=VIEW&scope=JSON} (active may be empty): the on-demand answer,
     * {@code {"VIEW": [counts...], ...}} for every view but the active one under the brushes of
     * {@code scope} (the {@link BrushScope} form). A malformed query is a 400, a full query queue a
     * 503; the queries run on the cache's threads, which send the answer.
     */
    private static void histograms(HttpExchange exchange, TileCache cache) throws IOException {
        Query q = query(exchange, cache.views(), true);
        if (q == null) {
            return;
        }
        cache.histograms(q.active, q.filters).whenComplete((result, error) -> answer(exchange, error, () -> {
            ObjectNode o = JSON.createObjectNode();
            for (Map.Entry<View, int[]> e : result.entrySet()) {
                ArrayNode counts = o.putArray(e.getKey().name());
                for (int c : e.getValue()) {
                    counts.add(c);
                }
            }
            return o;
        }));
    }

    /**
     * {@code /count?scope=JSON}: {@code {"rows": N}}, the rows passing every brush of {@code scope}
     * (one {@code COUNT(*)} query on the cache's threads); errors as for {@code /histograms}.
     */
    private static void count(HttpExchange exchange, TileCache cache) throws IOException {
        Query q = query(exchange, cache.views(), false);
        if (q == null) {
            return;
        }
        cache.count(q.filters).whenComplete((rows, error) -> answer(exchange, error,
                () -> JSON.createObjectNode().put("rows", rows)));
    }

    /** A parsed {@code active=VIEW&scope=JSON} query string. */
    private record Query(View active, Filters filters) {
    }

    /**
     * The query of {@code exchange} ({@code active} only if {@code withActive}), or null once it
     * answered 405 (not a GET) or 400 (malformed) itself.
     */
    private static Query query(HttpExchange exchange, Views views, boolean withActive) throws IOException {
        String raw = exchange.getRequestURI().getRawQuery();
        try {
            if (!exchange.getRequestMethod().equals("GET")) {
                try (exchange) {
                    respond(exchange, 405, "text/plain", "405\n".getBytes(StandardCharsets.UTF_8));
                }
                return null;
            }
            String usage = withActive ? "active=VIEW&scope={...}" : "scope={...}";
            if (raw == null || raw.length() > MAX_QUERY_LENGTH) {
                throw new IllegalArgumentException("a query of at most " + MAX_QUERY_LENGTH
                        + " characters is required: " + usage);
            }
            View active = null;
            String scope = null;
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (withActive && name.equals("active")) {
                    active = value.isEmpty() ? null : BrushScope.view(views, value);
                } else if (name.equals("scope")) {
                    scope = value;
                }
            }
            if (scope == null) {
                throw new IllegalArgumentException("scope is required, e.g. scope={\"DISTANCE\":[0,100]}");
            }
            return new Query(active, BrushScope.filters(views, JSON.readTree(scope)));
        } catch (IOException | IllegalArgumentException e) {
            try (exchange) {
                respond(exchange, 400, "text/plain", ("400 " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            }
            return null;
        }
    }

    /** Answers {@code exchange} with {@code body}'s JSON, or with {@code error}: 503 for a full queue, else 500. */
    private static void answer(HttpExchange exchange, Throwable error, java.util.function.Supplier<ObjectNode> body) {
        try (exchange) {
            if (error == null) {
                respond(exchange, 200, "application/json", JSON.writeValueAsBytes(body.get()));
            } else {
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause()
                        != null ? error.getCause() : error;
                int status = cause instanceof RejectedExecutionException ? 503 : 500;
                respond(exchange, status, "text/plain", (status + " " + cause.getMessage() + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the page went away: nothing to answer
        }
    }

    private static void respond(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
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

    /** The applications served (for tests: their predictor and utility). */
    List<Application> applications() {
        return khameleon.applications();
    }

    /** The port the WebSocket listens on. */
    public int port() {
        return khameleon.port();
    }

    /** The predicted application's WebSocket address, e.g. {@code ws://127.0.0.1:8081/crossfilter}. */
    public URI webSocketUri() {
        return URI.create("ws://127.0.0.1:" + port() + "/" + APPLICATION);
    }

    /** The on-hover application's WebSocket address, e.g. {@code ws://127.0.0.1:8081/crossfilter-hover}. */
    public URI onHoverWebSocketUri() {
        return URI.create("ws://127.0.0.1:" + port() + "/" + ON_HOVER_APPLICATION);
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
