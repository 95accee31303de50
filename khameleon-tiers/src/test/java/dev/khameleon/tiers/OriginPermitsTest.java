package dev.khameleon.tiers;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The fleet's origin permits ({@link OriginPermits}) on a real redis-server, on a clock that advances
 * 11 s each time it is read, so every wait for a permit runs out at its first look.
 */
@Timeout(60)
class OriginPermitsTest {
    private final TierCounters counters = new TierCounters();
    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger runs = new AtomicInteger();
    private RedisTierRig rig;

    @AfterEach
    void stop() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    private CompletableFuture<String> work(String result) {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture(result);
    }

    @Test
    void permitsAllBusyForThePermitWait_failTheWorkWithoutRunningIt() throws Exception {
        rig = RedisTierRig.start("permits", () -> now.getAndAdd(TimeUnit.SECONDS.toNanos(11)), counters);
        // A lease of another node that outlives the test (score: expiry in Redis milliseconds).
        assertEquals(":1", rig.redis.command("ZADD", "permits:origin-permits", "99999999999999", "other-node:lease:1"));
        OriginPermits permits = rig.permits(1, Duration.ofSeconds(10));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> permits.withPermit(() -> work("computed")).get(20, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals("all 1 origin permits of namespace permits stayed busy for 10000 ms", e.getCause().getMessage());
        assertEquals(0, runs.get());
    }

    @Test
    void permitIsReturnedWhenTheWorkEnds() throws Exception {
        rig = RedisTierRig.start("permits", () -> now.getAndAdd(TimeUnit.SECONDS.toNanos(11)), counters);
        OriginPermits permits = rig.permits(1, Duration.ofSeconds(10));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        CompletableFuture<String> first = permits.withPermit(() -> gate.thenApply(x -> "first"));
        gate.complete(null);
        assertEquals("first", first.get(20, TimeUnit.SECONDS));
        // The lease's return was issued as the work ended, and one connection runs its commands in order:
        // the next acquisition finds the one permit free, where a busy one would fail at once.
        assertEquals("second", permits.withPermit(() -> work("second")).get(20, TimeUnit.SECONDS));
        assertEquals(1, runs.get());
    }

    @Test
    void withoutALimit_theWorkRunsAtOnceWithoutRedis() throws Exception {
        OriginPermits unlimited = new OriginPermits(null, new KeySpace(null, "node"), 0, Duration.ofSeconds(30),
                Duration.ofSeconds(10), null, counters);
        CompletableFuture<String> done = CompletableFuture.completedFuture("x");
        assertSame(done, unlimited.withPermit(() -> done));
    }
}
