package dev.khameleon.examples.gallery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gallery's web site on the JDK's built-in HTTP server: the page, its script and icon, the
 * browser client module (a resource of {@code khameleon-client}), the thumbnail mosaic, the
 * gallery's description as JSON, and each full image at {@code /full/<id>.jpg} for the plain
 * request/response mode. Requests are served by a small bounded pool; only GET and HEAD, and
 * only with a {@code Host} the {@link OriginPolicy} accepts (a defence against DNS rebinding).
 */
final class WebSite implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebSite.class);
    private static final Pattern FULL = Pattern.compile("/full/(\\d{1,9})\\.jpg");
    private static final Map<String, String> PAGES = Map.of(
            "/", "site/index.html",
            "/index.html", "site/index.html",
            "/gallery.js", "site/gallery.js",
            "/gallery.css", "site/gallery.css",
            // Browsers ask for /favicon.ico when a page names no icon; the page names favicon.svg.
            "/favicon.svg", "site/favicon.svg",
            "/favicon.ico", "site/favicon.svg");
    private static final String CLIENT_MODULE = "/khameleon/khameleon.js";

    private final HttpServer server;
    private final ThreadPoolExecutor pool;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the site on {@code port} (0 for any free port) of the loopback address.
     *
     * @param info the JSON served at {@code /info.json}, computed per request (it names the
     *     WebSocket port, known only once everything has started)
     * @param origins whose {@code Host} check every request must pass (else 403)
     * @throws UncheckedIOException if it cannot listen
     */
    WebSite(int port, Corpus corpus, Supplier<String> info, OriginPolicy origins) {
        byte[] mosaic = corpus.mosaicJpeg();
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the web site: " + e.getMessage(), e);
        }
        pool = new ThreadPoolExecutor(4, 8, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256),
                r -> {
                    Thread t = new Thread(r, "gallery-http");
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.CallerRunsPolicy());
        server.setExecutor(pool);
        server.createContext("/", exchange -> {
            try (exchange) {
                String refusal = origins.hostRefusal(exchange.getRequestHeaders().getFirst("Host"));
                if (refusal != null) {
                    send(exchange, 403, "text/plain", (refusal + "\n").getBytes(StandardCharsets.UTF_8), false);
                } else {
                    serve(exchange, corpus, mosaic, info);
                }
            } catch (IOException | RuntimeException e) {
                log.debug("request {} failed: {}", exchange.getRequestURI(), e.toString());
            }
        });
        server.start();
    }

    /** The port the site listens on. */
    int port() {
        return server.getAddress().getPort();
    }

    private static void serve(HttpExchange exchange, Corpus corpus, byte[] mosaic, Supplier<String> info)
            throws IOException {
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            send(exchange, 405, "text/plain", "only GET and HEAD\n".getBytes(StandardCharsets.UTF_8), false);
            return;
        }
        String path = exchange.getRequestURI().getPath();
        String page = PAGES.get(path);
        if (page != null) {
            send(exchange, 200, contentType(page), resource(WebSite.class, page), false);
        } else if (path.equals(CLIENT_MODULE)) {
            send(exchange, 200, "text/javascript", resource(null, "META-INF/resources" + CLIENT_MODULE), false);
        } else if (path.equals("/mosaic.jpg")) {
            send(exchange, 200, "image/jpeg", mosaic, true);
        } else if (path.equals("/info.json")) {
            send(exchange, 200, "application/json", info.get().getBytes(StandardCharsets.UTF_8), false);
        } else {
            Matcher m = FULL.matcher(path);
            int id = m.matches() ? Integer.parseInt(m.group(1)) : -1;
            if (id >= 0 && id < corpus.requestCount()) {
                send(exchange, 200, "image/jpeg", corpus.jpeg(id), true);
            } else {
                send(exchange, 404, "text/plain", ("not found: " + path + "\n").getBytes(StandardCharsets.UTF_8), false);
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body, boolean cacheable)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", cacheable ? "max-age=3600" : "no-cache");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (name.endsWith(".js")) {
            return "text/javascript";
        }
        if (name.endsWith(".svg")) {
            return "image/svg+xml";
        }
        return name.endsWith(".css") ? "text/css" : "application/octet-stream";
    }

    private static byte[] resource(Class<?> relativeTo, String name) {
        InputStream in = relativeTo != null ? relativeTo.getResourceAsStream(name)
                : WebSite.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("resource missing from the class path: " + name);
        }
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
