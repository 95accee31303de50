package dev.khameleon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.bench.server.Soak;
import dev.khameleon.bench.server.ServerLoad;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every tool of the bench module answers {@code --help} with its usage and exit status 0, running nothing. */
class ToolHelpTest {

    /** The root command and each of its subcommands, as they are typed. */
    static Stream<String> commands() {
        List<String> names = new ArrayList<>(List.of(""));
        names.addAll(Cli.commandLine().getSubcommands().keySet());
        return names.stream();
    }

    @ParameterizedTest(name = "khameleon-bench {0} --help")
    @MethodSource("commands")
    void everyCommand_helpPrintsItsUsageAndExitsZero(String name) {
        CommandLine cli = Cli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        int status = name.isEmpty() ? cli.execute("--help") : cli.execute(name, "--help");
        assertEquals(0, status, err::toString);
        String usage = "Usage: khameleon-bench" + (name.isEmpty() ? "" : " " + name);
        assertTrue(out.toString().lines().anyMatch(l -> l.startsWith(usage)),
                () -> "expected a line '" + usage + "…', got: " + out);
        assertEquals("", err.toString());
    }

    @Test
    void theCommandListIsComplete() {
        assertEquals(List.of("", "simulate", "experiment", "utility", "store", "forecast", "fleet", "live", "help"),
                commands().toList());
    }

    @Test
    void serverLoad_helpPrintsUsageWithoutRunningALoad() throws Exception {
        String out = stdout(() -> ServerLoad.main(new String[] {"--help"}));
        assertTrue(out.startsWith("Usage: java -cp khameleon-bench/target/khameleon-bench.jar "
                + "dev.khameleon.bench.server.ServerLoad"), out);
        assertFalse(out.contains("| sessions |"), "no table: nothing ran");
    }

    @Test
    void soak_helpPrintsUsageWithoutRunning() throws Exception {
        String out = stdout(() -> Soak.main(new String[] {"--help"}));
        assertTrue(out.startsWith("usage: Soak "), out);
    }

    @ParameterizedTest(name = "benchmarks.jar {0}")
    @ValueSource(strings = {"", "--help"})
    void benchmarksJar_withoutArguments_printsUsageAndRunsNothing(String arg) throws Exception {
        String[] args = arg.isEmpty() ? new String[0] : new String[] {arg};
        String out = stdout(() -> dev.khameleon.bench.jmh.BenchmarksMain.main(args));
        assertTrue(out.startsWith("Usage: java -jar khameleon-bench/target/benchmarks.jar"), out);
        assertTrue(out.contains("SchedulerBenchmark -f 1"), out);
    }

    private interface Action {
        void run() throws Exception;
    }

    /** What {@code action} prints to standard output. */
    private static String stdout(Action action) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
