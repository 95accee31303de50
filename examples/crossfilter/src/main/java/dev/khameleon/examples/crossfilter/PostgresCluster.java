package dev.khameleon.examples.crossfilter;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL cluster: {@code initdb} in a fresh temporary directory, a server
 * listening on 127.0.0.1 only (a free port, Unix socket in the same directory), trust
 * authentication for the user {@code khameleon}, {@code fsync} off. {@link #close()} stops it
 * and deletes the directory. For tests and the evaluation; never for data worth keeping.
 *
 * <p>PostgreSQL refuses to run as root; when this JVM runs as root the server runs as the
 * {@code postgres} system user (through {@code runuser}), which must exist.
 */
public final class PostgresCluster implements AutoCloseable {
    /** Where Debian installs PostgreSQL 15's server binaries; the default of {@link #start}. */
    public static final Path DEFAULT_BIN = Path.of("/usr/lib/postgresql/15/bin");
    /** The database user the cluster trusts. */
    public static final String USER = "khameleon";

    private static final long TIMEOUT_SECONDS = 60;

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres;

    private PostgresCluster(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** Whether {@code bin} holds {@code initdb} and {@code pg_ctl}. */
    public static boolean available(Path bin) {
        return Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl"));
    }

    /**
     * Creates and starts a cluster with the binaries in {@code bin}.
     *
     * @throws IllegalStateException if the binaries are absent
     * @throws IOException if a step fails (its output is in the message)
     */
    public static PostgresCluster start(Path bin) throws IOException, InterruptedException {
        if (!available(bin)) {
            throw new IllegalStateException("PostgreSQL binaries (initdb, pg_ctl) not found in " + bin);
        }
        boolean asPostgres = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("khameleon-pg");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        PostgresCluster cluster = new PostgresCluster(bin, dir, port, asPostgres);
        try {
            if (asPostgres) {
                run(List.of("chown", "postgres:", dir.toString()), dir);
            }
            cluster.runPg(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(),
                    "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync"));
            cluster.runPg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
                    "-l", dir.resolve("server.log").toString(), "-w", "-t", String.valueOf(TIMEOUT_SECONDS),
                    "-o", "-c listen_addresses=127.0.0.1 -p " + port + " -k " + dir
                            + " -c fsync=off -c max_connections=50", "start"));
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** The JDBC URL of the cluster's {@code postgres} database. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    private void runPg(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgres) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        run(full, dir);
    }

    private static void run(List<String> command, Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile("khameleon-pg", ".out");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(TIMEOUT_SECONDS + 10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): "
                        + Files.readString(out));
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /**
     * Stops the server (fast shutdown) and deletes its directory; safe to call twice. Interrupted, it
     * still deletes the directory and keeps the thread's interrupt status.
     */
    @Override
    public void close() throws IOException {
        try {
            if (Files.isDirectory(dir.resolve("data")) && Files.exists(dir.resolve("data").resolve("postmaster.pid"))) {
                runPg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast",
                        "-w", "stop"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (Files.exists(dir)) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }
}
