package dev.khameleon.examples.crossfilter;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The crossfilter example's command line. {@code evaluate} loads the flights table (resampled to
 * {@code --rows}) into DuckDB or a throw-away PostgreSQL cluster, measures query latencies and
 * the progressive tiles' utility, replays the benchmark's recorded sessions and prints Markdown
 * tables.
 */
@Command(name = "khameleon-crossfilter", mixinStandardHelpOptions = true,
        description = "Linked histograms over the flights data on a real database.",
        subcommands = CrossfilterMain.Evaluate.class)
public final class CrossfilterMain implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line; exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new CrossfilterMain()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(System.out);
        return 0;
    }

    /** Which database holds the table. */
    enum Backend { duckdb, postgresql }

    @Command(name = "evaluate", mixinStandardHelpOptions = true,
            description = "Replay every recorded session against measured query latencies; print Markdown tables.")
    static final class Evaluate implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

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

        @Option(names = "--concurrency", description = "queries the backend runs at once in the replay"
                + " (default: the backend's, 4 for DuckDB, 15 for PostgreSQL)")
        Integer concurrency;

        @Option(names = "--query-events", description = "brush events whose 5 histogram queries are timed (default: ${DEFAULT-VALUE})")
        int queryEvents = 100;

        @Option(names = "--tiles", description = "view activations whose tile (5 slice queries) is timed (default: ${DEFAULT-VALUE})")
        int tiles = 30;

        @Option(names = "--utility-states", description = "brush states the utility is averaged over (default: ${DEFAULT-VALUE})")
        int utilityStates = 300;

        @Option(names = "--block-size", description = "bytes per block of a tile (default: ${DEFAULT-VALUE})")
        int blockSize = TileEncoder.DEFAULT_BLOCK_SIZE;

        @Option(names = "--predict-top", description = "tiles of the most likely next views prefetched at a pause"
                + " (default: ${DEFAULT-VALUE})")
        int predictTop = 1;

        @Option(names = "--pause-ms", description = "time without a brush event after which the predicted tiles are"
                + " requested (default: ${DEFAULT-VALUE})")
        long pauseMs = 100;

        @Option(names = "--pg-bin", paramLabel = "DIR", description = "PostgreSQL server binaries (default: ${DEFAULT-VALUE})")
        Path pgBin = PostgresCluster.DEFAULT_BIN;

        @Override
        public Integer call() throws Exception {
            for (String[] check : new String[][] {{"--rows", String.valueOf(rows)}, {"--query-events",
                    String.valueOf(queryEvents)}, {"--tiles", String.valueOf(tiles)}, {"--utility-states",
                    String.valueOf(utilityStates)}}) {
                if (Integer.parseInt(check[1]) < 1) {
                    throw new CommandLine.ParameterException(spec.commandLine(), check[0] + " must be >= 1, was "
                            + check[1]);
                }
            }
            if (pauseMs < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--pause-ms must be >= 0, was " + pauseMs);
            }
            FlightsTable table = FlightsTable.read(data.resolve("datasets/flights/flights-10k.csv"));
            List<Workflow> workflows = Workflows.readAll(data.resolve("crossfilter/flights/workflows"));
            int[] sample = table.sample(rows, seed);
            PostgresCluster cluster = null;
            TileBackend db = null;
            try {
                if (backend == Backend.duckdb) {
                    db = TileBackend.duckDb(table, sample, 1);
                } else {
                    cluster = PostgresCluster.start(pgBin);
                    db = TileBackend.postgres(cluster.jdbcUrl(), PostgresCluster.USER, table, sample, 1);
                }
                int c = concurrency != null ? concurrency : db.defaultConcurrency();
                if (c < 1) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--concurrency must be >= 1, was " + c);
                }
                new Evaluation(db, workflows, new Evaluation.Settings(queryEvents, tiles, utilityStates, c,
                        blockSize, seed, predictTop, pauseMs), System.out).run();
            } finally {
                if (db != null) {
                    db.close();
                }
                if (cluster != null) {
                    cluster.close();
                }
            }
            return 0;
        }
    }
}
