package dev.khameleon.examples.timeseries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line of {@code java -jar khameleon-timeseries.jar [TRACE [PORT]]}, run in-process. */
@Timeout(120)
class CliTest {
    /** Runs the command line; returns {exit status, stdout, stderr} and closes any app it started. */
    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<TimeseriesApp> started = new ArrayList<>();
        int status = TimeseriesApp.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), started::add);
        started.forEach(TimeseriesApp::close);
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8)};
    }

    private static void assertOneLineNaming(String expected, String[] r) {
        assertEquals("2", r[0], r[2]);
        assertEquals(1, r[2].lines().count(), r[2]);
        assertTrue(r[2].startsWith("khameleon-timeseries: ") && r[2].contains(expected), r[2]);
        assertFalse(r[2].contains("Exception:") || r[2].contains("\tat "), "no Java exception: " + r[2]);
        assertEquals("", r[1], "nothing started");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc|PORT abc: not a number", "70000|PORT 70000: outside [0, 65535]",
        "-1|-1: unknown option", "8080.5|PORT 8080.5: not a number"})
    void badPort_isOneLineNamingIt(String testCase) {
        String[] c = testCase.split("\\|");
        // The port is checked before the trace is read: the trace need not exist.
        assertOneLineNaming(c[1], run("/nonexistent/trace.down", c[0]));
    }

    @Test
    void badArguments_areOneLineNamingThem() {
        assertOneLineNaming("--port: unknown option", run("--port", "9000"));
        assertOneLineNaming("expected at most TRACE and PORT, got 3", run("a.down", "9000", "extra"));
        assertOneLineNaming("TRACE /nonexistent/trace.down: not found", run("/nonexistent/trace.down", "9000"));
    }

    @Test
    void help_printsTheUsage() {
        String[] r = run("--help");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].startsWith("usage: java -jar khameleon-timeseries.jar [TRACE [PORT]]"), r[1]);
    }

    @Test
    void busyPort_isOneLineNamingIt() throws IOException {
        String trace = TraceData.trace().toString();
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = busy.getLocalPort();
            assertOneLineNaming("PORT " + port + ": cannot listen on 127.0.0.1", run(trace, Integer.toString(port)));
        }
    }

    @Test
    void start_printsTheAddressWithThePortItListensOn() {
        String[] r = run(TraceData.trace().toString(), "0");
        assertEquals("0", r[0], r[2]);
        String first = r[1].lines().findFirst().orElse("");
        assertTrue(first.matches("khameleon-timeseries: listening on http://127\\.0\\.0\\.1:(\\d+)/ \\(port \\d+; "
                + "WebSocket ws://127\\.0\\.0\\.1:\\d+/timeseries\\)"), first);
        String port = first.replaceAll(".*:(\\d+)/ .*", "$1");
        assertFalse(port.equals("0"), "the port bound, not the one asked for: " + first);
        assertTrue(first.contains("(port " + port + ";"), first);
        assertTrue(r[1].strip().endsWith("open http://127.0.0.1:" + port + "/"), r[1]);
    }
}
