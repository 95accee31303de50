package dev.khameleon.simulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.tool.Cli;
import dev.khameleon.testing.SharedData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input to {@code live}: one line naming the option or path, exit 2, no stack trace, nothing started. */
class LiveCommandTest {
    private static final String TRACE = "pointer/balabit/user7/session_0041905381.gz#0";

    @Test
    void missingTrace_isOneLineNamingThePath(@TempDir Path dir) {
        Path missing = dir.resolve("missing.gz");
        assertOneLineError("trace file not found: " + missing.toAbsolutePath(), "live", "--trace", missing.toString(),
                "--out", dir.toString());
    }

    @Test
    void garbageMahimahiFile_isOneLineNamingTheFileAndLine(@TempDir Path dir) throws IOException {
        Path net = Files.writeString(dir.resolve("garbage.down"), "12\nnot a number\n");
        assertOneLineError(net + ":2: not an integer: not a number", "live", "--trace", trace(),
                "--network-trace", net.toString(), "--out", dir.toString());
    }

    @Test
    void unreadableMahimahiFile_isOneLineNamingTheOption(@TempDir Path dir) {
        Path net = dir.resolve("absent.down");
        assertOneLineError("--network-trace " + net + ": not a readable file", "live", "--trace", trace(),
                "--network-trace", net.toString(), "--out", dir.toString());
        assertOneLineError("--network-trace " + dir + ": not a readable file", "live", "--trace", trace(),
                "--network-trace", dir.toString(), "--out", dir.toString());
    }

    @Test
    void portInUse_isOneLineNamingThePort(@TempDir Path dir) throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertOneLineError("--port " + port + ": cannot listen on 127.0.0.1:" + port, "live", "--trace", trace(),
                    "--segment-s", "10", "--port", Integer.toString(port), "--out", dir.toString());
        }
    }

    @Test
    void badNumbers_areOneLineNamingTheOption(@TempDir Path dir) {
        String t = trace();
        String o = dir.toString();
        assertOneLineError("--drain-ms must be finite and >= 0, was -1.0", "live", "--trace", t, "--drain-ms", "-1",
                "--out", o);
        assertOneLineError("--pace must be finite and > 0, was 0.0", "live", "--trace", t, "--pace", "0", "--out", o);
        assertOneLineError("--link-queue-KB must hold one 1500-byte packet (>= 1.5) for a live run, was 1.0", "live",
                "--trace", t, "--link-queue-KB", "1", "--out", o);
        assertOneLineError("--port must be in [0, 65535], was 70000", "live", "--trace", t, "--port", "70000",
                "--out", o);
        assertOneLineError("--bandwidth-MBps must be finite and > 0, was -3.0", "live", "--trace", t,
                "--bandwidth-MBps", "-3", "--out", o);
        assertOneLineError("--align-horizons is a simulator experiment", "live", "--trace", t, "--segment-s", "10",
                "--align-horizons", "--out", o);
    }

    private static String trace() {
        return SharedData.require(TRACE.substring(0, TRACE.indexOf('#'))) + TRACE.substring(TRACE.indexOf('#'));
    }

    /** Runs the command line; asserts exit 2 and exactly one line on stderr, containing {@code expected}. */
    private static void assertOneLineError(String expected, String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status;
        try {
            System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            status = Cli.run(args);
        } finally {
            System.setErr(saved);
        }
        String err = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, err);
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertTrue(err.startsWith("khameleon-simulator live: ") && err.contains(expected), err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }
}
