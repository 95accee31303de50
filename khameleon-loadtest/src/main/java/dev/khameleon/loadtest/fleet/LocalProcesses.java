package dev.khameleon.loadtest.fleet;

import dev.khameleon.loadtest.proxy.LocalProcess;
import dev.khameleon.testing.ProcessLines;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The rig's child JVMs on 127.0.0.1 besides HAProxy and Redis (the test kit's
 * {@link dev.khameleon.testing.RedisProcess}): an {@link ObjectStoreServer} and {@link FleetNode}s. Each is stopped by its {@code close()}
 * (forcibly after a bounded wait); every wait for a process to come up is bounded too.
 */
final class LocalProcesses {
    private LocalProcesses() {
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
        public void close() {
            process.close();
        }
    }

    /** A {@link FleetNode} JVM (or, inside this class, another child JVM that prints {@code port N}). */
    static final class Node implements AutoCloseable {
        private final Process process;
        private final ProcessLines lines;
        private int port;

        private Node(Process process, Path log) {
            this.process = process;
            this.lines = new ProcessLines(process, log, "fleet-node-" + process.pid() + "-stdout");
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
            port = Integer.parseInt(lines.next("port", 60).substring("port ".length()));
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
            return NodeCounters.parse(lines.next("stats", 10));
        }

        /** Ends the node: its standard input closes (it exits), then SIGTERM and SIGKILL if it lingers. */
        @Override
        public void close() {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // already gone
            }
            try {
                if (process.waitFor(10, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                // With the flag set again, stop kills at once instead of waiting.
                Thread.currentThread().interrupt();
            }
            LocalProcess.stop(process);
        }
    }
}
