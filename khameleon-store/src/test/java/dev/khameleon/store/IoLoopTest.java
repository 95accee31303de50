package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The I/O threads: started by start(), not by the constructor, and gone after join(). */
class IoLoopTest {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Queue<Runnable> jobs = new ArrayDeque<>();
    private boolean stopped;

    private IoLoop<Runnable> loop(int threads) {
        return new IoLoop<>(lock, work, "io-loop-test-", threads, new IoLoop.Jobs<>() {
            @Override
            public Runnable next() {
                return jobs.poll();
            }

            @Override
            public boolean stopped() {
                return stopped;
            }

            @Override
            public Runnable run(Runnable job) {
                job.run();
                return null;
            }
        });
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void constructorStartsNoThread_startRunsJobs_joinLeavesNone() throws Exception {
        IoLoop<Runnable> loop = loop(3);
        assertEquals(0, threadsNamed("io-loop-test-"), "no thread before start()");
        loop.start();
        CountDownLatch ran = new CountDownLatch(5);
        lock.lock();
        try {
            for (int i = 0; i < 5; i++) {
                jobs.add(ran::countDown);
            }
            work.signalAll();
        } finally {
            lock.unlock();
        }
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        assertThrows(IllegalStateException.class, loop::start);
        lock.lock();
        try {
            stopped = true;
            work.signalAll();
        } finally {
            lock.unlock();
        }
        loop.join();
        assertEquals(0, threadsNamed("io-loop-test-"));
    }
}
