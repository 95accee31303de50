package dev.khameleon.loadtest.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.store.FileBlockStore;
import dev.khameleon.store.StoreStats;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replays recorded block streams against one store: {@code sessions} senders, each keeping at most
 * {@code depth} fetches in flight and announcing each 100-slot chunk to
 * {@link FileBlockStore#prefetch} one chunk before it starts fetching it (the server announces a
 * chunk when it is planned, ahead of the sender). Session {@code s} of {@code S} plays recorded
 * users {@code s, s + S, s + 2S, ...} back to back, so few sessions still never repeat a block
 * stream. Completions are handed to a two-thread driver pool, so no strategy runs the driver on
 * its I/O threads.
 *
 * <p>Closed loop ({@code slotNanos == 0}): a sender issues its next fetch as soon as one completes,
 * so the store runs saturated and latency is the time from fetch to completion. Paced
 * ({@code slotNanos > 0}): sender {@code s} wants slot {@code p} at {@code origin + phase(s) + p ×
 * slotNanos}, as a Khameleon session sends one block per slot, and latency is measured from that
 * due time (a fetch held back because {@code depth} were in flight counts as late).
 */
final class Replay {
    static final int CHUNK = 100;

    /** What one run measured. */
    record Result(int sessions, double seconds, long blocks, long errors, Histogram latencyNanos, StoreStats before,
            StoreStats after, int blockSize, long cpuNanos) {
        double mbPerSecond() {
            return blocks * (double) blockSize / seconds / 1e6;
        }

        double blocksPerSecond() {
            return blocks / seconds;
        }

        double diskMbPerSecond() {
            return (after.bytesRead() - before.bytesRead()) / seconds / 1e6;
        }

        /** Process CPU time per block served (driver included), microseconds: efficiency that CPU sharing cannot hide. */
        double cpuMicrosPerBlock() {
            return cpuNanos / 1e3 / Math.max(1, blocks);
        }

        double readsPerSecond() {
            return (after.readCalls() - before.readCalls()) / seconds;
        }
    }

    private final RecordedSchedules schedules;

    Replay(RecordedSchedules schedules) {
        this.schedules = schedules;
    }

    Result run(FileBlockStore store, int sessions, int depth, double warmupSeconds, double measureSeconds,
            long slotNanos) throws InterruptedException {
        int perUser = schedules.length();
        int streamsPerSession = Math.max(1, schedules.users() / sessions);
        long streamLength = (long) streamsPerSession * perUser;
        ThreadPoolExecutor driver = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(2 * sessions * depth + 16), r -> {
                    Thread t = new Thread(r, "store-bench-driver");
                    t.setDaemon(true);
                    return t;
                });
        ConcurrentHistogram latency = new ConcurrentHistogram(3);
        AtomicLong measured = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicInteger outstanding = new AtomicInteger();
        ScheduledThreadPoolExecutor pacer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "store-bench-pacer");
            t.setDaemon(true);
            return t;
        });
        long start = System.nanoTime();
        long warmEnd = start + (long) (warmupSeconds * 1e9);
        long end = warmEnd + (long) (measureSeconds * 1e9);
        Session[] all = new Session[sessions];

        final class Sender {
            /** Issues the session's next fetch (closed loop); the caller has already counted it as outstanding. */
            void issue(Session s) {
                long pos;
                synchronized (s) {
                    pos = s.next++;
                }
                issue(s, pos, System.nanoTime());
            }

            /** Paced: issues the session's next fetch if fewer than depth are in flight, and schedules the one after. */
            void tick(Session s) {
                long pos;
                synchronized (s) {
                    if (s.inFlight >= depth) {
                        s.blocked = true;
                        return;
                    }
                    s.inFlight++;
                    pos = s.next++;
                }
                outstanding.incrementAndGet();
                // On the driver, like closed-loop fetches: a pool hit is served on the calling thread,
                // which must not be the single pacer thread.
                long due = due(s, pos);
                driver.execute(() -> issue(s, pos, due));
                long next = due(s, pos + 1);
                if (next < end) {
                    pacer.schedule(() -> tick(s), next - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
            }

            long due(Session s, long pos) {
                return start + (long) s.index * slotNanos / sessions + pos * slotNanos;
            }

            /** Fetches position {@code pos}; latency is measured from {@code t0}. */
            void issue(Session s, long pos, long t0) {
                try {
                    if (pos % CHUNK == 0) {
                        announce(s, pos + CHUNK);
                    }
                    int user = s.user(pos);
                    int k = (int) ((pos % streamLength) % perUser);
                    store.fetch(schedules.request(user, k), schedules.block(user, k))
                            .whenCompleteAsync((Block b, Throwable e) -> completed(s, t0, e), driver);
                } catch (RuntimeException e) {
                    failed(e);
                    done();
                }
            }

            void completed(Session s, long t0, Throwable e) {
                long t1 = System.nanoTime();
                try {
                    if (t0 >= warmEnd && t1 <= end) {
                        latency.recordValue(t1 - t0);
                        if (e == null) {
                            measured.incrementAndGet();
                        }
                    }
                    if (e != null) {
                        failed(e);
                    }
                    if (slotNanos > 0) {
                        boolean resume;
                        synchronized (s) {
                            s.inFlight--;
                            resume = s.blocked;
                            s.blocked = false;
                        }
                        if (resume && t1 < end) {
                            tick(s);
                        }
                    } else if (t1 < end) {
                        outstanding.incrementAndGet();
                        issue(s);
                    }
                } catch (RuntimeException x) {
                    failed(x);
                } finally {
                    done();
                }
            }

            void failed(Throwable e) {
                if (errors.getAndIncrement() == 0) {
                    System.err.println("first fetch error: " + e);
                }
            }

            void done() {
                outstanding.decrementAndGet();
            }

            void announce(Session s, long from) {
                int n = CHUNK;
                int[] r = new int[n];
                int[] b = new int[n];
                for (int i = 0; i < n; i++) {
                    long pos = from + i;
                    int user = s.user(pos);
                    int k = (int) ((pos % streamLength) % perUser);
                    r[i] = schedules.request(user, k);
                    b[i] = schedules.block(user, k);
                }
                store.prefetch(ScheduleChunk.of(from, r, b));
            }
        }
        Sender sender = new Sender();
        StoreStats before = null;
        for (int s = 0; s < sessions; s++) {
            all[s] = new Session(s, sessions, perUser, streamLength, schedules.users());
            sender.announce(all[s], 0);
        }
        if (slotNanos > 0) {
            for (Session s : all) {
                pacer.schedule(() -> sender.tick(s), sender.due(s, 0) - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
        } else {
            outstanding.addAndGet(sessions * depth);
            for (Session s : all) {
                for (int d = 0; d < depth; d++) {
                    driver.execute(() -> sender.issue(s));
                }
            }
        }
        long now;
        while ((now = System.nanoTime()) < warmEnd) {
            TimeUnit.NANOSECONDS.sleep(warmEnd - now);
        }
        before = store.stats();
        long cpuBefore = processCpuNanos();
        while ((now = System.nanoTime()) < end) {
            TimeUnit.NANOSECONDS.sleep(end - now);
        }
        StoreStats after = store.stats();
        long cpu = processCpuNanos() - cpuBefore;
        pacer.shutdownNow();
        pacer.awaitTermination(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (outstanding.get() > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("fetches still outstanding 60 s after the run: " + outstanding.get());
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        driver.shutdown();
        driver.awaitTermination(10, TimeUnit.SECONDS);
        return new Result(sessions, measureSeconds, measured.get(), errors.get(), latency, before, after,
                store.blockSize(), cpu);
    }

    private static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    private static final class Session {
        final int index;
        final int sessions;
        final int perUser;
        final long streamLength;
        final int users;
        long next;
        /** Paced mode: fetches in flight, and whether a due slot waits for one of them to complete. */
        int inFlight;
        boolean blocked;

        Session(int index, int sessions, int perUser, long streamLength, int users) {
            this.index = index;
            this.sessions = sessions;
            this.perUser = perUser;
            this.streamLength = streamLength;
            this.users = users;
        }

        int user(long pos) {
            long p = pos % streamLength;
            return (int) ((index + (p / perUser) * sessions) % users);
        }
    }
}
