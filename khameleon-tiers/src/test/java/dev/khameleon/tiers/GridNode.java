package dev.khameleon.tiers;

import dev.khameleon.testing.PatternBlocks;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The load-balancer tests' node: a 4×4 grid of requests with in-memory responses, behind a
 * {@link KhameleonServer} that shares {@link #RESUME_KEY} with every other node. Run in process
 * ({@link #builder}) or as its own JVM ({@link #main}), so that a test can kill it with SIGKILL.
 * Its {@linkplain #screenBuilder screen} variant covers a 1920×1080 screen with the library's
 * default predictor, for clients replaying real pointer traces.
 */
final class GridNode {
    static final int BLOCK_SIZE = 256;
    static final int BLOCKS = 4;
    static final GridLayout GRID = Layout.grid(4, 4, 0, 0, 100, 100);
    /** The screen variant: 1920×1080 as 8 rows of 12 cells, the largest Balabit screen. */
    static final GridLayout SCREEN = Layout.grid(8, 12, 0, 0, 160, 135);
    /** The nodes' shared resume key: a session moved off a node resumes on another with its cache. */
    static final byte[] RESUME_KEY = "a resume key shared by all nodes".getBytes(StandardCharsets.US_ASCII);

    private GridNode() {
    }

    /** The bytes of block {@code index} of request {@code request}: distinct per block, so a mix-up shows. */
    static byte[] payload(int request, int index) {
        return PatternBlocks.payload(request, index, BLOCK_SIZE);
    }

    /**
     * A server for the grid on 127.0.0.1 (port 0: any free one), pushing {@code bytesPerSecond} to
     * each session, with the shared resume key. Every connection comes from the proxy's address,
     * so per-address limits are left to the proxy.
     */
    static KhameleonServer.Builder builder(int seed, long bytesPerSecond) {
        return node(seed, bytesPerSecond, Application.builder("grid")
                .blockSource(PatternBlocks.source(GRID.requestCount(), BLOCKS, BLOCK_SIZE))
                .predictor(ServerPredictor.point(GRID.requestCount(), 50, 150, 250, 500)).build());
    }

    /**
     * A server like {@link #builder}'s for the {@link #SCREEN} grid, whose server half of the
     * predictor is the library's default for a grid ({@link GaussianGridPredictor} with its
     * defaults), matching the Java client's default {@code KalmanPredictor}.
     */
    static KhameleonServer.Builder screenBuilder(int seed, long bytesPerSecond) {
        return node(seed, bytesPerSecond, Application.builder("grid")
                .blockSource(PatternBlocks.source(SCREEN.requestCount(), BLOCKS, BLOCK_SIZE))
                .predictor(GaussianGridPredictor.builder(SCREEN).build()).build());
    }

    private static KhameleonServer.Builder node(int seed, long bytesPerSecond, Application app) {
        return KhameleonServer.builder().host("127.0.0.1").port(0).seed(seed)
                .fixedBytesPerSecond(bytesPerSecond).maxConnectionsPerAddress(10_000).maxHandshakesPerAddress(10_000)
                .resumeKey(RESUME_KEY).application(app);
    }

    /**
     * Runs a node in its own JVM: {@code GridNode <seed> <bytesPerSecond> [grid|screen]} (default
     * {@code grid}: {@link #builder}; {@code screen}: {@link #screenBuilder}). Prints {@code port N}
     * once it listens, answers each {@code metrics} line on standard input with
     * {@code metrics <open sessions> <sessions resumed> <resumes refused>}, and exits when standard
     * input ends, so a node never outlives the test that started it.
     */
    public static void main(String[] args) throws Exception {
        int seed = Integer.parseInt(args[0]);
        long bytesPerSecond = Long.parseLong(args[1]);
        KhameleonServer s = (args.length > 2 && args[2].equals("screen") ? screenBuilder(seed, bytesPerSecond)
                : builder(seed, bytesPerSecond)).build().start();
        System.out.println("port " + s.port());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("metrics")) {
                System.out.println("metrics " + s.sessionMetrics().size() + " " + s.metrics().sessionsResumed()
                        + " " + s.metrics().resumesRefused());
                System.out.flush();
            }
        }
        s.close();
        System.exit(0);
    }

    /** The client half of the point predictor: the cell under the pointer. */
    static final class CellPredictor implements ClientPredictor<PointerEvent> {
        private volatile int cell = -1;

        @Override
        public void onEvent(PointerEvent event) {
            cell = GRID.requestAt(event.x(), event.y());
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", cell);
        }
    }
}
