package dev.khameleon.client;

import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.khameleon.client.Blocks.block;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheManagerTest {
    private final AtomicLong clock = new AtomicLong();
    private final RingBufferCache cache = new RingBufferCache(16);
    private final CacheManager manager = CacheManager.builder(cache).clock(clock::get).build();
    private long seq;

    private void arrive(int request, int index, int count) {
        manager.onBlock(seq++, block(request, index, count));
    }

    @Test
    void register_withBlockCached_upcallsImmediately() {
        arrive(3, 0, 2);
        List<Response> got = new ArrayList<>();
        assertTrue(manager.register(3, got::add));
        assertEquals(1, got.size());
        assertEquals(0.5, got.get(0).utility(), 1e-12);
        ClientMetrics m = manager.metrics();
        assertEquals(1.0, m.hitRate());
        assertEquals(0.0, m.latencyMillis(50));
    }

    @Test
    void register_withoutBlock_upcallsWhenFirstBlockArrives() {
        List<Response> got = new ArrayList<>();
        assertFalse(manager.register(4, got::add));
        arrive(4, 1, 3);
        assertEquals(0, got.size(), "block 1 alone is not a usable answer");
        clock.set(TimeUnit.MILLISECONDS.toNanos(40));
        arrive(4, 0, 3);
        assertEquals(1, got.size());
        assertEquals(2, got.get(0).blocks().size());
        ClientMetrics m = manager.metrics();
        assertEquals(0.0, m.hitRate());
        assertEquals(40.0, m.latencyMillis(50), 0.1);
        assertEquals(2.0 / 3, m.meanUtilityAtFirstUpcall(), 1e-12);
    }

    @Test
    void progressiveUpcalls_untilComplete_thenConvergenceRecorded() {
        List<Response> got = new ArrayList<>();
        manager.register(5, got::add);
        for (int b = 0; b < 4; b++) {
            clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
            arrive(5, b, 4);
        }
        assertEquals(4, got.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, got.get(i).blocks().size());
        }
        assertTrue(got.get(3).isComplete());
        assertEquals(0, manager.activeRegistrations());
        arrive(5, 0, 4);
        assertEquals(4, got.size(), "a complete registration gets no further upcall");
        ClientMetrics m = manager.metrics();
        assertEquals(40.0, m.convergenceMillis(50), 0.1);
        assertEquals(4, m.upcalls());
        assertEquals(1, m.overPush(), "the duplicate block 0 was never used");
    }

    @Test
    void newerRequest_preemptsOlderOnesWithoutUpcall() {
        List<Response> old = new ArrayList<>();
        List<Response> answered = new ArrayList<>();
        arrive(1, 0, 2);
        manager.register(1, answered::add);     // hit: answered, keeps improving
        manager.register(2, old::add);          // miss: no upcall yet
        manager.register(3, r -> { });          // preempts request 2
        arrive(2, 0, 1);
        arrive(1, 1, 2);
        assertEquals(0, old.size(), "a preempted request never gets an upcall");
        assertEquals(2, answered.size(), "an answered request keeps improving");
        ClientMetrics m = manager.metrics();
        assertEquals(1, m.preempted());
        assertEquals(1.0 / 3, m.preemptedFraction(), 1e-12);
    }

    @Test
    void throwingUpcall_isContainedAndCounted() {
        List<Response> other = new ArrayList<>();
        manager.register(1, r -> {
            throw new IllegalStateException("application bug");
        });
        arrive(1, 0, 2);          // must not throw into the writer
        arrive(1, 1, 2);
        manager.register(2, other::add);
        arrive(2, 0, 1);
        assertEquals(1, other.size(), "other requests keep working");
        assertEquals(2, manager.metrics().upcallFailures());
    }

    @Test
    void upcallsOnAnExecutor_comeInOrderOfGrowingPrefix() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            CacheManager m = CacheManager.builder(new RingBufferCache(64)).upcallExecutor(executor)
                    .utility(UtilityFunction.linear()).build();
            int count = 40;
            CountDownLatch complete = new CountDownLatch(1);
            List<Integer> sizes = java.util.Collections.synchronizedList(new ArrayList<>());
            m.register(9, r -> {
                sizes.add(r.blocks().size());
                if (r.isComplete()) {
                    complete.countDown();
                }
            });
            for (int b = 0; b < count; b++) {
                m.onBlock(b, block(9, b, count));
            }
            assertTrue(complete.await(10, TimeUnit.SECONDS));
            for (int i = 1; i < sizes.size(); i++) {
                assertTrue(sizes.get(i) > sizes.get(i - 1), "prefixes grow: " + sizes);
            }
            assertEquals(count, (int) sizes.get(sizes.size() - 1));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void activeRegistrations_areBounded() {
        CacheManager m = CacheManager.builder(new RingBufferCache(8)).maxActiveRegistrations(3).build();
        long s = 0;
        for (int q = 0; q < 10; q++) {
            m.onBlock(s++, block(q, 0, 5));
            m.register(q, r -> { });
        }
        assertEquals(3, m.activeRegistrations());
    }

    @Test
    void reset_keepsRegistrations_answersPastWhatWasDelivered() {
        List<Response> got = new ArrayList<>();
        arrive(1, 0, 3);
        manager.register(1, got::add);
        manager.reset(100);
        seq = 100;
        arrive(1, 0, 3);
        assertEquals(1, got.size(), "the same prefix again is no news");
        arrive(1, 1, 3);
        assertEquals(2, got.size());
    }
}
