package dev.khameleon.microbench;

import java.io.PrintStream;

/**
 * The entry point of {@code benchmarks.jar}: with arguments it is JMH's own command line
 * ({@code org.openjdk.jmh.Main}); without any, or with {@code --help}, it prints how to run the
 * documented benchmarks and exits 0 at once, because JMH alone would run every benchmark over
 * its whole default grid, which takes many hours.
 */
public final class BenchmarksMain {
    /** What a run without arguments prints. */
    static final String USAGE = """
            Usage: java -jar khameleon-microbench/target/benchmarks.jar [JMH options] [BENCHMARK-REGEX]
            Runs the JMH benchmarks. Without arguments it prints this text and runs nothing: the
            default grid of every benchmark takes many hours. Choose a subset, for example:

              java -jar khameleon-microbench/target/benchmarks.jar SchedulerBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s \\
                  -p implementation=FAST,REFERENCE -p requests=10000 -p cacheBlocks=5000 \\
                  -p blocksPerRequest=10 -p explicitFraction=1

              -l    list the benchmarks        -lp   list them with their parameters
              -h    every JMH option

            The commands behind each published figure are in docs/benchmarks.md.
            """;

    private BenchmarksMain() {
    }

    /** Prints the usage for no arguments or {@code --help}; otherwise hands over to JMH. */
    public static void main(String[] args) throws Exception {
        if (!printUsageIfAsked(args, System.out)) {
            org.openjdk.jmh.Main.main(args);
        }
    }

    /** Prints {@link #USAGE} to {@code out} and returns true when {@code args} ask for nothing to run. */
    static boolean printUsageIfAsked(String[] args, PrintStream out) {
        if (args.length == 0 || (args.length == 1 && args[0].equals("--help"))) {
            out.print(USAGE);
            return true;
        }
        return false;
    }
}
