package dev.khameleon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/** A server's push engine without a connection, on a virtual clock, as the simulator drives it. */
class VirtualSessionTest {
    private record Event(long at, long order, Runnable task) {
    }

    /** A virtual clock and event queue, a link that is always writable, and a record of what was sent. */
    private static final class Host implements VirtualSession.Host {
        long now;
        long order;
        final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
                : Long.compare(a.order, b.order));
        final List<Long> seqs = new ArrayList<>();
        final List<Integer> ids = new ArrayList<>();
        final List<Long> jobCharges = new ArrayList<>();
        ErrorCode closed;

        @Override
        public void at(long atNanos, Runnable task) {
            assertTrue(atNanos >= now, "never in the past");
            events.add(new Event(atNanos, order++, task));
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void send(long seq, Block block, int frameBytes) {
            seqs.add(seq);
            ids.add(block.requestId());
        }

        @Override
        public long jobNanos(long measuredNanos, boolean decodedState, int blocks) {
            long charge = decodedState ? 500_000 : 100_000;
            jobCharges.add(charge);
            return charge;
        }

        @Override
        public void closed(ErrorCode code, String message) {
            closed = code;
        }

        void runUntil(long t) {
            while (!events.isEmpty() && events.peek().at <= t) {
                Event e = events.poll();
                now = e.at;
                e.task.run();
            }
            now = t;
        }
    }

    private static KhameleonServer server(Host host) {
        Application app = Application.builder("v").path("/v").blockSource(TestApps.inMemory(20, 3, 500))
                .predictor(state -> Distribution.point(20, state.get("cell").asInt(), 50, 150, 250, 500))
                .waitForState(true).build();
        return KhameleonServer.builder().application(app).clock(() -> host.now).seed(3).fixedBytesPerSecond(1e7)
                .build();
    }

    @Test
    void aState_isPlannedAfterTheJobsVirtualTime_andItsBlocksGoOutInRingOrder() {
        Host host = new Host();
        VirtualSession s = VirtualSession.open(server(host), "/v", 50, host);
        host.now = 1_000_000;
        s.onState(1, JsonNodeFactory.instance.objectNode().put("cell", 9));
        host.runUntil(1_499_999);
        assertTrue(host.seqs.isEmpty(), "nothing before the job's 0.5 ms are over");
        host.runUntil(10_000_000);
        assertEquals(List.of(0L, 1L, 2L), host.seqs.subList(0, 3));
        assertEquals(List.of(9, 9, 9), host.ids.subList(0, 3));
        assertEquals(500_000L, host.jobCharges.get(0), "the state's job was charged as a decoding job");
        assertEquals(host.seqs.size(), s.nextSeq());
    }

    @Test
    void badInput_closesTheSession_throughTheHost() {
        Host host = new Host();
        VirtualSession s = VirtualSession.open(server(host), "/v", 50, host);
        s.onRequest(0, 20, false);
        assertEquals(ErrorCode.INVALID_MESSAGE, host.closed);
    }

    @Test
    void open_refusesAnUnknownPathAndARingOutOfRange() {
        Host host = new Host();
        KhameleonServer server = server(host);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VirtualSession.open(server, "/nope", 50, host));
        assertEquals("no application at /nope; the server has [/v]", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VirtualSession.open(server, "/v", 0, host));
    }
}
