package dev.khameleon.bench;

import dev.khameleon.bench.image.UtilityCommand;
import dev.khameleon.bench.sim.cli.ExperimentCommand;
import dev.khameleon.bench.sim.cli.SimulateCommand;
import dev.khameleon.bench.store.StoreBench;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The bench command line: {@code java -jar khameleon-bench/target/khameleon-bench.jar <subcommand>}.
 * Other modules add a subcommand by listing its picocli class in {@code subcommands} below.
 */
@Command(name = "khameleon-bench", mixinStandardHelpOptions = true, version = "khameleon-bench 0.1.0",
        description = "Khameleon simulator and evaluation harness.",
        subcommands = {SimulateCommand.class, ExperimentCommand.class, UtilityCommand.class, StoreBench.class,
                dev.khameleon.bench.predict.ForecastCommand.class, dev.khameleon.bench.fleet.FleetCommand.class,
                dev.khameleon.bench.live.LiveCommand.class,
                CommandLine.HelpCommand.class})
public final class Cli implements Runnable {

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command line and returns its exit status (for tests): 0 on success, 2 for a bad
     * option or input (an {@link IllegalArgumentException}, reported as one line without a stack
     * trace, since it is the user's to fix; a parse error, reported by {@link ParseErrors} in at
     * most five lines rather than the whole usage), 1 for a file that cannot be read or written (an
     * {@link UncheckedIOException}, also one line, with its cause) and for any other failure.
     */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** A new command line for every subcommand, configured as {@link #run} uses it. */
    public static CommandLine commandLine() {
        return new CommandLine(new Cli())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(new ParseErrors())
                .setExecutionExceptionHandler(Cli::reportBadInput);
    }

    private static int reportBadInput(Exception e, CommandLine command, CommandLine.ParseResult parsed)
            throws Exception {
        if (e instanceof IllegalArgumentException) {
            command.getErr().println("khameleon-bench " + command.getCommandName() + ": " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        if (e instanceof UncheckedIOException io) {
            command.getErr().println("khameleon-bench " + command.getCommandName() + ": " + io.getMessage() + ": "
                    + io.getCause());
            return CommandLine.ExitCode.SOFTWARE;
        }
        throw e;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
