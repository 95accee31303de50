package dev.khameleon.tiers;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.testing.BalabitTraces;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients replaying real pointer traces at their recorded pace, one thread each, from one common
 * start: every sample is fed to its client's predictor, and every time the pointer enters a cell
 * of {@link GridNode#SCREEN} the client asks for that cell's response, counting a hit when its
 * ring already holds the response's first block. {@link #close()} stops the threads.
 */
final class TraceReplay implements AutoCloseable {
    /** The users whose sessions the clients replay (see {@link #traces}). */
    static final List<String> USERS = List.of("user7", "user9", "user12", "user15", "user16", "user21");
    /** Pauses longer than this are shortened to it: the replay spends its time on a moving pointer. */
    static final double MAX_GAP_MILLIS = 500;

    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger[] requests;
    private final AtomicInteger[] hits;
    private final List<Throwable> failures = new ArrayList<>();

    /**
     * The traces of {@code clients} clients: client {@code k} replays the first {@code millis} of
     * interaction of session {@code k / 6} of user {@code USERS[(k / 3 + 2 (k mod 3)) mod 6]},
     * {@code speed} times faster than recorded (so in {@code millis / speed}). Every six
     * consecutive clients replay sessions of the six users, and so do the clients {@code k} of one
     * residue mod 3, which {@code leastconn} gives to one node when they connect in turn: a node's
     * sessions come from every user. Skips the calling test when the traces are absent.
     */
    static List<List<BalabitTraces.Sample>> traces(int clients, double millis, double speed) throws IOException {
        Path balabit = BalabitTraces.directoryOrSkip();
        List<List<BalabitTraces.Sample>> out = new ArrayList<>();
        for (int k = 0; k < clients; k++) {
            Path session = BalabitTraces.session(balabit, user(k), k / USERS.size());
            out.add(BalabitTraces.active(BalabitTraces.read(session), MAX_GAP_MILLIS, millis).stream()
                    .map(s -> new BalabitTraces.Sample(s.timeMillis() / speed, s.x(), s.y())).toList());
        }
        return out;
    }

    /** The name of client {@code k}'s trace, {@code user#session index}. */
    static String traceName(int k) {
        return user(k) + "#" + k / USERS.size();
    }

    private static String user(int k) {
        return USERS.get((k / 3 + 2 * (k % 3)) % USERS.size());
    }

    /**
     * Starts replaying {@code traces.get(k)} through {@code clients.get(k)}, the traces' time 0 at
     * {@code startNanos} on {@link System#nanoTime()}.
     */
    TraceReplay(List<KhameleonClient<PointerEvent>> clients, List<List<BalabitTraces.Sample>> traces,
                long startNanos) {
        requests = new AtomicInteger[clients.size()];
        hits = new AtomicInteger[clients.size()];
        for (int k = 0; k < clients.size(); k++) {
            requests[k] = new AtomicInteger();
            hits[k] = new AtomicInteger();
            int client = k;
            Thread t = new Thread(() -> replay(clients.get(client), traces.get(client), startNanos, client),
                    "replay-" + k);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
    }

    private void replay(KhameleonClient<PointerEvent> client, List<BalabitTraces.Sample> trace, long startNanos,
                        int k) {
        try {
            int last = -1;
            for (BalabitTraces.Sample s : trace) {
                long wait = startNanos + (long) (s.timeMillis() * 1e6) - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the replay, not synchronising
                }
                client.onEvent(s.x(), s.y(), System.currentTimeMillis());
                int cell = GridNode.SCREEN.requestAt(s.x(), s.y());
                if (cell >= 0 && cell != last) {
                    last = cell;
                    requests[k].incrementAndGet();
                    if (client.request(cell, r -> { })) {
                        hits[k].incrementAndGet();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }

    /** Waits for every replay to end (at most {@code seconds}); fails if one failed or is late. */
    void join(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " still running after " + seconds + " s");
            }
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                throw new AssertionError("a replay failed", failures.get(0));
            }
        }
    }

    /** Cells client {@code k} entered, each a request. */
    int requests(int k) {
        return requests[k].get();
    }

    /** Of them, those its ring answered at once. */
    int hits(int k) {
        return hits[k].get();
    }

    @Override
    public void close() {
        for (Thread t : threads) {
            t.interrupt();
        }
        try {
            for (Thread t : threads) {
                t.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
