package dev.khameleon.loadtest.server;

import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the chosen {@link HostileKind}s against a server until {@link #close()}: one thread per client,
 * each reconnecting after its connection ends, counting what the server did to it. Thread-safe.
 */
final class HostileClients implements AutoCloseable {
    /** Requested by huge-cache clients: far above any sensible {@code maxCacheBlocks}. */
    static final int HUGE_CACHE_BLOCKS = 1 << 24;
    /** Sessions one max-cache client holds open at most. */
    static final int MAX_HELD = 40;
    /** How often a wide-forecast client sends a state: the server's default state interval. */
    static final long WIDE_STATE_MILLIS = 10;
    private static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([A-Za-z_]+)\"");

    private static final class Stats {
        final LongAdder connections = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder dropped = new LongAdder();
        final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

        void outcome(String name) {
            outcomes.computeIfAbsent(name, k -> new LongAdder()).increment();
        }

        HostileCounts snapshot() {
            Map<String, Long> o = new TreeMap<>();
            outcomes.forEach((k, v) -> o.put(k, v.sum()));
            return new HostileCounts(connections.sum(), refused.sum(), dropped.sum(), new TreeMap<>(o));
        }
    }

    private final int port;
    private final int maxCacheBlocks;
    private final boolean ownAddresses;
    private final LoadWorkload workload;
    private final String path = "/" + LoadApp.APP;
    private final Map<HostileKind, Stats> stats = new EnumMap<>(HostileKind.class);
    private final Set<RawWebSocket> open = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    /**
     * @param ownAddresses bind each kind to its own 127.0.0.x address (Linux routes all of 127/8 to
     *                     loopback); false binds every client to 127.0.0.1
     * @param workload     the application's: the states stalled readers and wide forecasts send
     * @throws IllegalArgumentException if {@code kinds} has wide forecasts and the workload no grid
     */
    HostileClients(int port, Set<HostileKind> kinds, int maxCacheBlocks, boolean ownAddresses, LoadWorkload workload) {
        if (kinds.contains(HostileKind.WIDE_FORECAST) && !workload.isGrid()) {
            throw new IllegalArgumentException("wide forecasts need a grid workload");
        }
        this.port = port;
        this.workload = workload;
        this.maxCacheBlocks = maxCacheBlocks;
        this.ownAddresses = ownAddresses;
        for (HostileKind kind : kinds) {
            stats.put(kind, new Stats());
        }
    }

    /** Starts every client thread. */
    void start() {
        for (HostileKind kind : stats.keySet()) {
            for (int w = 0; w < kind.clients; w++) {
                int worker = w;
                Thread t = new Thread(() -> run(kind, worker), "hostile-" + kind.option + "-" + w);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
    }

    /** What each kind saw so far. */
    Map<HostileKind, HostileCounts> counts() {
        Map<HostileKind, HostileCounts> out = new EnumMap<>(HostileKind.class);
        stats.forEach((k, s) -> out.put(k, s.snapshot()));
        return out;
    }

    /** Stops the clients: closes their sockets (which unblocks them) and waits up to 5 s for the threads. */
    @Override
    public void close() {
        stopped = true;
        for (RawWebSocket ws : open) {
            ws.close();
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        try {
            for (Thread t : threads) {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
        } catch (InterruptedException e) {
            // The sockets are closed, so the threads end on their own; the caller learns of the interrupt.
            Thread.currentThread().interrupt();
        }
    }

    private void run(HostileKind kind, int worker) {
        Stats s = stats.get(kind);
        ArrayDeque<RawWebSocket> held = new ArrayDeque<>();
        try {
            InetAddress local = InetAddress.getByName(ownAddresses ? kind.address(worker) : "127.0.0.1");
            while (!stopped) {
                RawWebSocket ws = null;
                try {
                    ws = RawWebSocket.open(local, port, path);
                    open.add(ws);
                    s.connections.increment();
                    if (behave(kind, ws, s, held)) {
                        ws = null; // held open on purpose
                    }
                } catch (RawWebSocket.RefusedException e) {
                    s.refused.increment();
                } catch (IOException e) {
                    if (!stopped) {
                        s.dropped.increment();
                    }
                } finally {
                    if (ws != null) {
                        open.remove(ws);
                        ws.close();
                    }
                }
                sleep(kind == HostileKind.PING_FLOOD || kind == HostileKind.STALLED_READER ? 200 : 100);
            }
        } catch (InterruptedException | IOException e) {
            // stopping, or 127.0.0.x is not usable: the thread ends
        } finally {
            for (RawWebSocket ws : held) {
                ws.close();
            }
        }
    }

    /** Plays one connection of {@code kind}; true if the connection is now held in {@code held}. */
    private boolean behave(HostileKind kind, RawWebSocket ws, Stats s, ArrayDeque<RawWebSocket> held)
            throws IOException, InterruptedException {
        switch (kind) {
            case PING_FLOOD -> {
                ws.sendText(hello(LoadApp.CACHE));
                byte[] payload = new byte[125];
                while (!stopped) {
                    ws.sendPing(payload);
                }
            }
            case NO_HELLO -> {
                long nextPing = 0;
                while (!stopped) {
                    if (System.nanoTime() >= nextPing) {
                        ws.sendPing(new byte[8]);
                        nextPing = System.nanoTime() + 1_000_000_000L;
                    }
                    if (record(ws.readMessage(200), s)) {
                        return false;
                    }
                }
            }
            case STALLED_READER -> {
                ws.sendText(hello(LoadApp.CACHE));
                for (long time = 1; !stopped; time++) {
                    ws.sendText("{\"type\":\"state\",\"time\":" + time + ",\"state\":"
                            + workload.pointState((int) (time * 7919 % workload.requests())) + "}");
                    Thread.sleep(150);
                }
            }
            case WIDE_FORECAST -> {
                ws.sendText(hello(LoadApp.CACHE));
                RawWebSocket.Frame first = ws.readMessage(5000);
                if (first == null || first.opcode() != RawWebSocket.Frame.TEXT || !first.text().contains("\"welcome\"")) {
                    record(first, s);
                    return false;
                }
                s.outcome("welcome");
                for (long time = 1; !stopped; time++) {
                    ws.sendText("{\"type\":\"state\",\"time\":" + time + ",\"state\":" + workload.wideState(time)
                            + "}");
                    // Reads what comes until the next state is due, so the session stays writable.
                    long until = System.nanoTime() + WIDE_STATE_MILLIS * 1_000_000;
                    for (long left = WIDE_STATE_MILLIS; left > 0 && !stopped;
                            left = (until - System.nanoTime()) / 1_000_000) {
                        RawWebSocket.Frame f = ws.readFrame((int) left);
                        boolean message = f != null && (f.opcode() == RawWebSocket.Frame.TEXT
                                || f.opcode() == RawWebSocket.Frame.CLOSE);
                        if (message && record(f, s)) {
                            return false;
                        }
                    }
                }
            }
            case HUGE_CACHE -> {
                ws.sendText(hello(HUGE_CACHE_BLOCKS));
                while (!stopped && !record(ws.readMessage(5000), s)) {
                    // read the error, then the close
                }
            }
            case MAX_CACHE -> {
                ws.sendText(hello(maxCacheBlocks));
                RawWebSocket.Frame first = ws.readMessage(5000);
                if (first != null && first.opcode() == RawWebSocket.Frame.TEXT && first.text().contains("\"welcome\"")) {
                    s.outcome("welcome");
                    held.add(ws);
                    if (held.size() > MAX_HELD) {
                        RawWebSocket oldest = held.poll();
                        open.remove(oldest);
                        oldest.close();
                    }
                    return true;
                }
                while (!stopped && !record(first, s)) {
                    first = ws.readMessage(5000);
                }
            }
            default -> throw new IllegalStateException(kind.toString());
        }
        return false;
    }

    /** Counts an error message or close frame; true when the connection is over (a close, or silence). */
    private static boolean record(RawWebSocket.Frame f, Stats s) {
        if (f == null) {
            return false;
        }
        if (f.opcode() == RawWebSocket.Frame.CLOSE) {
            s.outcome("close " + f.closeStatus());
            return true;
        }
        Matcher m = CODE.matcher(f.text());
        if (m.find()) {
            s.outcome("error " + m.group(1));
        }
        return false;
    }

    private static String hello(int cacheBlocks) {
        return ControlCodec.encode(ControlMessage.Hello.of(LoadApp.APP, cacheBlocks));
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }
}
