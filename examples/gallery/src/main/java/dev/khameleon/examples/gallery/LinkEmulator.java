package dev.khameleon.examples.gallery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on loopback that makes a local connection behave like a slow network link, so the
 * difference Khameleon makes is visible on one machine: every byte is delayed by a one-way
 * latency in each direction, and bytes towards the client share one {@link Link} of limited
 * rate (all proxies built on the same link share it, like one access link).
 *
 * <p>Each connection uses four threads (reader and writer per direction) blocking on sockets —
 * never an event loop. What a direction holds in flight is bounded by the link's
 * bandwidth-delay product plus a small window, so the sender feels backpressure as it would on
 * a real link instead of filling an unbounded buffer. At most {@code maxConnections}
 * connections are proxied at once; more are refused (closed at once).
 */
final class LinkEmulator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LinkEmulator.class);
    private static final int CHUNK = 4096;
    private static final int MIN_WINDOW = 64 * 1024;

    private final InetSocketAddress target;
    private final Link link;
    private final ServerSocket listener;
    private final ExecutorService threads;
    private final Semaphore connections;
    private final AtomicInteger connectionIds = new AtomicInteger();
    private volatile boolean closed;

    /**
     * A shared downstream link: rate in bytes per second (0 means unlimited) and a one-way
     * latency applied to both directions. Thread-safe.
     */
    static final class Link {
        private final double bytesPerSecond;
        private final long oneWayNanos;
        private long nextFreeNanos;

        Link(double bytesPerSecond, long oneWayLatencyMillis) {
            if (!(bytesPerSecond >= 0) || Double.isInfinite(bytesPerSecond)) {
                throw new IllegalArgumentException("link rate must be finite and >= 0 bytes/s, was " + bytesPerSecond);
            }
            if (oneWayLatencyMillis < 0) {
                throw new IllegalArgumentException("latency must be >= 0 ms, was " + oneWayLatencyMillis);
            }
            this.bytesPerSecond = bytesPerSecond;
            this.oneWayNanos = oneWayLatencyMillis * 1_000_000L;
        }

        /**
         * Reserves the link for {@code bytes} that are ready at {@code readyNanos}; returns when
         * their last bit has crossed the link (serialisation, then propagation), in nanoTime.
         */
        synchronized long reserve(int bytes, long readyNanos) {
            if (bytesPerSecond == 0) {
                return readyNanos + oneWayNanos;
            }
            long start = Math.max(readyNanos, nextFreeNanos);
            nextFreeNanos = start + (long) (bytes * 1e9 / bytesPerSecond);
            return nextFreeNanos + oneWayNanos;
        }

        long oneWayNanos() {
            return oneWayNanos;
        }

        /** Bytes a direction may hold in flight: a bandwidth-delay product plus a small window. */
        int window() {
            double bdp = bytesPerSecond * 2 * oneWayNanos / 1e9;
            return (int) Math.min(8 << 20, Math.max(MIN_WINDOW, bdp + MIN_WINDOW));
        }
    }

    /**
     * Starts a proxy on loopback port {@code port} (0 for any free one) forwarding to
     * {@code target} over {@code link}.
     *
     * @throws IOException if it cannot listen
     */
    LinkEmulator(int port, InetSocketAddress target, Link link, int maxConnections) throws IOException {
        this.target = target;
        this.link = link;
        this.connections = new Semaphore(maxConnections);
        this.listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "link-emulator-" + listener.getLocalPort());
            t.setDaemon(true);
            return t;
        });
        threads.execute(this::acceptLoop);
    }

    /** The port the proxy listens on, on the loopback address. */
    int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("link emulator stopped accepting: {}", e.toString());
                }
                return;
            }
            if (!connections.tryAcquire()) {
                log.warn("link emulator: too many connections, refusing {}", client.getRemoteSocketAddress());
                closeQuietly(client);
                continue;
            }
            try {
                threads.execute(() -> proxy(client, connectionIds.incrementAndGet()));
            } catch (RejectedExecutionException e) {
                connections.release();
                closeQuietly(client);
            }
        }
    }

    private void proxy(Socket client, int id) {
        try (client; Socket server = new Socket()) {
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            // A small receive buffer keeps the server's data queued in the server, not in the kernel.
            server.setReceiveBufferSize(MIN_WINDOW);
            server.connect(target, 5_000);
            Direction up = new Direction(client, server, false);
            Direction down = new Direction(server, client, true);
            threads.execute(up::read);
            threads.execute(down::read);
            threads.execute(down::write);
            up.write(); // this thread writes upstream until the client half closes
            down.awaitDone();
        } catch (IOException e) {
            log.debug("link emulator connection {} ended: {}", id, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connections.release();
        }
    }

    /** One direction of one connection: a reader filling a bounded delay line, a writer draining it. */
    private final class Direction {
        private final Socket from;
        private final Socket to;
        private final boolean paced;
        private final ArrayDeque<long[]> times = new ArrayDeque<>();
        private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
        private final Semaphore space;
        private final Semaphore available = new Semaphore(0);
        private final Semaphore done = new Semaphore(0);

        Direction(Socket from, Socket to, boolean paced) {
            this.from = from;
            this.to = to;
            this.paced = paced;
            this.space = new Semaphore(link.window());
        }

        void read() {
            byte[] buffer = new byte[CHUNK];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    space.acquire(n);
                    offer(Arrays.copyOf(buffer, n));
                }
            } catch (IOException e) {
                log.trace("link emulator read ended: {}", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                offer(new byte[0]); // end of stream
            }
        }

        private void offer(byte[] chunk) {
            synchronized (this) {
                chunks.add(chunk);
                times.add(new long[] {System.nanoTime()});
            }
            available.release();
        }

        void write() {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    available.acquire();
                    byte[] chunk;
                    long ready;
                    synchronized (this) {
                        chunk = chunks.poll();
                        ready = times.poll()[0];
                    }
                    if (chunk.length == 0) {
                        to.shutdownOutput();
                        return;
                    }
                    long due = paced ? link.reserve(chunk.length, ready) : ready + link.oneWayNanos();
                    sleepUntil(due);
                    out.write(chunk);
                    out.flush();
                    space.release(chunk.length);
                }
            } catch (SocketException e) {
                log.trace("link emulator write ended: {}", e.toString());
                closeQuietly(from);
                closeQuietly(to);
            } catch (IOException e) {
                log.debug("link emulator write failed: {}", e.toString());
                closeQuietly(from);
                closeQuietly(to);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                space.release(1 << 30); // a reader blocked on a full window must not wait forever
                done.release();
            }
        }

        void awaitDone() throws InterruptedException {
            done.acquire();
        }
    }

    private static void sleepUntil(long deadlineNanos) throws InterruptedException {
        long wait;
        while ((wait = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        threads.shutdownNow();
    }
}
