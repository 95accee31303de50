package dev.khameleon.loadtest.server;

import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One well-behaved load session: it counts the bytes it receives and, given a {@link Latency}, sends
 * point-predictor states and times the first block of each state's request. {@link #connect} opens
 * it on the JDK's WebSocket client, from 127.0.0.1 (the JDK 17 client cannot choose its local
 * address); {@link #connectFrom} on a {@link RawWebSocket} bound to a chosen loopback address, read
 * by a thread of its own ({@value #READER_THREAD}N). Thread-safe: messages arrive on the JDK's or
 * the reader's thread, states come from a ticker thread.
 */
final class LoadClient implements WebSocket.Listener {
    /** Where clients record the delay from sending a state to the first block it asked for. */
    record Latency(Histogram delays, AtomicLong missed) {
        /** An empty histogram of up to 60 s at 3 significant digits. */
        static Latency create() {
            return new Latency(new Histogram(TimeUnit.SECONDS.toNanos(60), 3), new AtomicLong());
        }

        /** A copy of the delays recorded so far. */
        Histogram snapshot() {
            synchronized (delays) {
                return delays.copy();
            }
        }
    }

    /** The name prefix of the threads that read {@link #connectFrom}'s connections. */
    static final String READER_THREAD = "load-reader-";
    /** The stack of a reader thread: it only reads frames. */
    private static final long READER_STACK_BYTES = 256 * 1024;

    /** What a client sends its states through. */
    private interface Link {
        void sendText(String text);

        void abort();
    }

    final AtomicLong bytes = new AtomicLong();
    /** Completes with the first text message (the welcome, or an error). */
    final CompletableFuture<String> welcome = new CompletableFuture<>();
    /** The close status the server sent, or -1 while open. */
    volatile int closeStatus = -1;
    private volatile Link link;
    private volatile Latency latency;
    /** Set by {@link #close}: the connection's end is ours, not the server's. */
    private volatile boolean aborted;
    private final SplittableRandom random;
    private final LoadWorkload workload;
    private final ByteBuffer frame = ByteBuffer.allocate(LoadApp.FRAME_BYTES + 64);
    private final StringBuilder text = new StringBuilder();
    private int target = -1;
    private long sentNanos;
    private long time;

    LoadClient(int index, Latency latency, LoadWorkload workload) {
        this.latency = latency;
        this.workload = workload;
        this.random = new SplittableRandom(index);
    }

    /** Records later delays into {@code next}; a state in flight is timed into the new one. */
    void recordInto(Latency next) {
        latency = next;
    }

    /**
     * Connects {@code sessions} clients to the load application, {@code batch} at a time, each batch
     * sending its hellos and waiting for the welcomes before the next one opens (so at most {@code batch}
     * connections are in their handshake at once).
     */
    static List<LoadClient> connect(int port, int sessions, Latency latency, int batch) {
        return connect(port, sessions, latency, batch, LoadWorkload.point());
    }

    /** As {@link #connect(int, int, Latency, int)}, the clients asking for {@code workload}'s requests. */
    static List<LoadClient> connect(int port, int sessions, Latency latency, int batch, LoadWorkload workload) {
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create("ws://127.0.0.1:" + port + "/" + LoadApp.APP);
        List<LoadClient> clients = new ArrayList<>();
        for (int from = 0; from < sessions; from += batch) {
            List<CompletableFuture<WebSocket>> opening = new ArrayList<>();
            List<LoadClient> made = new ArrayList<>();
            for (int i = from; i < Math.min(sessions, from + batch); i++) {
                LoadClient c = new LoadClient(i, latency, workload);
                made.add(c);
                opening.add(http.newWebSocketBuilder().buildAsync(uri, c));
            }
            for (int k = 0; k < opening.size(); k++) {
                WebSocket ws = opening.get(k).orTimeout(30, TimeUnit.SECONDS).join();
                made.get(k).link = new Link() {
                    @Override
                    public void sendText(String text) {
                        ws.sendText(text, true);
                    }

                    @Override
                    public void abort() {
                        ws.abort();
                    }
                };
                ws.sendText(ControlCodec.encode(ControlMessage.Hello.of(LoadApp.APP, LoadApp.CACHE)), true).join();
            }
            for (LoadClient c : made) {
                String first = c.welcome.orTimeout(30, TimeUnit.SECONDS).join();
                if (!first.contains("\"welcome\"")) {
                    throw new IllegalStateException("session refused: " + first);
                }
            }
            clients.addAll(made);
        }
        return clients;
    }

    /**
     * As {@link #connect(int, int, Latency, int, LoadWorkload)} on raw sockets: client {@code i}
     * connects from {@code locals.get(i % locals.size())}, and each has a daemon thread that reads
     * its frames until the connection ends.
     *
     * @throws IOException if a connection is refused or the server's first message is not a welcome
     */
    static List<LoadClient> connectFrom(List<InetAddress> locals, int port, int sessions, Latency latency, int batch,
                                        LoadWorkload workload) throws IOException {
        List<LoadClient> clients = new ArrayList<>();
        try {
            for (int from = 0; from < sessions; from += batch) {
                List<LoadClient> made = new ArrayList<>();
                List<RawWebSocket> opened = new ArrayList<>();
                for (int i = from; i < Math.min(sessions, from + batch); i++) {
                    LoadClient c = new LoadClient(i, latency, workload);
                    RawWebSocket raw = RawWebSocket.open(locals.get(i % locals.size()), port, "/" + LoadApp.APP);
                    c.link = new RawLink(raw);
                    clients.add(c);
                    made.add(c);
                    opened.add(raw);
                    raw.sendText(ControlCodec.encode(ControlMessage.Hello.of(LoadApp.APP, LoadApp.CACHE)));
                }
                for (int k = 0; k < made.size(); k++) {
                    RawWebSocket.Frame first = opened.get(k).readMessage(30_000);
                    if (first == null || first.opcode() != RawWebSocket.Frame.TEXT
                            || !first.text().contains("\"welcome\"")) {
                        throw new Refused("healthy session " + (from + k) + " of " + sessions + " refused: "
                                + (first == null ? "no answer in 30 s"
                                : first.opcode() == RawWebSocket.Frame.TEXT ? first.text()
                                : "closed with " + first.closeStatus()));
                    }
                    LoadClient c = made.get(k);
                    RawWebSocket raw = opened.get(k);
                    Thread reader = new Thread(null, () -> c.read(raw), READER_THREAD + (from + k), READER_STACK_BYTES);
                    reader.setDaemon(true);
                    reader.start();
                }
            }
        } catch (IOException | RuntimeException e) {
            close(clients);
            throw e;
        }
        return clients;
    }

    /** The server did not welcome a session: what it answered instead, in one line. */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** Sends through a raw socket; a failed send shows as the connection's end in the reader. */
    private record RawLink(RawWebSocket raw) implements Link {
        @Override
        public void sendText(String text) {
            try {
                raw.sendText(text);
            } catch (IOException e) {
                raw.close();
            }
        }

        @Override
        public void abort() {
            raw.close();
        }
    }

    /** Reads {@code raw}'s frames until it ends: blocks are counted and timed, a close frame recorded. */
    private void read(RawWebSocket raw) {
        try {
            while (true) {
                RawWebSocket.Frame f = raw.readFrame(0);
                if (f == null) {
                    continue;
                }
                if (f.opcode() == RawWebSocket.Frame.BINARY) {
                    bytes.addAndGet(f.payload().length);
                    if (latency != null) {
                        onBlock(BlockFrame.readHeader(ByteBuffer.wrap(f.payload())).requestId());
                    }
                } else if (f.opcode() == RawWebSocket.Frame.CLOSE) {
                    closeStatus = f.closeStatus();
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            if (closeStatus < 0 && !aborted) {
                closeStatus = 1006;
            }
        } finally {
            raw.close();
        }
    }

    /**
     * Starts one thread that makes every client send a state every 150 ms, or every 5 slots at
     * {@code rate} bytes/s when slots are longer (so a state can show at all), the clients spread evenly
     * over the interval; states sent before {@code recordFrom} (nanoTime) are not timed. Stop it with
     * {@code shutdownNow()}.
     */
    static ScheduledExecutorService sendStates(List<LoadClient> clients, long recordFrom, double rate) {
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "load-states");
            t.setDaemon(true);
            return t;
        });
        long interval = stateIntervalMillis(rate);
        for (int i = 0; i < clients.size(); i++) {
            LoadClient c = clients.get(i);
            ticker.scheduleAtFixedRate(() -> c.sendState(recordFrom), (interval * i) / clients.size(), interval,
                    TimeUnit.MILLISECONDS);
        }
        return ticker;
    }

    /** 150 ms, or 5 slots of one block frame at {@code rate} bytes/s when that is longer. */
    static long stateIntervalMillis(double rate) {
        return Math.max(150, (long) Math.ceil(5 * LoadApp.FRAME_BYTES / rate * 1000));
    }

    /** Drops every client's connection at once. */
    static void close(List<LoadClient> clients) {
        for (LoadClient c : clients) {
            c.aborted = true;
            Link l = c.link;
            if (l != null) {
                l.abort();
            }
        }
    }

    static long totalBytes(List<LoadClient> clients) {
        long sum = 0;
        for (LoadClient c : clients) {
            sum += c.bytes.get();
        }
        return sum;
    }

    /**
     * Sends a state for a random request of the workload; a state sent before {@code recordFrom} (warm-up) is not timed,
     * and a state superseded before any block of its request arrived counts as missed.
     */
    synchronized void sendState(long recordFrom) {
        if (target >= 0 && sentNanos >= recordFrom) {
            latency.missed().incrementAndGet();
        }
        target = random.nextInt(workload.requests());
        sentNanos = System.nanoTime();
        link.sendText("{\"type\":\"state\",\"time\":" + (++time) + ",\"state\":" + workload.pointState(target) + "}");
        if (sentNanos < recordFrom) {
            target = -1 - target;
        }
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        webSocket.request(Long.MAX_VALUE);
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
        bytes.addAndGet(data.remaining());
        if (latency != null) {
            if (frame.remaining() >= data.remaining()) {
                frame.put(data);
            }
            if (last) {
                frame.flip();
                int requestId = BlockFrame.readHeader(frame).requestId();
                frame.clear();
                onBlock(requestId);
            }
        }
        return null;
    }

    private synchronized void onBlock(int requestId) {
        if (requestId == target) {
            long d = System.nanoTime() - sentNanos;
            Histogram h = latency.delays();
            synchronized (h) {
                h.recordValue(Math.min(d, h.getHighestTrackableValue()));
            }
            target = -1;
        } else if (target < -1 && requestId == -1 - target) {
            target = -1;
        }
    }

    @Override
    public synchronized CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        if (!welcome.isDone()) {
            text.append(data);
            if (last) {
                welcome.complete(text.toString());
                text.setLength(0);
            }
        }
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closeStatus = statusCode;
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        if (closeStatus < 0) {
            closeStatus = 1006;
        }
    }
}
