package com.example.firstapp;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A dashboard of 8 × 8 charts; hovering over a chart asks for its full series. */
public final class FirstApp {
    /** The charts on screen: 8 rows × 8 columns of 100 × 100 px; each is one request id. */
    static final GridLayout CHARTS = Layout.grid(8, 8, 0, 0, 100, 100);

    /** Your backend: the series behind chart {@code id}. Here a stand-in for a database query. */
    static double[] query(int id) {
        double[] series = new double[4096];
        for (int i = 0; i < series.length; i++) {
            series[i] = Math.sin(i * (id + 1) / 500.0);
        }
        return series;
    }

    /** Coarse first: every 64th point, then the points that halve the gaps, ... down to every point. */
    static final class CoarseFirstEncoder implements ProgressiveEncoder<double[]> {
        @Override
        public int blockSize() {
            return 2048;
        }

        @Override
        public List<Block> encode(int requestId, double[] series) {
            ByteBuffer bytes = ByteBuffer.allocate(series.length * Double.BYTES);
            for (int stride = 64; stride >= 1; stride /= 2) {
                for (int i = 0; i < series.length; i += stride) {
                    if (stride == 64 || i % (2 * stride) != 0) {
                        bytes.putDouble(series[i]);
                    }
                }
            }
            return ProgressiveEncoder.split(requestId, bytes.array(), blockSize());
        }
    }

    /** Serves on the port given as the first argument, 8080 without one (0: any free port). */
    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        run(port, System.out);
    }

    /** Serves the dashboard on {@code port}, hovers over one chart with a client, returns its full answer. */
    static Response run(int port, PrintStream out) throws Exception {
        // 1. Encode every response (a large app would implement BlockSource and read them lazily).
        CoarseFirstEncoder encoder = new CoarseFirstEncoder();
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < CHARTS.requestCount(); id++) {
            responses.add(encoder.encode(id, query(id)));
        }
        // 2. Mount them, with the server half of the pointer predictor, on a Khameleon server.
        KhameleonServer server = KhameleonServer.builder()
                .port(port)
                .application(Application.builder("charts")
                        .blockSource(BlockSource.inMemory(encoder.blockSize(), responses))
                        .predictor(GaussianGridPredictor.builder(CHARTS).build())
                        .build())
                .build()
                .start();
        // 3. A client (in a real app: your UI) streams pointer moves and asks for the chart it reaches.
        try (server; KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/charts"))
                .application("charts")
                .cacheBlocks(2000)                                   // room for all 1,024 blocks
                .build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            for (double x = 0; x <= 450; x += 15) {                 // the pointer glides to the right
                client.onEvent(x, 420, System.currentTimeMillis());
                Thread.sleep(20);
            }
            CompletableFuture<Response> full = new CompletableFuture<>();
            client.request(CHARTS.requestAt(450, 420), response -> {
                out.printf(Locale.ROOT, "chart %d: %d of %d blocks, utility %.2f%n", response.requestId(),
                        response.blocks().size(), response.blockCount(), response.utility());
                if (response.isComplete()) {
                    full.complete(response);
                }
            });
            Response answer = full.get(30, TimeUnit.SECONDS);
            out.println(client.metrics());
            return answer;
        }
    }
}
