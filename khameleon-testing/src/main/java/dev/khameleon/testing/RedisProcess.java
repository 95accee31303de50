package dev.khameleon.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} (Debian's package) on a free 127.0.0.1 port, in a temporary
 * directory, without persistence, with the LRU policy the tiers document. Tests that need it skip,
 * naming the package, when it is not installed.
 */
public final class RedisProcess implements AutoCloseable {
    /** Where Debian installs redis-server. */
    public static final Path REDIS_SERVER = Path.of("/usr/bin/redis-server");

    private final Path binary;
    private final Path dir;
    private final int port;
    private Process process;

    private RedisProcess(Path binary, Path dir, int port) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server with {@code maxMemory} (e.g. {@code "64mb"}); skips the test if Redis is absent. */
    public static RedisProcess start(String maxMemory) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isExecutable(REDIS_SERVER),
                "redis-server not found at " + REDIS_SERVER + " (Debian package redis-server); test skipped");
        return start(REDIS_SERVER, maxMemory);
    }

    /**
     * Starts {@code binary} with {@code maxMemory} and waits (10 s) until it answers, for a tool that
     * names its own Redis; no test is skipped.
     *
     * @throws IOException if it does not answer in time, with its log
     */
    public static RedisProcess start(Path binary, String maxMemory) throws IOException, InterruptedException {
        RedisProcess r = new RedisProcess(binary, Files.createTempDirectory("khameleon-redis"), freePort());
        try {
            r.launch(maxMemory);
        } catch (IOException | InterruptedException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    private void launch(String maxMemory) throws IOException, InterruptedException {
        process = new ProcessBuilder(binary.toString(), "--bind", "127.0.0.1", "--port", Integer.toString(port),
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--protected-mode", "yes",
                "--maxmemory", maxMemory, "--maxmemory-policy", "allkeys-lru", "--daemonize", "no")
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ping()) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IOException("redis-server did not start on 127.0.0.1:" + port + "; log: "
                        + Files.readString(dir.resolve("redis.log")));
            }
            Thread.sleep(20);
        }
    }

    /** The server's URI. */
    public URI uri() {
        return URI.create("redis://127.0.0.1:" + port);
    }

    /** Kills the server (an outage); {@link #restart} brings it back, empty, on the same port. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts the server again on the same port after {@link #kill}. */
    public void restart(String maxMemory) throws IOException, InterruptedException {
        launch(maxMemory);
    }

    /**
     * Sends one command (each word a {@code String}, sent as UTF-8, or raw {@code byte[]}) and returns
     * the first reply line: enough for tests' SET, DEL, DBSIZE and ZCARD.
     */
    public String command(Object... words) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
            req.writeBytes(("*" + words.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object w : words) {
                byte[] b = w instanceof byte[] raw ? raw : w.toString().getBytes(StandardCharsets.UTF_8);
                req.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.writeBytes(b);
                req.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            OutputStream out = s.getOutputStream();
            out.write(req.toByteArray());
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }

    /** How many keys match {@code pattern} (Redis {@code KEYS}: for small test databases only). */
    public long countKeys(String pattern) throws IOException {
        String first = command("KEYS", pattern);
        if (!first.startsWith("*")) {
            throw new IOException("unexpected reply to KEYS: " + first);
        }
        return Long.parseLong(first.substring(1));
    }

    private boolean ping() {
        try {
            return "+PONG".equals(command("PING"));
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Stops the server (forcibly after five seconds) and deletes its directory. */
    @Override
    public void close() throws IOException {
        if (process != null) {
            Processes.stop(process, 5);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
