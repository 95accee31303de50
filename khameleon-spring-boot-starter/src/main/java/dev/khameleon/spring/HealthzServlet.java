package dev.khameleon.spring;

import dev.khameleon.server.KhameleonServer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.ObjectProvider;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /healthz} on Boot's port, as the server answers it on a port of its own: 200
 * {@code ok} while the server takes sessions, 503 {@code draining} once {@link KhameleonServer#drain}
 * or {@code close()} has been called, 405 for methods other than GET and HEAD. For a load
 * balancer's health check; the server is looked up at the first request, so that registering
 * this servlet does not create the server and its applications early.
 */
final class HealthzServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The path, as on the server's own port. */
    static final String PATH = "/healthz";

    private final transient ObjectProvider<KhameleonServer> server;

    HealthzServlet(ObjectProvider<KhameleonServer> server) {
        this.server = server;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
        boolean get = "GET".equals(req.getMethod()) || "HEAD".equals(req.getMethod());
        KhameleonServer khameleon = server.getIfAvailable();
        boolean draining = khameleon == null || khameleon.isDraining();
        String body = !get ? "GET only\n" : draining ? "draining\n" : "ok\n";
        res.setStatus(!get ? HttpServletResponse.SC_METHOD_NOT_ALLOWED
                : draining ? HttpServletResponse.SC_SERVICE_UNAVAILABLE : HttpServletResponse.SC_OK);
        if (!get) {
            res.setHeader("Allow", "GET, HEAD");
        }
        res.setContentType("text/plain; charset=UTF-8");
        res.setHeader("Cache-Control", "no-store");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        res.setContentLength(bytes.length);
        if (!"HEAD".equals(req.getMethod())) {
            res.getOutputStream().write(bytes);
        }
    }
}
