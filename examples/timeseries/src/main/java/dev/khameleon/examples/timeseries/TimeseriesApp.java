package dev.khameleon.examples.timeseries;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.khameleon.core.Block;
import dev.khameleon.core.GridLayout;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The time-series example: an overview chart of a recorded cellular link's throughput, one bar per
 * window of {@link #WINDOW_POINTS} bins of {@link #BIN_MILLIS} ms; hovering a bar shows that window
 * in detail. Each window is a request; Khameleon pushes their progressively encoded series
 * ({@link BucketSumEncoder}) into the browser's cache ahead of the pointer.
 *
 * <p>Two listeners on 127.0.0.1: a tiny web site (the page, {@code khameleon.js}, {@code info.json})
 * and the Khameleon WebSocket, which admits pages of the site's origin only. {@link #close()} stops
 * both; thread-safe.
 */
public final class TimeseriesApp implements AutoCloseable {
    /** The Khameleon application's name and WebSocket path. */
    static final String APPLICATION = "timeseries";
    /** Width of a bin of the series, ms: a packet per bin is 1.2 Mbit/s. */
    static final int BIN_MILLIS = 10;
    /** Bins per window (a power of two, as the encoder needs): 10.24 s per window. */
    static final int WINDOW_POINTS = 1024;
    /** Bytes per block: the 4 KB encoding of a window is 9 blocks, the first a 126-value sketch. */
    static final int BLOCK_SIZE = 512;
    /** The browser's ring in blocks: room for every window of a 15-minute trace, and more. */
    static final int CACHE_BLOCKS = 2000;
    /** One window's bar in the overview chart, pixels: the layout the predictor integrates over. */
    static final int BAR_WIDTH = 8;
    static final int CHART_HEIGHT = 120;

    private final List<int[]> windows;
    private final ChartUtility utility;
    private final HttpServer site;
    private final KhameleonServer khameleon;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TimeseriesApp(List<int[]> windows, ChartUtility utility, HttpServer site, KhameleonServer khameleon) {
        this.windows = windows;
        this.utility = utility;
        this.site = site;
        this.khameleon = khameleon;
    }

    /**
     * Reads the Mahimahi trace {@code file}, encodes its windows, measures the utility curve and
     * starts both listeners; the page is at {@code port} (0 for any free port).
     *
     * @throws IOException if the trace cannot be read or a port cannot be bound
     * @throws IllegalArgumentException if the trace is malformed or shorter than two windows
     */
    public static TimeseriesApp start(Path file, int port) throws IOException {
        List<int[]> windows = LinkTrace.read(file, BIN_MILLIS).windows(WINDOW_POINTS);
        if (windows.size() < 2) {
            throw new IllegalArgumentException(file + " is shorter than two windows of "
                    + WINDOW_POINTS * BIN_MILLIS + " ms");
        }
        // 1. Responses: each window's series, cut into blocks once; request id = window index.
        BucketSumEncoder encoder = new BucketSumEncoder(BLOCK_SIZE);
        List<List<Block>> blocks = new ArrayList<>();
        for (int w = 0; w < windows.size(); w++) {
            blocks.add(encoder.encode(w, windows.get(w)));
        }
        // 2. Utility: what a prefix of blocks is worth, measured on these very windows.
        ChartUtility utility = ChartUtility.measure(windows, encoder);
        // 3. Prediction: the browser sends a Kalman forecast of its pointer; the server integrates
        //    it over the overview's bars, a 1-row grid in the page's pixel coordinates.
        GridLayout bars = new GridLayout(1, windows.size(), 0, 0, BAR_WIDTH, CHART_HEIGHT);
        Application application = Application.builder(APPLICATION)
                .path("/" + APPLICATION)
                .blockSource(BlockSource.inMemory(BLOCK_SIZE, blocks))
                .predictor(GaussianGridPredictor.builder(bars).build())
                .utility(utility.toUtilityFunction())
                .build();
        // The site is bound first: its port names the one origin the WebSocket admits.
        HttpServer site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        int sitePort = site.getAddress().getPort();
        KhameleonServer khameleon;
        try {
            khameleon = KhameleonServer.builder().host("127.0.0.1").port(0).application(application)
                    .allowedOrigins("http://127.0.0.1:" + sitePort, "http://localhost:" + sitePort)
                    .maxCacheBlocks(CACHE_BLOCKS)
                    .build().start();
        } catch (RuntimeException e) {
            site.stop(0);
            throw e;
        }
        byte[] info = info(windows, utility, khameleon.port());
        site.createContext("/", exchange -> serve(exchange, info));
        site.start(); // no executor: one dispatcher thread answers, each answer is a ready array
        return new TimeseriesApp(windows, utility, site, khameleon);
    }

    /** What the page needs: where the WebSocket is, the overview's bars and the utility curve. */
    private static byte[] info(List<int[]> windows, ChartUtility utility, int wsPort) throws IOException {
        ObjectNode o = new ObjectMapper().createObjectNode()
                .put("application", APPLICATION).put("wsPort", wsPort).put("wsPath", "/" + APPLICATION)
                .put("cacheBlocks", CACHE_BLOCKS).put("binMillis", BIN_MILLIS)
                .put("barWidth", BAR_WIDTH).put("chartHeight", CHART_HEIGHT);
        for (int[] window : windows) {
            long packets = 0;
            for (int p : window) {
                packets += p;
            }
            o.withArray("meanPackets").add(packets / (double) window.length);
        }
        for (int k = 0; k < utility.fractions().length; k++) {
            o.withArray("fractions").add(utility.fractions()[k]);
            o.withArray("utilities").add(utility.utilities()[k]);
        }
        return new ObjectMapper().writeValueAsBytes(o);
    }

    private static void serve(HttpExchange exchange, byte[] info) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            byte[] body = switch (path) {
                case "/", "/index.html" -> resource("dev/khameleon/examples/timeseries/index.html");
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
        try (InputStream in = TimeseriesApp.class.getClassLoader().getResourceAsStream(name)) {
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

    /** The Khameleon WebSocket's address. */
    public URI webSocketUri() {
        return URI.create("ws://127.0.0.1:" + khameleon.port() + "/" + APPLICATION);
    }

    /** The windows served, request id = index (read only). */
    List<int[]> windows() {
        return windows;
    }

    /** The measured utility curve the scheduler uses. */
    ChartUtility utility() {
        return utility;
    }

    /** Stops the site and the Khameleon server. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            site.stop(0);
            khameleon.close();
        }
    }

    /**
     * {@code java -jar khameleon-timeseries.jar [trace [port]]}: serves the page at
     * http://127.0.0.1:8080/ by default, for the T-Mobile UMTS driving trace of the project's data.
     * A missing or malformed trace, a bad or busy port end it with one line and exit status 2.
     */
    public static void main(String[] args) {
        Path trace = Path.of(args.length > 0 ? args[0] : "../shared/data/network/mahimahi/TMobile-UMTS-driving.down");
        TimeseriesApp app;
        try {
            app = start(trace, args.length > 1 ? Integer.parseInt(args[1]) : 8080);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("khameleon-timeseries: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(app::close));
        System.out.println(app.windows.size() + " windows of " + trace + "; utility after each block:");
        for (int k = 0; k < app.utility.fractions().length; k++) {
            System.out.printf("  %d block(s)  U = %.3f%n", k + 1, app.utility.utilities()[k]);
        }
        System.out.println("open " + app.pageUri());
    }
}
