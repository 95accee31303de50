package dev.khameleon.simulator;

import dev.khameleon.simulator.tool.Cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every command of the simulator answers {@code --help} with its usage and exit status 0, running nothing. */
public class ToolHelpTest {

    /** The root command and each of its subcommands, as they are typed. */
    static Stream<String> commands() {
        return commandsOf(Cli.commandLine());
    }

    /** The root command ({@code ""}) and each subcommand of {@code cli}, as they are typed. */
    public static Stream<String> commandsOf(CommandLine cli) {
        List<String> names = new ArrayList<>(List.of(""));
        names.addAll(cli.getSubcommands().keySet());
        return names.stream();
    }

    /**
     * Asserts that {@code tool name --help} exits 0 and prints, on standard output only, a usage
     * whose first line names the command as typed.
     */
    public static void assertHelp(Supplier<CommandLine> tool, String name) {
        CommandLine cli = tool.get();
        CommandRun r = name.isEmpty() ? CommandRun.of(cli, "--help") : CommandRun.ofCommand(cli, name, "--help");
        assertEquals(0, r.status(), r::err);
        String usage = "Usage: " + cli.getCommandName() + (name.isEmpty() ? "" : " " + name);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(usage)),
                () -> "expected a line '" + usage + "…', got: " + r.out());
        assertEquals("", r.err());
    }

    @ParameterizedTest(name = "khameleon-simulator {0} --help")
    @MethodSource("commands")
    void everyCommand_helpPrintsItsUsageAndExitsZero(String name) {
        assertHelp(Cli::commandLine, name);
    }

    @Test
    void theCommandListIsComplete() {
        assertEquals(List.of("", "simulate", "experiment", "utility", "forecast", "live", "systems", "help"), commands().toList());
    }
}
