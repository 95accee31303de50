package dev.khameleon.store;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The I/O threads of a {@link ReadAheadReader}: each takes the next job under the reader's lock,
 * runs it outside the lock, and sleeps on the lock's condition when there is nothing to do. The
 * threads start in {@link #start()}, never in the constructor, and are never interrupted (an
 * interrupt during a read would close the shared {@code FileChannel}).
 *
 * @param <J> a job, e.g. an extent to read
 */
final class IoLoop<J> {
    /** The work the threads do. */
    interface Jobs<J> {
        /** The next job, or null to sleep until signalled; called with the lock held. */
        J next();

        /** Whether the loop must stop; called with the lock held. */
        boolean stopped();

        /**
         * Runs a job; called without the lock. May return the next job, taken while it held the
         * lock for the job's own bookkeeping anyway (one lock acquisition per job instead of two),
         * or null to take the next one through {@link #next()}.
         */
        J run(J job);
    }

    private final ReentrantLock lock;
    private final Condition work;
    private final Jobs<J> jobs;
    private final Thread[] threads;
    private boolean started;

    IoLoop(ReentrantLock lock, Condition work, String namePrefix, int threadCount, Jobs<J> jobs) {
        this.lock = lock;
        this.work = work;
        this.jobs = jobs;
        this.threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            threads[i] = new Thread(this::loop, namePrefix + (i + 1));
            threads[i].setDaemon(true);
        }
    }

    /** Starts the threads. Call once. */
    void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        for (Thread t : threads) {
            t.start();
        }
    }

    int threadCount() {
        return threads.length;
    }

    private void loop() {
        J job = null;
        while (true) {
            if (job != null) {
                job = jobs.run(job);
                continue;
            }
            lock.lock();
            try {
                while (true) {
                    if (jobs.stopped()) {
                        return;
                    }
                    job = jobs.next();
                    if (job != null) {
                        break;
                    }
                    work.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Waits for every thread to return (after {@link Jobs#stopped()} became true and the
     * condition was signalled), keeping the caller's interrupt status. A thread of this loop
     * calling it does not wait for itself.
     */
    void join() {
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == Thread.currentThread()) {
                continue;
            }
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
