package dev.khameleon.examples.gallery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayDeque;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * a real link instead of filling an unbounded buffer.
 *
 * <p>Connections are bounded in number and in idleness, so leaked or idle connections cannot
 * lock users out: a connection with no byte read or written in either direction for the idle
 * timeout is closed, and when {@code maxConnections} are open a new one takes the slot of the
 * connection idle longest (if it has been idle at least {@link #EVICTABLE_IDLE_MILLIS} ms);
 * only when every connection is busy is the new one refused (closed at once). A connection
 * frees its slot as soon as both directions have ended.
 *
 * <p>An optional {@link RequestGate} sees the first request head of each connection before a
 * byte of it is forwarded, and can refuse it with an HTTP status.
 */
final class LinkEmulator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LinkEmulator.class);
    private static final int CHUNK = 4096;
    private static final int MIN_WINDOW = 64 * 1024;
    /** A connection idle this long may lose its slot to a new one when all slots are taken. */
    static final long EVICTABLE_IDLE_MILLIS = 500;
    /** How long a new connection waits for an evicted one to free its slot. */
    private static final long EVICTION_WAIT_MILLIS = 2_000;

    private final InetSocketAddress target;
    private final Link link;
    private final ServerSocket listener;
    private final ExecutorService threads;
    private final ScheduledExecutorService reaper;
    private final Semaphore connections;
    private final long idleTimeoutNanos;
    private final RequestGate gate;
    private final Set<Connection> live = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final RateLimitedLog refusalLog = new RateLimitedLog();
    private volatile boolean closed;

    /** At most one message a second about refusals, so a flood of connections cannot flood the log. */
    private static final class RateLimitedLog {
        private static final long INTERVAL_NANOS = 1_000_000_000L;
        private final AtomicLong lastNanos = new AtomicLong(System.nanoTime() - INTERVAL_NANOS);
        private final AtomicInteger suppressed = new AtomicInteger();

        /** How many messages were skipped since the last one if this one may be logged, else -1. */
        int suppressedOrNegative() {
            long now = System.nanoTime();
            long last = lastNanos.get();
            if (now - last >= INTERVAL_NANOS && lastNanos.compareAndSet(last, now)) {
                return suppressed.getAndSet(0);
            }
            suppressed.incrementAndGet();
            return -1;
        }
    }

    /**
     * Decides from a connection's first HTTP request head whether to forward it. Called on the
     * connection's own thread; must be thread-safe.
     */
    @FunctionalInterface
    interface RequestGate {
        /** Bytes of request head read before a connection is refused as malformed. */
        int MAX_HEAD_BYTES = 8192;

        /**
         * The reason to refuse a request with {@code 403 Forbidden}, or null to forward it.
         *
         * @param head the request line and header lines, without the blank line ending them
         */
        String refusal(List<String> head);
    }

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
     * {@code target} over {@code link}, with at most {@code maxConnections} connections, an
     * idle timeout of 30 s and no gate.
     *
     * @throws IOException if it cannot listen
     */
    LinkEmulator(int port, InetSocketAddress target, Link link, int maxConnections) throws IOException {
        this(listen(port), target, link, maxConnections, Duration.ofSeconds(30), null);
    }

    /**
     * Starts a proxy accepting on {@code listener} (bound already; the proxy owns it from now on)
     * and forwarding to {@code target} over {@code link}.
     *
     * @param maxConnections connections proxied at once, at least 1
     * @param idleTimeout    a connection with no traffic either way for this long is closed
     * @param gate           checks each connection's first request head, or null to forward all
     */
    LinkEmulator(ServerSocket listener, InetSocketAddress target, Link link, int maxConnections,
                 Duration idleTimeout, RequestGate gate) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be >= 1, was " + maxConnections);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be > 0, was " + idleTimeout);
        }
        this.target = target;
        this.link = link;
        this.connections = new Semaphore(maxConnections);
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.gate = gate;
        this.listener = listener;
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "link-emulator-" + listener.getLocalPort());
            t.setDaemon(true);
            return t;
        });
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "link-emulator-reaper-" + listener.getLocalPort());
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(10, Math.min(1_000, idleTimeout.toMillis() / 4));
        reaper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
        threads.execute(this::acceptLoop);
    }

    /**
     * A server socket on loopback port {@code port} (0 for any free one).
     *
     * @throws BindException naming the address if the port is taken
     * @throws IOException   if it cannot listen for another reason
     */
    static ServerSocket listen(int port) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try {
            return new ServerSocket(port, 50, loopback);
        } catch (BindException e) {
            BindException clear = new BindException("port " + port + " on " + loopback.getHostAddress()
                    + " is already in use");
            clear.initCause(e);
            throw clear;
        }
    }

    /** Connections being proxied now. */
    int liveConnections() {
        return live.size();
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
            if (!acquireSlot()) {
                int suppressed = refusalLog.suppressedOrNegative();
                if (suppressed >= 0) {
                    log.warn("link emulator: {} busy connections, refusing {} ({} refusals since the last message)",
                            live.size(), client.getRemoteSocketAddress(), suppressed);
                }
                closeQuietly(client);
                continue;
            }
            Connection connection = new Connection(client, connectionIds.incrementAndGet());
            live.add(connection);
            try {
                threads.execute(() -> proxy(connection));
            } catch (RejectedExecutionException e) {
                live.remove(connection);
                connections.release();
                closeQuietly(client);
            }
        }
    }

    /** Takes a free slot, or the slot of the connection idle longest; false if all are busy. */
    private boolean acquireSlot() {
        if (connections.tryAcquire()) {
            return true;
        }
        long now = System.nanoTime();
        Connection idlest = null;
        for (Connection c : live) {
            if (idlest == null || c.lastActivityNanos < idlest.lastActivityNanos) {
                idlest = c;
            }
        }
        if (idlest == null || now - idlest.lastActivityNanos < TimeUnit.MILLISECONDS.toNanos(EVICTABLE_IDLE_MILLIS)) {
            return false;
        }
        log.debug("link emulator: all slots taken, closing connection {} idle for {} ms", idlest.id,
                (now - idlest.lastActivityNanos) / 1_000_000);
        idlest.abort();
        try {
            return connections.tryAcquire(EVICTION_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void closeIdle() {
        long now = System.nanoTime();
        for (Connection c : live) {
            if (now - c.lastActivityNanos >= idleTimeoutNanos) {
                log.debug("link emulator: closing connection {}, idle for {} ms", c.id,
                        (now - c.lastActivityNanos) / 1_000_000);
                c.abort();
            }
        }
    }

    private void proxy(Connection connection) {
        Socket client = connection.client;
        try (client; Socket server = new Socket()) {
            connection.server = server;
            if (connection.aborted) {
                return; // closed before it got its server socket
            }
            client.setTcpNoDelay(true);
            byte[] head = new byte[0];
            if (gate != null) {
                head = admit(connection);
                if (head == null) {
                    return;
                }
            }
            server.setTcpNoDelay(true);
            // A small receive buffer keeps the server's data queued in the server, not in the kernel.
            server.setReceiveBufferSize(MIN_WINDOW);
            server.connect(target, 5_000);
            Direction up = new Direction(connection, client, server, false);
            Direction down = new Direction(connection, server, client, true);
            if (head.length > 0) {
                up.space.acquire(head.length);
                up.offer(head);
            }
            threads.execute(up::read);
            threads.execute(down::read);
            threads.execute(down::write);
            up.write(); // this thread writes upstream until the client half closes
            down.awaitDone();
        } catch (IOException e) {
            log.debug("link emulator connection {} ended: {}", connection.id, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            live.remove(connection);
            connections.release();
        }
    }

    /**
     * Reads the connection's request head and asks the gate: returns the bytes read (to forward)
     * or null after refusing the request.
     */
    private byte[] admit(Connection connection) throws IOException {
        InputStream in = connection.client.getInputStream();
        byte[] buffer = new byte[RequestGate.MAX_HEAD_BYTES];
        int n = 0;
        int headEnd = -1;
        while (headEnd < 0 && n < buffer.length) {
            int r = in.read(buffer, n, buffer.length - n);
            if (r < 0) {
                return null;
            }
            connection.touch();
            n += r;
            headEnd = indexOfBlankLine(buffer, n);
        }
        String reason;
        if (headEnd < 0) {
            reason = "request head longer than " + RequestGate.MAX_HEAD_BYTES + " bytes";
        } else {
            String text = new String(buffer, 0, headEnd, StandardCharsets.ISO_8859_1);
            reason = gate.refusal(List.of(text.split("\r\n")));
        }
        if (reason == null) {
            return Arrays.copyOf(buffer, n);
        }
        int suppressed = refusalLog.suppressedOrNegative();
        if (suppressed >= 0) {
            log.info("link emulator: refused a request from {}: {} ({} refusals since the last message)",
                    connection.client.getRemoteSocketAddress(), reason, suppressed);
        }
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        OutputStream out = connection.client.getOutputStream();
        out.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        return null;
    }

    /** The position of the CR LF CR LF ending an HTTP head in {@code b[0, n)}, or -1. */
    private static int indexOfBlankLine(byte[] b, int n) {
        for (int i = 0; i + 3 < n; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** One proxied connection: its sockets and when a byte last moved either way. */
    private static final class Connection {
        final Socket client;
        final int id;
        volatile Socket server;
        volatile long lastActivityNanos = System.nanoTime();
        volatile boolean aborted;

        Connection(Socket client, int id) {
            this.client = client;
            this.id = id;
        }

        void touch() {
            lastActivityNanos = System.nanoTime();
        }

        /** Closes both sockets, which ends every thread of the connection. */
        void abort() {
            aborted = true;
            closeQuietly(client);
            Socket s = server;
            if (s != null) {
                closeQuietly(s);
            }
        }
    }

    /** One direction of one connection: a reader filling a bounded delay line, a writer draining it. */
    private final class Direction {
        private final Connection connection;
        private final Socket from;
        private final Socket to;
        private final boolean paced;
        private final ArrayDeque<long[]> times = new ArrayDeque<>();
        private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
        private final Semaphore space;
        private final Semaphore available = new Semaphore(0);
        private final Semaphore done = new Semaphore(0);

        Direction(Connection connection, Socket from, Socket to, boolean paced) {
            this.connection = connection;
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
                    connection.touch();
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
                    connection.touch();
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
        reaper.shutdownNow();
        for (Connection c : live) {
            c.abort();
        }
        threads.shutdownNow();
    }
}
