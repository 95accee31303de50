package dev.khameleon.loadtest.fleet;

import dev.khameleon.loadtest.proxy.LocalProcess;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The rig's child processes on 127.0.0.1 besides HAProxy: Debian's {@code redis-server}, an
 * {@link ObjectStoreServer} JVM and {@link FleetNode} JVMs. Each is stopped by its {@code close()}
 * (forcibly after a bounded wait); every wait for a process to come up is bounded too.
 */
final class LocalProcesses {
    private LocalProcesses() {
    }

    /** A throw-away Redis without persistence, with the LRU policy of docs/scale-out.md. */
    static final class Redis implements AutoCloseable {
        private final Process process;
        private final Path dir;
        private final int port;

        private Redis(Process process, Path dir, int port) {
            this.process = process;
            this.dir = dir;
            this.port = port;
        }

        /** Starts {@code binary} with {@code maxMemory} (e.g. {@code "64mb"}) and waits (10 s) until it answers. */
        static Redis start(Path binary, String maxMemory) throws IOException, InterruptedException {
            Path dir = Files.createTempDirectory("fleet-redis");
            int port = LocalProcess.freePort();
            Process p = new ProcessBuilder(binary.toString(), "--bind", "127.0.0.1", "--port", Integer.toString(port),
                    "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--maxmemory", maxMemory,
                    "--maxmemory-policy", "allkeys-lru", "--daemonize", "no").redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
            Redis r = new Redis(p, dir, port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!r.ping()) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    String log = LocalProcess.read(dir.resolve("redis.log"));
                    r.close();
                    throw new IllegalStateException("redis-server did not answer on 127.0.0.1:" + port + ":\n" + log);
                }
                Thread.sleep(20);
            }
            return r;
        }

        /** The server's address for the tiers. */
        URI uri() {
            return URI.create("redis://127.0.0.1:" + port);
        }

        private boolean ping() {
            try {
                return "+PONG".equals(command("PING"));
            } catch (IOException e) {
                return false;
            }
        }

        /** How many keys match {@code pattern} (Redis {@code KEYS}: for the rig's small databases only). */
        long countKeys(String pattern) throws IOException {
            String first = command("KEYS", pattern);
            if (!first.startsWith("*")) {
                throw new IOException("unexpected reply to KEYS: " + first);
            }
            return Long.parseLong(first.substring(1));
        }

        /** Sends one command and returns the first line of its reply. */
        private String command(String... words) throws IOException {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(5000);
                ByteArrayOutputStream req = new ByteArrayOutputStream();
                req.writeBytes(("*" + words.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                for (String w : words) {
                    byte[] b = w.getBytes(StandardCharsets.UTF_8);
                    req.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    req.writeBytes(b);
                    req.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                OutputStream out = s.getOutputStream();
                out.write(req.toByteArray());
                out.flush();
                InputStream in = s.getInputStream();
                StringBuilder line = new StringBuilder();
                for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                    if (c != '\r') {
                        line.append((char) c);
                    }
                }
                return line.toString();
            }
        }

        @Override
        public void close() throws IOException, InterruptedException {
            LocalProcess.stop(process);
            LocalProcess.delete(dir);
        }
    }

    /** Starts {@code mainClass} in a JVM with this JVM's class path, a small heap and its standard error in {@code log}. */
    private static Process java(Path log, String mainClass, List<String> args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // A small heap and the serial collector: several JVMs share a small machine with the clients.
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                mainClass));
        command.addAll(args);
        return new ProcessBuilder(command).redirectError(log.toFile()).start();
    }

    /** An {@link ObjectStoreServer} JVM: an S3 API on 127.0.0.1 with one bucket, in memory. */
    static final class ObjectStore implements AutoCloseable {
        private final Node process;
        private final String bucket;
        private final int port;

        private ObjectStore(Node process, String bucket, int port) {
            this.process = process;
            this.bucket = bucket;
            this.port = port;
        }

        /** Starts the store with {@code bucket} and waits (60 s) until it listens. */
        static ObjectStore start(Path log, String bucket) throws IOException, InterruptedException {
            Node n = new Node(java(log, ObjectStoreServer.class.getName(), List.of(bucket)), log);
            try {
                return new ObjectStore(n, bucket, n.awaitPort());
            } catch (IOException | RuntimeException e) {
                n.close();
                throw e;
            }
        }

        /** The store's endpoint for the nodes' S3 clients. */
        URI endpoint() {
            return URI.create("http://127.0.0.1:" + port);
        }

        /** The bucket the nodes store responses in. */
        String bucket() {
            return bucket;
        }

        /** Ends the store like a node: standard input closes, then signals if it lingers. */
        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }

    /** A {@link FleetNode} JVM (or, inside this class, another child JVM that prints {@code port N}). */
    static final class Node implements AutoCloseable {
        private final Process process;
        private final Path log;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private int port;

        private Node(Process process, Path log) {
            this.process = process;
            this.log = log;
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.US_ASCII))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // The node is gone: whoever waits for a line times out and says so.
                }
            }, "fleet-node-" + process.pid() + "-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /**
         * Starts a node JVM without waiting for it, with the object-store tier of {@code objects} below
         * Redis if it is not null; its standard error goes to {@code log}.
         */
        static Node launch(Path log, URI redis, String namespace, double bytesPerSecond, long memoryBytes,
                           ObjectStore objects) throws IOException {
            List<String> args = new ArrayList<>(List.of(redis.toString(), namespace,
                    Double.toString(bytesPerSecond), Long.toString(memoryBytes)));
            if (objects != null) {
                args.add(objects.endpoint().toString());
                args.add(objects.bucket());
            }
            return new Node(java(log, FleetNode.class.getName(), args), log);
        }

        /** Waits (60 s) until the node listens and returns its port. */
        int awaitPort() throws IOException, InterruptedException {
            port = Integer.parseInt(next("port", 60).substring("port ".length()));
            return port;
        }

        /** The port it listens on, once {@link #awaitPort} returned. */
        int port() {
            return port;
        }

        /** The node's counters now. */
        NodeCounters counters() throws IOException, InterruptedException {
            OutputStream in = process.getOutputStream();
            in.write("stats\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
            return NodeCounters.parse(next("stats", 10));
        }

        private String next(String prefix, int seconds) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IOException("node " + process.pid() + " printed no '" + prefix + "' line within "
                            + seconds + " s (alive: " + process.isAlive() + "); its log:\n" + LocalProcess.read(log));
                }
                if (line.startsWith(prefix + " ")) {
                    return line;
                }
            }
        }

        /** Ends the node: its standard input closes (it exits), then SIGTERM and SIGKILL if it lingers. */
        @Override
        public void close() throws InterruptedException {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // already gone
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                LocalProcess.stop(process);
            }
        }
    }
}
