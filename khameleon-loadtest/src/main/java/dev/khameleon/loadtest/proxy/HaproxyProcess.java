package dev.khameleon.loadtest.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Debian's {@code haproxy} in the foreground ({@code -db}) with a rendered configuration, on 127.0.0.1. */
public final class HaproxyProcess implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final int port;

    private HaproxyProcess(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Writes {@code config} (which listens on {@code port}) to a temporary directory, starts {@code binary}
     * and waits (10 s) until it listens.
     *
     * @throws IllegalStateException naming the log if haproxy exits or does not listen in time
     */
    public static HaproxyProcess start(Path binary, String config, int port) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("haproxy");
        Path file = Files.writeString(dir.resolve("haproxy.cfg"), config);
        Process p = new ProcessBuilder(binary.toString(), "-db", "-f", file.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        HaproxyProcess h = new HaproxyProcess(p, dir, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!LocalProcess.listens(port)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String why = p.isAlive() ? "does not listen on " + port + " after 10 s" : "exited with " + p.exitValue();
                String log = h.log();
                h.close();
                throw new IllegalStateException("haproxy " + why + ":\n" + log);
            }
            Thread.sleep(20);
        }
        return h;
    }

    /** The port it listens on, on 127.0.0.1. */
    public int port() {
        return port;
    }

    /** User and system CPU seconds of the process so far, or 0 if {@code /proc} cannot say. */
    public double cpuSeconds() {
        return LocalProcess.cpuSeconds(process.pid());
    }

    /** What haproxy printed so far. */
    public String log() {
        return LocalProcess.read(dir.resolve("haproxy.log"));
    }

    /** Stops haproxy (SIGTERM, then SIGKILL after 10 s) and deletes its configuration and log. */
    @Override
    public void close() throws IOException {
        LocalProcess.stop(process);
        LocalProcess.delete(dir);
    }
}
