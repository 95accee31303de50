package dev.khameleon.simulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.net.MahimahiTrace;
import org.junit.jupiter.api.Test;

/** The bottleneck on its own clock: rate, Mahimahi schedule, lost idle capacity, queue room. */
class BottleneckTest {
    private static final long MS = 1_000_000L;

    @Test
    void fixedRate_deliversItsRateOverEveryIntervalWithinOnePacket() {
        double rate = 5.625e6;
        Bottleneck b = new Bottleneck(DeliverySchedule.fixed(rate), 100_000_000);
        b.offer(50_000_000, 0);
        long departed = 0;
        for (long t = 0; t <= 2_000 * MS; t += 3 * MS / 2) {
            departed += b.drain(t);
            double expected = rate * t / 1e9;
            assertTrue(Math.abs(departed - expected) <= MahimahiTrace.PACKET_BYTES,
                    "at " + t + " ns: " + departed + " bytes, rate says " + expected);
        }
        assertEquals(departed, b.departedBytes());
    }

    @Test
    void mahimahi_followsTheTraceOpportunityByOpportunityAndLoops() {
        MahimahiTrace trace = MahimahiTrace.of("t", 1, 1, 3, 10);
        Bottleneck b = new Bottleneck(DeliverySchedule.mahimahi(trace), 1_000_000);
        b.offer(100_000, 0);
        assertEquals(MS, b.nextDepartureNanos());
        long[][] expect = {{0, 0}, {1, 3000}, {2, 3000}, {3, 4500}, {9, 4500}, {10, 6000}, {11, 9000}, {13, 10500},
            {20, 12000}};
        long total = 0;
        for (long[] e : expect) {
            total += b.drain(e[0] * MS);
            assertEquals(e[1], total, "at " + e[0] + " ms");
        }
        assertEquals(20 * MS, b.lastDepartureNanos());
        assertEquals(21 * MS, b.nextDepartureNanos());
    }

    @Test
    void idleCapacityIsLost_aQueueFilledLateDrainsAtTheRateFromThen() {
        double rate = 1e6;
        Bottleneck b = new Bottleneck(DeliverySchedule.fixed(rate), 10_000_000);
        assertEquals(0, b.drain(1_000 * MS));
        b.offer(1_000_000, 1_000 * MS);
        long out = b.drain(1_010 * MS);
        assertTrue(Math.abs(out - 10_000) <= MahimahiTrace.PACKET_BYTES, "10 ms at 1 MB/s gave " + out);
    }

    @Test
    void aPartPacketLeavesAtOneOpportunity_andTheRestOfThatPacketIsLost() {
        MahimahiTrace trace = MahimahiTrace.of("t", 1, 2, 3, 4);
        Bottleneck b = new Bottleneck(DeliverySchedule.mahimahi(trace), 1_000_000);
        b.offer(100, 0);
        assertEquals(100, b.drain(MS));
        b.offer(100, MS);
        assertEquals(2 * MS, b.nextDepartureNanos());
        assertEquals(100, b.drain(2 * MS));
    }

    @Test
    void room_isTheBoundLessWhatIsQueued() {
        Bottleneck b = new Bottleneck(DeliverySchedule.fixed(1e6), 64_000);
        b.offer(60_000, 0);
        assertEquals(4_000, b.room());
        assertEquals(60_000, b.maxQueuedBytes());
        assertThrows(IllegalArgumentException.class, () -> new Bottleneck(DeliverySchedule.fixed(1e6), 100));
    }
}
