package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The I/O threads: started by start(), not by the constructor, and gone after join(); a job may hand over the next. */
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
        stopAndJoin(loop);
        assertEquals(0, threadsNamed("io-loop-test-"));
    }

    @Test
    void aJobThatReturnsTheNextOne_isFollowedByIt_withoutAskingTheQueue() throws Exception {
        int chain = 5;
        CountDownLatch ran = new CountDownLatch(chain);
        AtomicInteger asked = new AtomicInteger();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        IoLoop<Integer> loop = new IoLoop<>(lock, work, "io-loop-chain-", 1, new IoLoop.Jobs<>() {
            private boolean given;

            @Override
            public Integer next() {
                asked.incrementAndGet();
                if (given) {
                    return null;
                }
                given = true;
                return 1;
            }

            @Override
            public boolean stopped() {
                return stopped;
            }

            @Override
            public Integer run(Integer job) {
                order.add(Thread.currentThread().getName() + ":" + job);
                ran.countDown();
                return job < chain ? job + 1 : null;
            }
        });
        loop.start();
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        stopAndJoin(loop);
        assertEquals(List.of("io-loop-chain-1:1", "io-loop-chain-1:2", "io-loop-chain-1:3",
                "io-loop-chain-1:4", "io-loop-chain-1:5"), order);
        assertTrue(asked.get() <= 3, "the queue was asked " + asked.get() + " times for a chain of " + chain);
    }

    private void stopAndJoin(IoLoop<?> loop) {
        lock.lock();
        try {
            stopped = true;
            work.signalAll();
        } finally {
            lock.unlock();
        }
        loop.join();
    }
}
