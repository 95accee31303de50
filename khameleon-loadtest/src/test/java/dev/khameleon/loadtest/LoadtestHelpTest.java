package dev.khameleon.loadtest;

import dev.khameleon.simulator.CommandRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.ToolHelpTest;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every command of the load-test tool answers {@code --help} with its usage and exit status 0, running no load. */
class LoadtestHelpTest {

    static Stream<String> commands() {
        return ToolHelpTest.commandsOf(Cli.commandLine());
    }

    @ParameterizedTest(name = "khameleon-loadtest {0} --help")
    @MethodSource("commands")
    void everyCommand_helpPrintsItsUsageAndExitsZero(String name) {
        ToolHelpTest.assertHelp(Cli::commandLine, name);
    }

    @Test
    void theCommandListIsComplete() {
        assertEquals(List.of("", "soak", "server-load", "proxy-overhead", "fleet", "store", "footprint", "help"),
                commands().toList());
    }

    /** Runs {@code khameleon-loadtest args}; returns {exit status, stdout, stderr}. */
    private static String[] execute(String... args) {
        return CommandRun.of(Cli.commandLine(), args).asArray();
    }

    @Test
    void misspelledOptionOrCommand_isNamedWithItsNearestMatch_status2() {
        String[] r = execute("fleet", "--nodes-cores", "4");
        assertEquals("2", r[0], r[2]);
        List<String> lines = r[2].lines().toList();
        assertEquals("khameleon-loadtest fleet: --nodes-cores: unknown option", lines.get(0));
        assertTrue(lines.get(1).startsWith("  --node-cores="), r[2]);
        assertEquals("Run 'khameleon-loadtest fleet --help' for all options.", lines.get(lines.size() - 1));
        r = execute("sok");
        assertEquals("2", r[0], r[2]);
        assertTrue(r[2].startsWith("khameleon-loadtest: sok: unknown command"), r[2]);
        assertEquals("", r[1], "nothing ran");
    }

    @Test
    void serverLoad_badValues_areRefusedInOneLineNamingTheOption() {
        for (List<String> c : List.of(
                List.of("--sessions", "0", "khameleon-loadtest server-load: --sessions 0: outside [1, 5000]"),
                List.of("--seconds", "0", "khameleon-loadtest server-load: --seconds 0: outside [1, 600]"),
                List.of("--total-rate", "5e5", "khameleon-loadtest server-load: --total-rate: 500000.0 bytes/s gives 1000 "
                        + "sessions less than the server's minimum of 1000 bytes/s each (or is above 1e12)"))) {
            String[] r = execute("server-load", c.get(0), c.get(1));
            assertEquals("2", r[0], c + ": " + r[2]);
            assertEquals(c.get(2), r[2].strip());
            assertEquals("", r[1], "nothing ran");
        }
    }

    @Test
    void footprint_printsTwoLinesOfBytes_andRefusesABadOption() {
        String[] r = execute("footprint", "--requests", "2000", "--cache-blocks", "10", "--sessions", "2");
        assertEquals("0", r[0], r[2]);
        List<String> lines = r[1].lines().toList();
        assertEquals(2, lines.size(), r[1]);
        assertTrue(lines.get(0).matches("scheduler_bytes_per_session=[0-9]+"), lines.get(0));
        assertTrue(lines.get(1).matches("scheduler_bytes_per_session_after_batch=[0-9]+"), lines.get(1));
        r = execute("footprint", "--requests", "100000", "--cache-blocks", "10", "--sessions", "2", "--batches", "3");
        assertEquals("0", r[0], r[2]);
        lines = r[1].lines().toList();
        assertEquals(3, lines.size(), r[1]);
        assertTrue(lines.get(2).matches("scheduler_bytes_per_session_most_over_3_batches=[0-9]+"), lines.get(2));
        r = execute("footprint", "--batches", "0");
        assertEquals("2", r[0], r[2]);
        assertEquals("khameleon-loadtest footprint: --batches 0: outside [1, 10000]", r[2].strip());
        r = execute("footprint", "--sessions", "0");
        assertEquals("2", r[0], r[2]);
        assertEquals("khameleon-loadtest footprint: --sessions 0: outside [1, 10000]", r[2].strip());
    }
}
