package dev.khameleon.examples.timeseries;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

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

    /** The default trace, from a checkout beside the project's {@code shared/data}. */
    static final Path DEFAULT_TRACE = Path.of("../shared/data/network/mahimahi/TMobile-UMTS-driving.down");
    /** The page's default port. */
    static final int DEFAULT_PORT = 8080;
    static final String USAGE = "usage: java -jar khameleon-timeseries.jar [TRACE [PORT]]"
            + " (a Mahimahi trace, default " + DEFAULT_TRACE + "; the page's port, default " + DEFAULT_PORT
            + ", 0 for any free one)";

    /** What the command line asks for: the trace to serve and the page's port. */
    record Arguments(Path trace, int port) {
        /**
         * Reads {@code [TRACE [PORT]]}.
         *
         * @throws IllegalArgumentException naming the argument, for a port that is not a number in
         *     [0, 65535], an option or too many arguments
         */
        static Arguments parse(String... args) {
            if (args.length > 2) {
                throw new IllegalArgumentException("expected at most TRACE and PORT, got " + args.length
                        + " arguments: " + String.join(" ", args));
            }
            for (String a : args) {
                if (a.startsWith("-")) {
                    throw new IllegalArgumentException(a + ": unknown option; " + USAGE);
                }
            }
            Path trace = args.length > 0 ? Path.of(args[0]) : DEFAULT_TRACE;
            int port = DEFAULT_PORT;
            if (args.length > 1) {
                try {
                    port = Integer.parseInt(args[1]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("PORT " + args[1] + ": not a number (0 to 65535, 0 for any free"
                            + " port)");
                }
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException("PORT " + port + ": outside [0, 65535] (0 for any free port)");
                }
            }
            return new Arguments(trace, port);
        }
    }

    /**
     * {@code java -jar khameleon-timeseries.jar [TRACE [PORT]]}: serves the page at
     * http://127.0.0.1:8080/ by default, for the T-Mobile UMTS driving trace of the project's data.
     * A bad argument, a missing or malformed trace, or a busy port end it with one line naming the
     * argument and exit status 2.
     */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err, app -> Runtime.getRuntime().addShutdownHook(new Thread(app::close)));
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Runs the command line: on success starts the app, prints the address it listens on (the
     * page's port included), hands the running app to {@code started} and returns 0, leaving it
     * running; {@code -h} or {@code --help} prints the usage and returns 0; a bad argument, a
     * missing or malformed trace, or a port that cannot be bound prints one line on {@code err}
     * naming it and returns 2.
     */
    static int run(String[] args, PrintStream out, PrintStream err, Consumer<TimeseriesApp> started) {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            out.println(USAGE);
            return 0;
        }
        Arguments a;
        try {
            a = Arguments.parse(args);
            if (!Files.isRegularFile(a.trace())) {
                throw new IllegalArgumentException("TRACE " + a.trace() + ": not found (a Mahimahi trace file)");
            }
        } catch (IllegalArgumentException e) {
            err.println("khameleon-timeseries: " + e.getMessage());
            return 2;
        }
        TimeseriesApp app;
        try {
            app = start(a.trace(), a.port());
        } catch (BindException e) {
            err.println("khameleon-timeseries: PORT " + a.port() + ": cannot listen on 127.0.0.1 (" + e.getMessage()
                    + "); pass another port, or 0 for any free one");
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("khameleon-timeseries: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("khameleon-timeseries: TRACE " + a.trace() + ": cannot read (" + e + ")");
            return 2;
        }
        started.accept(app);
        out.println("khameleon-timeseries: listening on " + app.pageUri() + " (port " + app.pageUri().getPort()
                + "; WebSocket " + app.webSocketUri() + ")");
        out.println(app.windows.size() + " windows of " + a.trace() + "; utility after each block:");
        for (int k = 0; k < app.utility.fractions().length; k++) {
            out.printf("  %d block(s)  U = %.3f%n", k + 1, app.utility.utilities()[k]);
        }
        out.println("open " + app.pageUri());
        return 0;
    }
}
