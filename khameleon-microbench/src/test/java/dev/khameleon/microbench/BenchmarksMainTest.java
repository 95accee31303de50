package dev.khameleon.microbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code benchmarks.jar} without arguments, or with {@code --help}, prints how to run it and runs nothing. */
class BenchmarksMainTest {

    @ParameterizedTest(name = "benchmarks.jar {0}")
    @ValueSource(strings = {"", "--help"})
    void withoutArguments_printsUsageAndRunsNothing(String arg) {
        String[] args = arg.isEmpty() ? new String[0] : new String[] {arg};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertTrue(BenchmarksMain.printUsageIfAsked(args, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.startsWith("Usage: java -jar khameleon-microbench/target/benchmarks.jar"), out);
        assertTrue(out.contains("SchedulerBenchmark -f 1"), out);
    }

    @ParameterizedTest(name = "benchmarks.jar {0}")
    @ValueSource(strings = {"-l", "SchedulerBenchmark"})
    void anyOtherArguments_goToJmh(String arg) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertFalse(BenchmarksMain.printUsageIfAsked(new String[] {arg}, new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        assertEquals(0, bytes.size());
    }
}
