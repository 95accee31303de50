package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.image.MeasuredUtility;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The running gallery: its corpus, the web site, the Khameleon WebSocket endpoint and a
 * {@link LinkEmulator} in front of both, which emulates the configured slow link (so the page, the
 * plain request/response fetches and the Khameleon push all cross the same link), bounds
 * connections ({@link #MAX_CONNECTIONS}, {@link #IDLE_TIMEOUT}) and lets only the gallery's own
 * page open the WebSocket ({@link OriginPolicy}).
 *
 * <p>Everything listens on the loopback address only. {@link #close()} stops it all;
 * thread-safe.
 */
public final class GalleryServer implements AutoCloseable {
    /** The Khameleon application's name and WebSocket path. */
    public static final String APPLICATION = "gallery";
    private static final Logger log = LoggerFactory.getLogger(GalleryServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Config config;
    private final Corpus corpus;
    private final KhameleonServer khameleon;
    private final WebSite site;
    private final List<AutoCloseable> links = new ArrayList<>();
    private boolean closed;
    private final int pagePort;
    private final int wsPort;

    /** Connections each of the gallery's two listeners (page, WebSocket) proxies at once. */
    static final int MAX_CONNECTIONS = 64;
    /** A connection with no traffic either way for this long is closed. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The gallery's settings; {@link #builder()} validates each as it is set.
     *
     * @param port             page port (0 for any free one)
     * @param rows             mosaic rows
     * @param cols             mosaic columns
     * @param images           photographs to cut tiles from, or null for synthetic pictures
     * @param seed             seed of the pictures (synthetic or crops)
     * @param blockSize        bytes per block
     * @param cacheBlocks      the browser's ring size in blocks
     * @param linkBytesPerSecond emulated link rate, 0 for unlimited
     * @param latencyMillis    emulated round-trip time, 0 for none
     * @param allowedOrigins   page origins allowed besides the gallery's own ({@link OriginPolicy})
     * @param corpusCache      folder of built corpora ({@link CorpusCache}), or null to build every time
     */
    public record Config(int port, int rows, int cols, Path images, long seed, int blockSize, int cacheBlocks,
                         double linkBytesPerSecond, long latencyMillis, List<String> allowedOrigins,
                         Path corpusCache) {
        /** Thumbnail size in the mosaic, pixels. */
        static final int THUMB_WIDTH = 24;
        static final int THUMB_HEIGHT = 18;
        /** Full picture size, pixels. */
        static final int FULL_WIDTH = 480;
        static final int FULL_HEIGHT = 360;
    }

    private GalleryServer(Config config, ServerSocket pageListener, ServerSocket wsListener, BuildProgress progress)
            throws IOException {
        this.config = config;
        OriginPolicy origins = new OriginPolicy(pageListener.getLocalPort(), config.allowedOrigins());
        long started = System.nanoTime();
        CorpusCache.Result made = corpus(config, progress);
        this.corpus = made.corpus();
        log.info("corpus: {} pictures, {} MB of blocks, {} in {} s; measured utility {}", corpus.requestCount(),
                String.format(Locale.ROOT, "%.1f", corpus.totalBytes() / 1e6),
                made.source() == CorpusCache.Source.LOADED ? "loaded from " + made.file() : "built",
                String.format(Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9), corpus.utility());

        GridLayout grid = new GridLayout(config.rows(), config.cols(), 0, 0, Config.THUMB_WIDTH, Config.THUMB_HEIGHT);
        Application application = Application.builder(APPLICATION)
                .path("/" + APPLICATION)
                .blockSource(BlockSource.inMemory(config.blockSize(), corpus.blocks()))
                .predictor(GaussianGridPredictor.builder(grid).build())
                .utility(corpus.utility().toUtilityFunction())
                .build();
        // Browsers reach the server only through the proxy below, which checks Host and Origin
        // against the gallery's own page; the server's own same-origin check would compare the
        // page's origin with the proxy's port and refuse every browser.
        KhameleonServer.Builder server = KhameleonServer.builder().host("127.0.0.1").port(0).allowAnyOrigin(true)
                .application(application);
        if (config.linkBytesPerSecond() > 0) {
            // The server need not probe beyond the emulated link: it cannot be faster.
            server.maxBytesPerSecond(config.linkBytesPerSecond());
        }
        this.khameleon = server.build().start();
        WebSite startedSite = null;
        try {
            startedSite = new WebSite(0, corpus, this::info, origins);
            // Both listeners always go through the proxy, a plain one when no link is emulated: it
            // bounds connections and idleness, and checks the WebSocket's Host and Origin.
            LinkEmulator.Link link = new LinkEmulator.Link(config.linkBytesPerSecond(), config.latencyMillis() / 2);
            InetAddress loopback = InetAddress.getLoopbackAddress();
            links.add(new LinkEmulator(pageListener, new InetSocketAddress(loopback, startedSite.port()), link,
                    MAX_CONNECTIONS, IDLE_TIMEOUT, null));
            links.add(new LinkEmulator(wsListener, new InetSocketAddress(loopback, khameleon.port()), link,
                    MAX_CONNECTIONS, IDLE_TIMEOUT, origins));
        } catch (RuntimeException e) {
            closeLinks();
            if (startedSite != null) {
                startedSite.close();
            }
            khameleon.close();
            throw e;
        }
        this.site = startedSite;
        this.pagePort = pageListener.getLocalPort();
        this.wsPort = wsListener.getLocalPort();
    }

    /**
     * The corpus of {@code config}: from its cache folder if that holds it, else built (and then
     * stored there).
     */
    static CorpusCache.Result corpus(Config config, BuildProgress progress) {
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(config.blockSize()).build();
        Supplier<Corpus> build = () -> {
            if (config.images() != null) {
                progress.line("reading the photographs in " + config.images());
            }
            IntFunction<BufferedImage> pictures = config.images() == null
                    ? TileImages.synthetic(Config.FULL_WIDTH, Config.FULL_HEIGHT, config.seed())
                    : TileImages.photoCrops(config.images(), Config.FULL_WIDTH, Config.FULL_HEIGHT, config.seed());
            return Corpus.build(config.rows(), config.cols(), Config.THUMB_WIDTH, Config.THUMB_HEIGHT,
                    Config.FULL_WIDTH, Config.FULL_HEIGHT, pictures, encoder, progress);
        };
        if (config.corpusCache() == null) {
            return new CorpusCache.Result(build.get(), CorpusCache.Source.BUILT, null);
        }
        CorpusCache cache = new CorpusCache(config.corpusCache());
        CorpusCache.Result result = cache.loadOrBuild(CorpusCache.key(corpusSettings(config, encoder)), build);
        if (result.source() == CorpusCache.Source.LOADED) {
            progress.line("corpus loaded from the cache " + result.file());
        }
        return result;
    }

    /** Everything besides the code that the corpus's bytes depend on, for its {@link CorpusCache} key. */
    static Map<String, String> corpusSettings(Config config, ProgressiveJpegEncoder encoder) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("tiles", config.rows() + "x" + config.cols());
        settings.put("thumbnail", Config.THUMB_WIDTH + "x" + Config.THUMB_HEIGHT);
        settings.put("picture", Config.FULL_WIDTH + "x" + Config.FULL_HEIGHT);
        settings.put("seed", Long.toString(config.seed()));
        settings.put("blockSize", Integer.toString(encoder.blockSize()));
        settings.put("quality", Float.toString(encoder.quality()));
        if (config.images() == null) {
            settings.put("pictures", "synthetic");
        } else {
            settings.put("pictures", "photo crops");
            // A photograph that changes changes its size or its modification time (as for make).
            for (Path file : TileImages.photoFiles(config.images())) {
                try {
                    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                    settings.put("photo " + file.getFileName(), a.size() + " bytes, modified "
                            + a.lastModifiedTime().toMillis());
                } catch (IOException e) {
                    throw new TileImages.BadImagesException("cannot read " + file + ": " + e.getMessage());
                }
            }
        }
        return settings;
    }

    /** A builder with the defaults of the command line, except that it keeps no corpus cache. */
    public static Builder builder() {
        return new Builder();
    }

    /** The page's address, e.g. {@code http://127.0.0.1:8080/}. */
    public URI pageUri() {
        return URI.create("http://127.0.0.1:" + pagePort + "/");
    }

    /** The address browsers open the Khameleon WebSocket at. */
    public URI webSocketUri() {
        return URI.create("ws://127.0.0.1:" + wsPort + "/" + APPLICATION);
    }

    /** The settings it runs with. */
    public Config config() {
        return config;
    }

    /** The measured utility curve the scheduler uses. */
    public MeasuredUtility utility() {
        return corpus.utility();
    }

    /** The Khameleon server (for its metrics). */
    public KhameleonServer khameleon() {
        return khameleon;
    }

    private String info() {
        ObjectNode o = JSON.createObjectNode();
        o.put("application", APPLICATION);
        o.put("wsPort", wsPort);
        o.put("wsPath", "/" + APPLICATION);
        o.put("rows", corpus.rows());
        o.put("cols", corpus.cols());
        o.put("requestCount", corpus.requestCount());
        o.put("thumbWidth", corpus.thumbWidth());
        o.put("thumbHeight", corpus.thumbHeight());
        o.put("fullWidth", corpus.fullWidth());
        o.put("fullHeight", corpus.fullHeight());
        o.put("blockSize", config.blockSize());
        o.put("cacheBlocks", config.cacheBlocks());
        o.put("linkBytesPerSecond", config.linkBytesPerSecond());
        o.put("latencyMs", config.latencyMillis());
        ObjectNode utility = o.putObject("utility");
        double[] f = corpus.utility().fractions();
        double[] u = corpus.utility().utilities();
        for (int i = 0; i < f.length; i++) {
            utility.withArray("fractions").add(f[i]);
            utility.withArray("utilities").add(u[i]);
        }
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the link emulators, the web site and the Khameleon server. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeLinks();
        site.close();
        khameleon.close();
    }

    private void closeLinks() {
        for (AutoCloseable link : links) {
            try {
                link.close();
            } catch (Exception e) {
                log.warn("closing the link emulator failed", e);
            }
        }
        links.clear();
    }

    /** Collects and validates {@link Config} settings; each setter names a bad value at once. */
    public static final class Builder {
        private int port = 8080;
        private int rows = 30;
        private int cols = 40;
        private Path images;
        private long seed = 42;
        private int blockSize = 4096;
        private int cacheBlocks = 5000;
        private double linkBytesPerSecond = 1.5e6;
        private long latencyMillis = 100;
        private List<String> allowedOrigins = List.of();
        private Path corpusCache;
        private BuildProgress progress = BuildProgress.silent();

        private Builder() {
        }

        /**
         * Keep built corpora in {@code dir} and load them from there on the next start with the
         * same settings ({@link CorpusCache}); null (the default) to build the corpus every time.
         * The command line's default is {@link CorpusCache#defaultDirectory()}.
         */
        public Builder corpusCache(Path dir) {
            this.corpusCache = dir;
            return this;
        }

        /** Where to report how far the corpus's build has got (default: nowhere). */
        public Builder progress(BuildProgress progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        /** The page's port on 127.0.0.1, 0 for any free one (default 8080). */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
            }
            this.port = port;
            return this;
        }

        /** The mosaic's size in tiles (default 30 × 40). */
        public Builder grid(int rows, int cols) {
            if (rows < 1 || cols < 1 || (long) rows * cols > 100_000) {
                throw new IllegalArgumentException("grid must have >= 1 row and column and at most 100000 tiles, was "
                        + rows + " x " + cols);
            }
            this.rows = rows;
            this.cols = cols;
            return this;
        }

        /** Cut the tiles from the photographs in {@code dir} instead of drawing synthetic pictures. */
        public Builder images(Path dir) {
            Objects.requireNonNull(dir, "images");
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("images must be a directory, was " + dir.toAbsolutePath());
            }
            this.images = dir;
            return this;
        }

        /** The seed of the pictures (default 42). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Bytes per block, in [512, 65536] (default 4096). */
        public Builder blockSize(int blockSize) {
            if (blockSize < 512 || blockSize > 65_536) {
                throw new IllegalArgumentException("blockSize must be in [512, 65536], was " + blockSize);
            }
            this.blockSize = blockSize;
            return this;
        }

        /** The browser's cache in blocks, in [1, 1000000] (default 5000). */
        public Builder cacheBlocks(int cacheBlocks) {
            if (cacheBlocks < 1 || cacheBlocks > 1_000_000) {
                throw new IllegalArgumentException("cacheBlocks must be in [1, 1000000], was " + cacheBlocks);
            }
            this.cacheBlocks = cacheBlocks;
            return this;
        }

        /** The emulated link's rate in bytes per second, 0 for unlimited (default 1.5 MB/s). */
        public Builder linkBytesPerSecond(double rate) {
            if (!(rate >= 0) || Double.isInfinite(rate)) {
                throw new IllegalArgumentException("link rate must be finite and >= 0 bytes/s, was " + rate);
            }
            this.linkBytesPerSecond = rate;
            return this;
        }

        /** The emulated round-trip time in milliseconds, 0 for none (default 100). */
        public Builder latencyMillis(long millis) {
            if (millis < 0 || millis > 60_000) {
                throw new IllegalArgumentException("latency must be in [0, 60000] ms, was " + millis);
            }
            this.latencyMillis = millis;
            return this;
        }

        /**
         * Page origins allowed to open the WebSocket besides the gallery's own, each
         * {@code http(s)://host[:port]}, or the single entry {@code *} for any (default none).
         *
         * @throws IllegalArgumentException naming an entry that is not such an origin
         */
        public Builder allowedOrigins(List<String> origins) {
            List<String> copy = List.copyOf(origins);
            new OriginPolicy(0, copy); // validates each entry now, not after the corpus is built
            this.allowedOrigins = copy;
            return this;
        }

        /**
         * Binds the ports, then builds the corpus and starts everything; a busy port is found
         * before the corpus is built.
         *
         * @throws java.net.BindException if the page port is in use (the message names it)
         * @throws IOException if a port cannot be bound for another reason
         * @throws IllegalArgumentException if a picture in the images folder cannot be used (the
         *     message names the file and what is wrong)
         */
        public GalleryServer start() throws IOException {
            return start(() -> { });
        }

        /**
         * As {@link #start()}, running {@code whenBound} once both ports are bound and before the
         * corpus is built: the place to announce a build that takes a while, which a busy port
         * never reaches.
         */
        public GalleryServer start(Runnable whenBound) throws IOException {
            Config config = new Config(port, rows, cols, images, seed, blockSize, cacheBlocks,
                    linkBytesPerSecond, latencyMillis, allowedOrigins, corpusCache);
            ServerSocket pageListener = LinkEmulator.listen(port);
            ServerSocket wsListener = null;
            try {
                wsListener = LinkEmulator.listen(0);
                whenBound.run();
                return new GalleryServer(config, pageListener, wsListener, progress);
            } catch (IOException | RuntimeException e) {
                pageListener.close();
                if (wsListener != null) {
                    wsListener.close();
                }
                throw e;
            }
        }
    }
}
