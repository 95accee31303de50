package dev.khameleon.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Debian's haproxy run with the configuration of docs/scale-out.md (its addresses replaced by
 * 127.0.0.1 ports, request logging added) in front of nodes on loopback ports, for the tests.
 * {@link #close()} stops it, forcibly if it does not stop within ten seconds.
 */
public final class Haproxy implements AutoCloseable {
    /** Where Debian installs haproxy. */
    public static final Path EXECUTABLE = Path.of("/usr/sbin/haproxy");
    /** The scale-out guide, relative to a module directory (the tests' working directory). */
    public static final Path DOC = Path.of("..", "docs", "scale-out.md");

    private final Process process;
    private final int port;
    private final Path log;

    private Haproxy(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Whether the haproxy executable is installed (Debian package {@code haproxy}). */
    public static boolean installed() {
        return Files.isExecutable(EXECUTABLE);
    }

    /** The configuration in the documentation's {@code haproxy} block. */
    public static String documentedConfig() throws IOException {
        String doc = Files.readString(DOC);
        Matcher m = Pattern.compile("```haproxy\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertTrue(m.find(), "docs/scale-out.md has a ```haproxy block");
        return m.group(1);
    }

    /** A port free on the loopback address when asked. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts haproxy with the documented configuration, its {@code k}-th server pointed at
     * {@code 127.0.0.1:nodePorts[k]}, and waits until it listens. Files go to {@code dir}.
     */
    public static Haproxy start(Path dir, List<Integer> nodePorts) throws Exception {
        return start(dir, nodePorts, UnaryOperator.identity());
    }

    /**
     * Starts haproxy like {@link #start(Path, List)}, with the documented configuration changed by
     * {@code edit} first (to test a variant of it).
     */
    public static Haproxy start(Path dir, List<Integer> nodePorts, UnaryOperator<String> edit) throws Exception {
        int port = freePort();
        String cfg = edit.apply(documentedConfig()).replace("bind :80", "bind 127.0.0.1:" + port);
        for (int k = 0; k < nodePorts.size(); k++) {
            String documented = "10.0.0.1" + (k + 1) + ":8080";
            assertTrue(cfg.contains(documented), "the documented config names " + documented);
            cfg = cfg.replace(documented, "127.0.0.1:" + nodePorts.get(k));
        }
        // Diagnostics only: HAProxy logs each request (which node, what status) to the test's log file.
        cfg = "global\n    log stderr format short local0 info\n\n" + cfg.replace("    mode http\n",
                "    mode http\n    log global\n    option httplog\n");
        Path file = dir.resolve("haproxy.cfg");
        Files.writeString(file, cfg);
        Path log = dir.resolve("haproxy.log");
        Process process = new ProcessBuilder(EXECUTABLE.toString(), "-db", "-f", file.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Haproxy h = new Haproxy(process, port, log);
        try {
            h.await(() -> {
                if (!process.isAlive()) {
                    throw new AssertionError("haproxy exited with " + process.exitValue() + ":\n" + h.log());
                }
                try {
                    new Socket(InetAddress.getLoopbackAddress(), port).close();
                    return true;
                } catch (IOException e) {
                    return false;
                }
            }, "haproxy listens on " + port);
        } catch (Throwable e) {
            h.close();
            throw e;
        }
        return h;
    }

    /** The port clients connect to. */
    public int port() {
        return port;
    }

    /** What haproxy logged so far. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** Polls {@code condition} every 20 ms for up to 20 s; fails with haproxy's log. */
    public void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what + "; haproxy said:\n" + log());
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        Processes.stop(process, 10);
    }
}
