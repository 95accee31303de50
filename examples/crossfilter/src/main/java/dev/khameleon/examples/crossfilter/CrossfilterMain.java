package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.scheduler.Selection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The crossfilter example's command line. {@code evaluate} loads the table of a views
 * configuration ({@code --views FILE}, default the flights views; resampled to {@code --rows})
 * into DuckDB or a throw-away PostgreSQL cluster, measures query latencies and
 * the progressive tiles' utility, replays the benchmark's recorded sessions (Khameleon's push on a
 * modelled link among the systems; on another table by view position, {@link Workflow#onto}) and
 * prints Markdown tables. {@code serve} serves the tiles live
 * over a Khameleon WebSocket ({@link CrossfilterServer}).
 */
@Command(name = "khameleon-crossfilter", mixinStandardHelpOptions = true,
        description = "Linked histograms over the flights data on a real database.",
        subcommands = {CrossfilterMain.Evaluate.class, CrossfilterMain.Serve.class})
public final class CrossfilterMain implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line; exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line as {@link #main} runs it: a bad option, path or port is one line on standard
     * error naming it, then where to find the options, with exit status 2; never the whole usage or a
     * stack trace.
     */
    static CommandLine commandLine() {
        return new CommandLine(new CrossfilterMain()).setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName(" ") + ": " + e.getMessage());
            cmd.getErr().println("Run '" + cmd.getCommandSpec().qualifiedName(" ") + " --help' for all options.");
            return CommandLine.ExitCode.USAGE;
        });
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(System.out);
        return 0;
    }

    /**
     * Default of {@code evaluate --lead-ms}: one second from the page's connect to the first
     * brush, less than the Keystroke-Level Model's time for one pointing movement (1.1 s), let
     * alone looking at six charts first.
     */
    static final double DEFAULT_LEAD_MS = 1000;

    /** Which database holds the table. */
    enum Backend { duckdb, postgresql }

    @Command(name = "evaluate", mixinStandardHelpOptions = true,
            description = "Replay every recorded session against measured query latencies; print Markdown tables.")
    static final class Evaluate implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Mixin
        TableOptions source;

        @Option(names = "--concurrency", description = "queries the backend runs at once in the replay"
                + " (default: the backend's, 4 for DuckDB, 15 for PostgreSQL)")
        Integer concurrency;

        @Option(names = "--query-events", description = "brush events whose 5 histogram queries are timed (default: ${DEFAULT-VALUE})")
        int queryEvents = 100;

        @Option(names = "--tiles", description = "view activations whose tile (5 slice queries) is timed (default: ${DEFAULT-VALUE})")
        int tiles = 30;

        @Option(names = "--utility-states", description = "brush states the utility is averaged over (default: ${DEFAULT-VALUE})")
        int utilityStates = 300;

        @Option(names = "--block-size", description = "bytes per block of a tile (default: 12288, or the largest"
                + " first block of the views rounded up to a whole KiB)")
        Integer blockSize;

        @Option(names = "--predict-top", description = "tiles of the most likely next views prefetched at a pause"
                + " (default: ${DEFAULT-VALUE})")
        int predictTop = 1;

        @Option(names = "--pause-ms", description = "time without a brush event after which the predicted tiles are"
                + " requested (default: ${DEFAULT-VALUE})")
        long pauseMs = 100;

        @Option(names = "--bandwidth-mbps", description = "Khameleon's link in megabits per second"
                + " (default: ${DEFAULT-VALUE}, i.e. 5.625 MB/s)")
        double bandwidthMbps = Evaluation.Push.defaults().bandwidthMbps();

        @Option(names = "--rtt-ms", description = "Khameleon's round-trip time (default: ${DEFAULT-VALUE})")
        double rttMs = Evaluation.Push.defaults().rttMs();

        @Option(names = "--cache-mb", description = "Khameleon's client cache in MB of 10^6 bytes (default: ${DEFAULT-VALUE})")
        double cacheMb = Evaluation.Push.defaults().cacheMb();

        @Option(names = "--stay", description = "predicted Khameleon: probability that the current view stays active;"
                + " the rest follows the Markov prior (default: ${DEFAULT-VALUE})")
        double stay = Evaluation.Push.defaults().stay();

        @Option(names = "--selection", description = "Khameleon's scheduler rule, SAMPLE or MAX_GAIN (default:"
                + " ${DEFAULT-VALUE})")
        Selection selection = Evaluation.Push.defaults().selection();

        @Option(names = "--lead-ms", description = "time from a session's connect (its page loading) to its first"
                + " recorded brush, which the recordings do not hold (default: ${DEFAULT-VALUE})")
        double leadMs = DEFAULT_LEAD_MS;

        @Option(names = "--cold-start", description = "sessions connect at their first brush, no tile is computed at"
                + " server start-up and the predicted push's first plan is uniform (ignores --lead-ms)")
        boolean coldStart;

        @Override
        public Integer call() throws Exception {
            for (String[] check : new String[][] {{"--rows", String.valueOf(source.rows)}, {"--query-events",
                    String.valueOf(queryEvents)}, {"--tiles", String.valueOf(tiles)}, {"--utility-states",
                    String.valueOf(utilityStates)}}) {
                if (Integer.parseInt(check[1]) < 1) {
                    throw new CommandLine.ParameterException(spec.commandLine(), check[0] + " must be >= 1, was "
                            + check[1]);
                }
            }
            if (!(bandwidthMbps > 0) || Double.isInfinite(bandwidthMbps)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--bandwidth-mbps must be > 0, was "
                        + bandwidthMbps);
            }
            if (!(rttMs >= 0) || Double.isInfinite(rttMs)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rtt-ms must be >= 0, was " + rttMs);
            }

            if (!(stay >= 0 && stay <= 1)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--stay must be in [0, 1], was " + stay);
            }
            if (!(leadMs >= 0) || Double.isInfinite(leadMs)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--lead-ms must be >= 0, was " + leadMs);
            }
            if (pauseMs < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--pause-ms must be >= 0, was " + pauseMs);
            }
            Views views = source.views(spec.commandLine());
            if (views.isResolved()) {
                checkCache(source.blockSize(spec.commandLine(), views, blockSize));
            }
            source.check(spec.commandLine(), views);
            List<Workflow> recorded = Workflows.readAll(source.data.resolve("crossfilter/flights/workflows"));
            try (Database database = source.open(1, views)) {
                TileBackend db = database.backend;
                int size = source.blockSize(spec.commandLine(), db.views(), blockSize);
                checkCache(size);
                List<Workflow> workflows = onto(recorded, db.views());
                int c = concurrency != null ? concurrency : db.defaultConcurrency();
                if (c < 1) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--concurrency must be >= 1, was " + c);
                }
                new Evaluation(db, workflows, new Evaluation.Settings(queryEvents, tiles, utilityStates, c,
                        size, source.seed, predictTop, pauseMs, new Evaluation.Push(bandwidthMbps, rttMs, cacheMb, stay,
                        selection), leadMs, coldStart), System.out).run();
            }
            return 0;
        }

        private void checkCache(int blockBytes) {
            if (!(cacheMb * 1e6 >= blockBytes) || Double.isInfinite(cacheMb)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--cache-mb must hold at least one block"
                        + " of " + blockBytes + " bytes, was " + cacheMb);
            }
        }
    }

    /**
     * The recorded flights sessions on {@code views}: themselves for the flights views, else each
     * replayed by view position ({@link Workflow#onto}), sessions left without events dropped.
     */
    static List<Workflow> onto(List<Workflow> recorded, Views views) {
        if (views == Views.flights()) {
            return recorded;
        }
        return recorded.stream().map(w -> w.onto(views)).filter(w -> !w.events().isEmpty()).toList();
    }

    /** The options naming the table, its views and the database that holds it, shared by the subcommands. */
    static final class TableOptions {
        @Option(names = "--views", paramLabel = "FILE", description = "the views configuration, JSON (default: the"
                + " six flights views)")
        Path viewsFile;

        @Option(names = "--backend", description = "duckdb or postgresql (default: ${DEFAULT-VALUE})")
        Backend backend = Backend.duckdb;

        @Option(names = "--rows", description = "rows of the flights table, resampled with replacement from the"
                + " 10k rows unless equal to their number (default: ${DEFAULT-VALUE})")
        int rows = 1_000_000;

        @Option(names = "--seed", description = "seed of the resampling and of every sample drawn (default: ${DEFAULT-VALUE})")
        long seed = 42;

        @Option(names = "--data", paramLabel = "DIR", description = "the shared data folder (default: the system"
                + " property khameleon.shared.data, else ../shared/data)")
        Path data = Path.of(System.getProperty("khameleon.shared.data", "../shared/data"));

        @Option(names = "--pg-bin", paramLabel = "DIR", description = "PostgreSQL server binaries (default: ${DEFAULT-VALUE})")
        Path pgBin = PostgresCluster.DEFAULT_BIN;

        /**
         * The configuration {@code --views} names, or the flights views without it.
         *
         * @throws CommandLine.ParameterException naming {@code --views}, the file and the field
         */
        Views views(CommandLine cl) {
            if (viewsFile == null) {
                return Views.flights();
            }
            Views views;
            try {
                views = Views.read(viewsFile);
            } catch (IOException e) {
                throw new CommandLine.ParameterException(cl, "--views " + viewsFile + ": cannot be read ("
                        + e.getClass().getSimpleName() + ")");
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, "--views " + e.getMessage());
            }
            if (views.source().isEmpty()) {
                throw new CommandLine.ParameterException(cl, "--views " + viewsFile + ": source: required, the CSV"
                        + " the table is read from");
            }
            return views;
        }

        /**
         * The block size of {@code views}' tiles: {@code blockSize}, or without it the one that fits
         * ({@link TileEncoder#fittingBlockSize}).
         *
         * @throws CommandLine.ParameterException naming {@code --block-size}, the view and the bytes
         *     its first block needs, when {@code blockSize} is too small
         */
        int blockSize(CommandLine cl, Views views, Integer blockSize) {
            if (blockSize == null) {
                return TileEncoder.fittingBlockSize(views);
            }
            try {
                return TileEncoder.withBlockSize(views, blockSize).blockSize();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, "--block-size: " + e.getMessage());
            }
        }

        /**
         * Checks, before anything is loaded, that the data folder holds the table's CSV and the
         * recorded sessions and, for PostgreSQL, that its binaries are there and the views are
         * read by the flights reader.
         *
         * @throws CommandLine.ParameterException naming the option and the path
         */
        void check(CommandLine cl, Views views) {
            Views.Source source = views.source().orElseThrow();
            if (Path.of(source.csv()).isAbsolute() && !java.nio.file.Files.exists(source.path(data))) {
                throw new CommandLine.ParameterException(cl, "--views " + viewsFile + ": source.csv " + source.csv()
                        + " does not exist");
            }
            for (String part : List.of(source.csv(), "crossfilter/flights/workflows")) {
                if (!java.nio.file.Files.exists(data.resolve(part))) {
                    throw new CommandLine.ParameterException(cl, "--data " + data + ": no " + part
                            + " in it (the shared data folder)");
                }
            }
            if (backend == Backend.postgresql && source.reader() != Views.Reader.FLIGHTS) {
                throw new CommandLine.ParameterException(cl, "--backend postgresql: the table of --views " + viewsFile
                        + " is read by DuckDB's CSV reader (source.reader csv); use --backend duckdb");
            }
            if (backend == Backend.postgresql && !PostgresCluster.available(pgBin)) {
                throw new CommandLine.ParameterException(cl, "--pg-bin " + pgBin + ": PostgreSQL binaries (initdb,"
                        + " pg_ctl) not found there (Debian package postgresql)");
            }
        }

        /**
         * Reads the table of {@code views}, resamples it to {@code rows} and loads it into the chosen
         * database with {@code connections} connections.
         */
        Database open(int connections, Views views) throws Exception {
            Views.Source source = views.source().orElseThrow();
            if (source.reader() == Views.Reader.CSV) {
                return new Database(null, TileBackend.duckDbCsv(views, source.path(data), rows, seed, connections));
            }
            FlightsTable table = FlightsTable.read(source.path(data));
            return Database.open(backend, views, table, table.sample(rows, seed), pgBin, connections);
        }
    }

    /** A loaded backend and the throw-away PostgreSQL cluster under it, if any; closes both. */
    private static final class Database implements AutoCloseable {
        final PostgresCluster cluster;
        final TileBackend backend;

        private Database(PostgresCluster cluster, TileBackend backend) {
            this.cluster = cluster;
            this.backend = backend;
        }

        static Database open(Backend kind, Views views, FlightsTable table, int[] sample, Path pgBin,
                int connections) throws Exception {
            if (kind == Backend.duckdb) {
                return new Database(null, TileBackend.duckDb(views, table, sample, connections));
            }
            PostgresCluster cluster = PostgresCluster.start(pgBin);
            try {
                return new Database(cluster, TileBackend.postgres(cluster.jdbcUrl(), PostgresCluster.USER, views,
                        table, sample, connections));
            } catch (SQLException | RuntimeException e) {
                cluster.close();
                throw e;
            }
        }

        @Override
        public void close() throws SQLException, IOException {
            try {
                backend.close();
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = "Serve the views' progressive tiles over a Khameleon WebSocket on 127.0.0.1 until"
                    + " stopped.")
    static final class Serve implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Mixin
        TableOptions source;

        @Option(names = "--port", description = "the page's port on 127.0.0.1, 0 for any free one; the WebSocket"
                + " takes a free port (default: ${DEFAULT-VALUE})")
        int port = 8080;

        @Option(names = "--block-size", description = "bytes per block of a tile (default: 12288, or the largest"
                + " first block of the views rounded up to a whole KiB)")
        Integer blockSize;

        @Option(names = "--max-keys", description = "filtered tile keys the key table remembers (default:"
                + " ${DEFAULT-VALUE})")
        int maxKeys = CrossfilterServer.DEFAULT_MAX_KEYS;

        @Option(names = "--utility-tiles", description = "recorded view activations whose tiles the utility is"
                + " measured on at start-up (default: ${DEFAULT-VALUE})")
        int utilityTiles = ServingModel.DEFAULT_UTILITY_TILES;

        @Option(names = "--utility-states", description = "recorded brush states the utility is averaged over"
                + " (default: ${DEFAULT-VALUE})")
        int utilityStates = ServingModel.DEFAULT_UTILITY_STATES;

        @Option(names = "--prior-weight", description = "weight of the view-transition prior against the pointer"
                + " forecast, in [0, 1] (default: ${DEFAULT-VALUE})")
        double priorWeight = ServingModel.DEFAULT_PRIOR_WEIGHT;

        @Override
        public Integer call() throws Exception {
            if (utilityTiles < 1 || utilityStates < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--utility-tiles and --utility-states"
                        + " must be >= 1, were " + utilityTiles + " and " + utilityStates);
            }
            if (!(priorWeight >= 0 && priorWeight <= 1)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--prior-weight must be in [0, 1], was "
                        + priorWeight);
            }
            if (source.rows < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rows must be >= 1, was " + source.rows);
            }
            if (port < 0 || port > 65535) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--port must be in [0, 65535], was "
                        + port);
            }
            if (maxKeys < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--max-keys must be >= 1, was " + maxKeys);
            }
            Views views = source.views(spec.commandLine());
            if (views.isResolved()) {
                source.blockSize(spec.commandLine(), views, blockSize);
            }
            source.check(spec.commandLine(), views);
            checkPortFree(port);
            CountDownLatch stopping = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            // The JVM halts when its hooks return: this one waits for the server and database to close.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopping.countDown();
                try {
                    closed.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            List<Workflow> recorded = Workflows.readAll(source.data.resolve("crossfilter/flights/workflows"));
            // As many connections as the cache runs queries at once, so that its slots are real.
            int connections = source.backend == Backend.duckdb ? 4 : 15;
            try (Database database = source.open(connections, views);
                    TileCache cache = TileCache.create(database.backend)) {
                Views loaded = database.backend.views();
                TileEncoder encoder = TileEncoder.withBlockSize(loaded, source.blockSize(spec.commandLine(), loaded,
                        blockSize));
                List<Workflow> workflows = onto(recorded, loaded);
                try (CrossfilterServer server = CrossfilterServer.start(cache, encoder,
                        learn(workflows, cache, encoder), workflows, port, maxKeys)) {
                    spec.commandLine().getOut().println("serving " + source.rows + " rows of " + loaded.table() + " ("
                            + source.backend + "), blocks of " + encoder.blockSize() + " bytes: open "
                            + server.pageUri() + " (WebSocket " + server.webSocketUri() + "); stop with Ctrl-C");
                    spec.commandLine().getOut().flush();
                    stopping.await();
                }
            } finally {
                closed.countDown();
            }
            return 0;
        }

        /** Refuses a page port another program holds, before the table is loaded (which takes seconds). */
        private void checkPortFree(int pagePort) {
            if (pagePort == 0) {
                return;
            }
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), pagePort));
            } catch (java.io.IOException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--port " + pagePort
                        + ": already in use on 127.0.0.1 (" + e.getMessage() + "); choose another, or 0 for any free one");
            }
        }

        /**
         * Computes the tiles of the unfiltered state (every session's first push) before the page
         * is served, then the prior and the utility measured on this table, with the chosen prior weight.
         */
        private ServingModel learn(List<Workflow> workflows, TileCache cache, TileEncoder encoder) throws Exception {
            long t0 = System.nanoTime();
            CrossfilterServer.startupTiles(cache).get(600, TimeUnit.SECONDS);
            spec.commandLine().getOut().printf(java.util.Locale.ROOT, "computed the %d tiles of the unfiltered state"
                    + " in %.1f s%n", cache.views().size(), (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            ServingModel m = ServingModel.learn(workflows, cache, encoder, utilityTiles, utilityStates, source.seed,
                    600);
            spec.commandLine().getOut().printf(java.util.Locale.ROOT, "measured the tile utility over %d brush states"
                    + " in %.1f s: U(1/10 of the blocks) = %.3f%n", m.utility().states(), (System.nanoTime() - t0)
                    / 1e9, m.utility().function().utility(0.1));
            return new ServingModel(m.prior(), priorWeight, m.utility());
        }
    }
}
