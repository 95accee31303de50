package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * An empty page in headless Chromium that can import {@code /khameleon/khameleon.js}, served from
 * the client jar's resource on 127.0.0.1, for tests of the browser module against Java code.
 * Skips the calling test when the browser is not installed (see {@link BrowserSession}).
 */
final class KhameleonJsPage implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer site;
    private final BrowserSession browser;

    private KhameleonJsPage(HttpServer site, BrowserSession browser) {
        this.site = site;
        this.browser = browser;
    }

    /** Serves the page, starts a browser with a fresh profile in {@code profile} and opens the page. */
    static KhameleonJsPage start(Path profile) throws IOException {
        HttpServer site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        site.createContext("/", exchange -> {
            try (exchange) {
                byte[] body;
                String type;
                if (exchange.getRequestURI().getPath().equals("/khameleon/khameleon.js")) {
                    try (InputStream in = KhameleonJsPage.class.getClassLoader()
                            .getResourceAsStream("META-INF/resources/khameleon/khameleon.js")) {
                        body = in.readAllBytes();
                    }
                    type = "text/javascript";
                } else {
                    body = "<!doctype html><title>khameleon.js</title>".getBytes(StandardCharsets.UTF_8);
                    type = "text/html";
                }
                exchange.getResponseHeaders().set("Content-Type", type);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        site.start();
        BrowserSession browser;
        try {
            browser = BrowserSession.start(profile);
        } catch (RuntimeException | Error e) {
            site.stop(0); // also when the test is skipped for want of a browser
            throw e;
        }
        KhameleonJsPage page = new KhameleonJsPage(site, browser);
        browser.driver().manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        browser.driver().get(page.origin() + "/");
        return page;
    }

    /** The page's origin, {@code http://127.0.0.1:<port>}, for a server's allowed origins. */
    String origin() {
        return "http://127.0.0.1:" + site.getAddress().getPort();
    }

    /**
     * Runs {@code body}, the body of an async function that sees the module as {@code k} and the
     * arguments as {@code args}, and returns its result as JSON ({@code {"error": …}} if it threw).
     */
    JsonNode run(String body, Object... args) {
        String script = "const done = arguments[arguments.length - 1];"
                + "const args = Array.from(arguments).slice(0, -1);"
                + "import('/khameleon/khameleon.js').then(async (k) => {" + body + "})"
                + ".then((r) => done(JSON.stringify(r === undefined ? null : r)), (e) => done(JSON.stringify({error: String(e)})));";
        Object result = browser.driver().executeAsyncScript(script, args);
        try {
            return JSON.readTree((String) result);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + result, e);
        }
    }

    @Override
    public void close() {
        try {
            browser.close();
        } finally {
            site.stop(0);
        }
    }
}
