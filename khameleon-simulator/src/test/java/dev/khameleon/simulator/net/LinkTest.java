package dev.khameleon.simulator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.khameleon.testing.SharedData;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LinkTest {
    private static final long MS = 1_000_000L;

    @Test
    void fixed_transmitsAtTheRateBehindEarlierBytes() {
        Link link = Link.fixed(1e6);
        assertEquals(100 * MS, link.transmit(0, 100_000));
        assertEquals(150 * MS, link.transmit(10 * MS, 50_000), "queued behind the first message");
        assertEquals(500 * MS, link.transmit(400 * MS, 100_000), "idle link starts at once");
        assertThrows(IllegalArgumentException.class, () -> Link.fixed(0));
        assertThrows(IllegalArgumentException.class, () -> Link.fixed(Double.POSITIVE_INFINITY));
    }

    @Test
    void mahimahi_usesEachOpportunityForOnePacketAndLoops() {
        // Two packets at 0 ms, one at 1, one at 3, one at 5; period 5 ms.
        MahimahiTrace trace = MahimahiTrace.of("t", 0, 0, 1, 3, 5);
        Link link = Link.mahimahi(trace);
        assertEquals(0, link.transmit(0, 3000), "two packets in millisecond 0");
        assertEquals(1 * MS, link.transmit(0, 1000), "the next packet, partly used");
        assertEquals(1 * MS, link.transmit(0, 500), "fills the rest of that packet");
        assertEquals(5 * MS, link.transmit(0, 1501), "packets at 3 and 5 ms");
        // Opportunities 5 (=0+5), 5, 6, 8, 10 in the second loop; the spare 1499 bytes at 5 ms
        // went out before this message was ready, and the idle opportunities at 5 and 6 are lost.
        assertEquals(8 * MS, link.transmit(7 * MS, 1500));
        assertEquals(10 * MS, link.transmit(7 * MS, 1));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void mahimahi_backloggedLinkDeliversExactlyTheTraceBytes(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] opps = new long[200];
        for (int i = 1; i < opps.length; i++) {
            opps[i] = opps[i - 1] + random.nextInt(3);
        }
        opps[opps.length - 1] += 1;
        MahimahiTrace trace = MahimahiTrace.of("random", opps);
        Link link = Link.mahimahi(trace);
        long total = 0;
        long end = 0;
        for (int m = 0; m < 300; m++) {
            long bytes = 1 + random.nextInt(5000);
            total += bytes;
            end = link.transmit(0, bytes);
            long packets = (total + MahimahiTrace.PACKET_BYTES - 1) / MahimahiTrace.PACKET_BYTES;
            assertEquals(trace.opportunityMillis(packets - 1) * MS, end,
                    "after " + total + " bytes the link must have used exactly " + packets + " opportunities");
        }
        assertEquals(end, link.busyUntilNanos());
    }

    @Test
    void mahimahi_realTraceMeanRateMatchesTheDataReadme() {
        MahimahiTrace t = MahimahiTrace.read(SharedData.require("network/mahimahi/Verizon-LTE-short.down"));
        // README: 5.0 Mbps downlink over 140 s.
        assertEquals(5.0, t.meanBytesPerSecond() * 8 / 1e6, 0.3);
        assertEquals(140, t.periodMillis() / 1000.0, 2);
        Link link = Link.mahimahi(t);
        long bytes = (long) t.size() * MahimahiTrace.PACKET_BYTES;
        assertEquals(t.periodMillis() * MS, link.transmit(0, bytes), "one loop's bytes take one loop");
    }

    @Test
    void mahimahi_rejectsMalformedTraces() {
        assertThrows(IllegalArgumentException.class, () -> MahimahiTrace.of("e"));
        assertThrows(IllegalArgumentException.class, () -> MahimahiTrace.of("d", 3, 2));
        assertThrows(IllegalArgumentException.class, () -> MahimahiTrace.of("z", 0, 0));
    }
}
