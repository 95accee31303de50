package dev.khameleon.simulator.tool;

import dev.khameleon.simulator.image.UtilityCommand;
import dev.khameleon.simulator.cli.ExperimentCommand;
import dev.khameleon.simulator.cli.SimulateCommand;
import dev.khameleon.simulator.cli.SystemsCommand;
import dev.khameleon.simulator.ParseErrors;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The simulator's command line: {@code java -jar khameleon-simulator/target/khameleon-simulator.jar <command>}.
 * A new command is a picocli class listed in {@code subcommands} below.
 */
@Command(name = "khameleon-simulator", mixinStandardHelpOptions = true, version = "khameleon-simulator 0.1.0",
        description = "Khameleon's trace-driven simulator, its experiments and the live replay that judges it.",
        subcommands = {SimulateCommand.class, ExperimentCommand.class, UtilityCommand.class,
                dev.khameleon.simulator.predict.ForecastCommand.class, dev.khameleon.simulator.live.LiveCommand.class, SystemsCommand.class,
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
        return toolCommandLine(new Cli());
    }

    /**
     * A command line over {@code root}, a picocli command with subcommands, that reports bad input as
     * {@link #run} describes, each message starting with the command as typed
     * ({@code khameleon-simulator simulate: …}). The load-test tool's root shares it.
     */
    public static CommandLine toolCommandLine(Object root) {
        return new CommandLine(root)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(new ParseErrors())
                .setExecutionExceptionHandler(Cli::reportBadInput);
    }

    private static int reportBadInput(Exception e, CommandLine command, CommandLine.ParseResult parsed)
            throws Exception {
        String typed = command.getCommandSpec().qualifiedName(" ");
        if (e instanceof IllegalArgumentException) {
            command.getErr().println(typed + ": " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        if (e instanceof UncheckedIOException io) {
            command.getErr().println(typed + ": " + io.getMessage() + ": " + io.getCause());
            return CommandLine.ExitCode.SOFTWARE;
        }
        throw e;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
