package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.khameleon.client.ClientMetrics;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The gallery's command line: builds the corpus, starts the servers, prints the page's address
 * and runs until interrupted (Ctrl-C).
 */
@Command(name = "khameleon-gallery", mixinStandardHelpOptions = true, versionProvider = GalleryVersion.class,
        description = "Image gallery pushed by Khameleon: open the printed address and hover over the mosaic.")
public final class GalleryMain implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", description = "page port on 127.0.0.1, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port = 8080;

    @Option(names = "--rows", description = "mosaic rows (default: ${DEFAULT-VALUE})")
    int rows = 30;

    @Option(names = "--cols", description = "mosaic columns (default: ${DEFAULT-VALUE})")
    int cols = 40;

    @Option(names = "--images", paramLabel = "DIR",
            description = "cut the tiles from the photographs (PNG/JPEG) in DIR instead of drawing synthetic ones")
    Path images;

    @Option(names = "--seed", description = "seed of the pictures (default: ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--block-size", description = "bytes per block (default: ${DEFAULT-VALUE})")
    int blockSize = 4096;

    @Option(names = "--cache-blocks", description = "browser cache size in blocks (default: ${DEFAULT-VALUE})")
    int cacheBlocks = 5000;

    @Option(names = "--link-MBps", description = "emulated link rate in MB/s, 0 for unlimited (default: ${DEFAULT-VALUE})")
    double linkMBps = 1.5;

    @Option(names = "--latency-ms", description = "emulated round-trip time in ms, 0 for none (default: ${DEFAULT-VALUE})")
    long latencyMs = 100;

    @Option(names = "--allowed-origin", paramLabel = "ORIGIN",
            description = "also let pages from ORIGIN (http(s)://host[:port]) open the WebSocket, e.g. behind a"
                    + " reverse proxy; repeatable; * allows any page and host name (default: the gallery's own page"
                    + " on 127.0.0.1, localhost or [::1] only)")
    List<String> allowedOrigins = new ArrayList<>();

    @Option(names = "--cache-dir", paramLabel = "DIR",
            description = "keep the built corpus in DIR and load it from there on the next start with the same"
                    + " settings (default: $XDG_CACHE_HOME/khameleon/gallery or ~/.cache/khameleon/gallery)")
    Path cacheDir;

    @Option(names = "--no-cache", description = "build the corpus on every start, neither reading nor writing a cache")
    boolean noCache;

    @Option(names = "--replay", paramLabel = "TRACE",
            description = "instead of waiting for a browser, replay this pointer trace (the gallery JSON format,"
                    + " e.g. ../shared/data/pointer/gallery/1M-30s.json) with the Java client, print its metrics"
                    + " and exit")
    Path replay;

    /** Runs the gallery; see {@code --help}. Exits 0 when done, 2 on a user error (one line on stderr). */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line that {@link #main} executes: a user's mistake (an unknown option, a bad value) is one
     * line on stderr and exit status 2, not a stack trace or the whole usage text.
     */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new GalleryMain());
        cli.setParameterExceptionHandler((e, args) ->
                userError(e.getCommandLine().getErr(), e.getMessage() + " (see --help)"));
        return cli;
    }

    /** Prints {@code message} as the one line of a user error and returns its exit status, 2. */
    private static int userError(PrintWriter err, String message) {
        err.println("khameleon-gallery: " + message.strip().replaceAll("\\s*\\R\\s*", " "));
        err.flush();
        return 2;
    }

    @Override
    public Integer call() throws Exception {
        if (noCache && cacheDir != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cache-dir and --no-cache exclude each other");
        }
        GalleryServer.Builder builder;
        try {
            builder = GalleryServer.builder().port(port).grid(rows, cols).seed(seed)
                    .blockSize(blockSize).cacheBlocks(cacheBlocks).linkBytesPerSecond(linkMBps * 1e6)
                    .latencyMillis(latencyMs).allowedOrigins(allowedOrigins)
                    .corpusCache(noCache ? null : cacheDir != null ? cacheDir : CorpusCache.defaultDirectory());
            if (images != null) {
                builder.images(images);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PointerTrace trace = null;
        if (replay != null) {
            if (!Files.isRegularFile(replay)) {
                return userError(spec.commandLine().getErr(), "cannot replay " + replay + ": no such file");
            }
            try {
                trace = PointerTrace.read(replay);
            } catch (IOException | IllegalArgumentException e) {
                String why = e instanceof JsonProcessingException json ? "not JSON (" + json.getOriginalMessage() + ")"
                        : e.getMessage();
                return userError(spec.commandLine().getErr(), "cannot replay " + replay + ": " + why);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        builder.progress(BuildProgress.toConsole(out));
        GalleryServer started;
        try {
            started = builder.start(() -> {
                out.println("Building the gallery (" + rows + " x " + cols + " pictures) ...");
                out.flush();
            });
        } catch (BindException | TileImages.BadImagesException e) {
            // The user's input, not a bug: one line, no stack trace.
            return userError(spec.commandLine().getErr(), e.getMessage()
                    + (e instanceof BindException ? " (choose another with --port, or 0 for any free one)" : ""));
        }
        if (trace != null) {
            try (GalleryServer gallery = started) {
                System.out.println("Replaying " + replay + " (" + trace.samples().size() + " samples) against "
                        + gallery.webSocketUri() + " with the Java client ...");
                ClientMetrics m = TraceReplay.replay(gallery,
                        trace.scaledTo(cols * GalleryServer.Config.THUMB_WIDTH, rows * GalleryServer.Config.THUMB_HEIGHT),
                        Duration.ofSeconds(5));
                System.out.printf(Locale.ROOT, "hovers %d, cache hit rate %.2f, preempted %.2f, response latency"
                                + " mean %.1f ms p50 %.1f ms p95 %.1f ms, utility at first upcall %.2f,"
                                + " blocks received %d, used %d, over-push %.2f, rests converged to full quality %d"
                                + " (p50 %.0f ms, max %.0f ms)%n",
                        m.registrations(), m.hitRate(), m.preemptedFraction(), m.meanLatencyMillis(),
                        m.latencyMillis(50), m.latencyMillis(95), m.meanUtilityAtFirstUpcall(), m.blocksReceived(),
                        m.blocksUsed(), m.overPushFraction(), m.convergenceHistogram().getTotalCount(),
                        m.convergenceMillis(50), m.convergenceMillis(100));
            }
            return 0;
        }
        GalleryServer gallery = started;
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gallery.close();
            stopped.countDown();
        }, "gallery-shutdown"));
        System.out.println("Khameleon gallery: open " + gallery.pageUri() + "  (Ctrl-C to stop)");
        stopped.await();
        return 0;
    }
}
