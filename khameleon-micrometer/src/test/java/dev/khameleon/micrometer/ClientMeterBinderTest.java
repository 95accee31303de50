package dev.khameleon.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.client.CacheManager;
import dev.khameleon.client.RingBufferCache;
import dev.khameleon.core.Block;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientMeterBinderTest {
    private final AtomicLong clock = new AtomicLong();
    private final CacheManager manager =
            CacheManager.builder(new RingBufferCache(16)).clock(clock::get).build();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private long seq;

    ClientMeterBinderTest() {
        new ClientMeterBinder(manager, Tags.of("app", "test")).bindTo(registry);
    }

    private void arrive(int request, int index, int count) {
        manager.onBlock(seq++, Block.of(request, index, count, new byte[] {(byte) request, (byte) index}, 0));
    }

    private double counter(String name) {
        return registry.get("khameleon.client." + name).tag("app", "test").functionCounter().count();
    }

    private double gauge(String name) {
        return registry.get("khameleon.client." + name).tag("app", "test").gauge().value();
    }

    @Test
    void beforeAnySample_countersAreZeroAndGaugesNaN() {
        assertEquals(0, counter("requests"));
        assertEquals(0, counter("blocks.received"));
        for (String g : new String[] {"hit.ratio", "preempted.ratio", "latency.mean", "latency.p50", "latency.p99",
            "utility.first", "convergence.p50", "overpush.ratio", "prediction.accuracy"}) {
            assertTrue(Double.isNaN(gauge(g)), g + " reads NaN without samples");
        }
    }

    @Test
    void metersFollowTheClientsMetrics() {
        arrive(3, 0, 2);
        manager.register(3, r -> { });                      // a hit
        manager.register(4, r -> { });                      // a miss, answered 40 ms later
        clock.set(TimeUnit.MILLISECONDS.toNanos(40));
        arrive(4, 0, 4);
        manager.recordPredictionAccuracy(0.25);

        assertEquals(2, counter("requests"));
        assertEquals(1, counter("hits"));
        assertEquals(2, counter("answered"));
        assertEquals(2, counter("blocks.received"));
        assertEquals(2, counter("blocks.used"));
        assertEquals(0.5, gauge("hit.ratio"), 1e-12);
        assertEquals(0.0, gauge("preempted.ratio"), 1e-12);
        assertEquals(40.0, gauge("latency.p99"), 0.1);
        assertEquals(20.0, gauge("latency.mean"), 0.1);
        assertEquals((0.5 + 0.25) / 2, gauge("utility.first"), 1e-12);
        assertEquals(0.0, gauge("overpush.ratio"), 1e-12);
        assertEquals(0.25, gauge("prediction.accuracy"), 1e-12);
        assertTrue(Double.isNaN(gauge("convergence.p50")), "no request complete yet");
        assertEquals("milliseconds", registry.get("khameleon.client.latency.p50").gauge().getId().getBaseUnit());
    }
}
