package dev.khameleon.tiers;

import dev.khameleon.testing.ProcessLines;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A {@link GridNode} in its own JVM, started with the test's class path, so that a test can kill it
 * with SIGKILL ({@link #kill()}) as a crash would. The test that launched it kills it in the end;
 * the node also exits by itself when the test's JVM ends (its standard input closes).
 */
final class NodeProcess {
    /** The {@code kill} of Debian's procps, to send the signals Java has no API for. */
    static final String KILL = "/bin/kill";
    private final Process process;
    private final ProcessLines lines;
    private final int port;

    private NodeProcess(Process process, Path log) throws IOException, InterruptedException {
        this.process = process;
        this.lines = new ProcessLines(process, log, "node-" + process.pid() + "-stdout");
        String first = lines.next("port", 30);
        this.port = Integer.parseInt(first.substring("port ".length()));
    }

    /**
     * Starts a node JVM ({@code GridNode seed bytesPerSecond}); its log goes to
     * {@code dir/node-<seed>.log}. Does not wait for it to listen: see {@link #port()}.
     */
    static Process launch(Path dir, int seed, long bytesPerSecond) throws IOException {
        return launch(dir, seed, bytesPerSecond, "grid");
    }

    /**
     * Starts a node JVM serving {@code application} ({@code grid} or {@code screen}, see
     * {@link GridNode#main}), like {@link #launch(Path, int, long)}.
     */
    static Process launch(Path dir, int seed, long bytesPerSecond, String application) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // A small heap and the client compiler: three nodes start and run beside the test on a small machine.
        return new ProcessBuilder(java, "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), GridNode.class.getName(),
                Integer.toString(seed), Long.toString(bytesPerSecond), application)
                .redirectError(dir.resolve("node-" + seed + ".log").toFile()).start();
    }

    /** Waits until the launched node listens (at most 30 s), killing it if it does not. */
    static NodeProcess ready(Process process, Path dir, int seed) throws IOException, InterruptedException {
        try {
            return new NodeProcess(process, dir.resolve("node-" + seed + ".log"));
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The port the node listens on, on 127.0.0.1. */
    int port() {
        return port;
    }

    /** Open sessions, sessions resumed and resumes refused, as the node counts them. */
    long[] metrics() throws IOException, InterruptedException {
        OutputStream in = process.getOutputStream();
        in.write("metrics\n".getBytes(StandardCharsets.US_ASCII));
        in.flush();
        String[] f = lines.next("metrics", 10).split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])};
    }

    /** What the node logged so far. */
    String log() {
        return lines.log();
    }

    /** SIGKILL: the node dies at once, without closing anything. */
    void kill() {
        process.destroyForcibly();
    }

    /**
     * SIGSTOP: the node freezes as a machine gone from the network would, from its peers' side.
     * Its kernel still holds its sockets open and accepts connections, but nothing is answered,
     * and no RST or FIN tells anyone. Undo with {@link #cont()}, or {@link #kill()} it.
     */
    void stop() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT: a {@linkplain #stop() stopped} node runs again. */
    void cont() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder(KILL, signal, Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IOException(KILL + " " + signal + " " + process.pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
        }
    }
}
