package com.example.jetty;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.jakarta.KhameleonEndpoints;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 web application with a servlet of its own ({@code /hello}) and the
 * Khameleon application {@code charts} served by its Jakarta WebSocket container at {@code /ws}.
 */
public final class ChartsServer implements AutoCloseable {
    /** The number of charts; each is one request id. */
    public static final int CHARTS = 64;
    /** The horizons of the predictor's distributions, the application's defaults. */
    static final long[] HORIZONS = {50, 150, 250, 500};

    private final KhameleonServer khameleon;
    private final Server jetty;
    private final ServerConnector connector;

    private ChartsServer(KhameleonServer khameleon, Server jetty, ServerConnector connector) {
        this.khameleon = khameleon;
        this.jetty = jetty;
        this.connector = connector;
    }

    /** Your backend: the series behind chart {@code id}. Here a stand-in for a database query. */
    public static double[] query(int id) {
        double[] series = new double[4096];
        for (int i = 0; i < series.length; i++) {
            series[i] = Math.sin(i * (id + 1) / 500.0);
        }
        return series;
    }

    /** Every chart encoded up front, in memory. */
    static BlockSource chartBlocks(SeriesEncoder encoder) {
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < CHARTS; id++) {
            responses.add(encoder.encode(id, query(id)));
        }
        return BlockSource.inMemory(encoder.blockSize(), responses);
    }

    /** Starts Jetty on 127.0.0.1:{@code port} (0 picks a free port). */
    public static ChartsServer start(int port) throws Exception {
        Application charts = Application.builder("charts").path("/ws")
                .blockSource(chartBlocks(new SeriesEncoder(2048)))
                .predictor(Predictors.serverHalf(CHARTS, HORIZONS))
                .horizons(HORIZONS)
                .build();
        KhameleonServer khameleon = KhameleonServer.builder()
                .application(charts)                                          // path "/ws"
                .build()
                .mount();
        ServletContextHandler context = new ServletContextHandler();       // Jetty 12 (ee10)
        context.addServlet(new ServletHolder(new HelloServlet()), "/hello"); // the web app's own servlets
        JakartaWebSocketServletContainerInitializer.configure(context,
                (servletContext, container) -> container.addEndpoint(KhameleonEndpoints.at(khameleon, "/ws")));

        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        jetty.addConnector(connector);
        jetty.setHandler(context);
        try {
            jetty.start();
        } catch (Exception e) {
            khameleon.close();
            throw e;
        }
        return new ChartsServer(khameleon, jetty, connector);
    }

    /** The port Jetty listens on. */
    public int port() {
        return connector.getLocalPort();
    }

    /** The mounted Khameleon server, for its metrics. */
    public KhameleonServer khameleon() {
        return khameleon;
    }

    /** Closes Khameleon's sessions first, then Jetty. */
    @Override
    public void close() throws Exception {
        khameleon.close();
        jetty.stop();
    }

    /** Serves on 127.0.0.1:8080 until the process is stopped. */
    public static void main(String[] args) throws Exception {
        ChartsServer server = start(8080);
        System.out.println("http://127.0.0.1:" + server.port() + "/hello and ws://127.0.0.1:" + server.port() + "/ws");
        server.jetty.join();
    }
}
