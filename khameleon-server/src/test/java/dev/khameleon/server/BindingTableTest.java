package dev.khameleon.server;

import dev.khameleon.core.Bindings;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BindingTableTest {
    private static Bindings bind(long... idKeyPairs) {
        Bindings.Builder b = Bindings.builder();
        for (int k = 0; k < idKeyPairs.length; k += 2) {
            b.bind((int) idKeyPairs[k], idKeyPairs[k + 1]);
        }
        return b.build();
    }

    @Test
    void unboundIds_answerTheirDefaultContentInGenerationZero() {
        BindingTable t = new BindingTable(10, 100);
        assertEquals(7, t.contentKey(7));
        assertEquals(0, t.generation(7));
    }

    @Test
    void apply_reportsNewChangedAndReleasedIds_withTheNextGeneration() {
        BindingTable t = new BindingTable(10, 100);
        BindingTable.Changes first = t.apply(bind(2, 20, 5, 50));
        assertArrayEquals(new int[] {2, 5}, first.requestIds());
        assertArrayEquals(new int[] {1, 1}, first.generations());
        assertEquals(50, t.contentKey(5));

        // 2 keeps its content, 5 changes, 8 is new, and nothing else is bound.
        BindingTable.Changes second = t.apply(bind(2, 20, 5, 51, 8, 80));
        assertArrayEquals(new int[] {5, 8}, second.requestIds());
        assertArrayEquals(new int[] {2, 2}, second.generations());
        assertEquals(1, t.generation(2), "an unchanged binding keeps its generation");
        assertEquals(2, t.generation(5));

        // A scope that no longer binds 2 and 8 sends them back to their default content.
        BindingTable.Changes third = t.apply(bind(5, 51));
        assertArrayEquals(new int[] {2, 8}, third.requestIds());
        assertArrayEquals(new int[] {0, 0}, third.generations());
        assertEquals(2, t.contentKey(2));
        assertEquals(0, t.generation(8));
        assertEquals(1, t.size());
    }

    @Test
    void apply_ofTheSameScope_changesNothingAndUsesNoGeneration() {
        BindingTable t = new BindingTable(10, 100);
        t.apply(bind(3, 30));
        assertTrue(t.apply(bind(3, 30)).isEmpty());
        assertArrayEquals(new int[] {2}, t.apply(bind(3, 31)).generations(),
                "the generation after an empty change is the next one, not one further");
    }

    @Test
    void apply_rejectsAnIdOutOfRange_andKeepsTheTable() {
        BindingTable t = new BindingTable(10, 100);
        t.apply(bind(3, 30));
        ProtocolException e = assertThrows(ProtocolException.class, () -> t.apply(bind(3, 31, 10, 100)));
        assertEquals(ErrorCode.INVALID_SCOPE, e.code());
        assertTrue(e.getMessage().contains("request 10, out of range [0, 10)"), e.getMessage());
        assertEquals(30, t.contentKey(3));
        assertEquals(1, t.generation(3));
    }

    @Test
    void apply_rejectsMoreBindingsThanTheLimit() {
        BindingTable t = new BindingTable(10, 2);
        t.apply(bind(1, 10, 2, 20));
        ProtocolException e = assertThrows(ProtocolException.class, () -> t.apply(bind(1, 10, 2, 20, 3, 30)));
        assertEquals(ErrorCode.LIMIT_EXCEEDED, e.code());
        assertTrue(e.getMessage().contains("3 request ids, more than the application's limit of 2"), e.getMessage());
        assertEquals(2, t.size());
    }

    @Test
    void annotate_givesEachSlotItsContentKeyAndGeneration() {
        BindingTable t = new BindingTable(10, 100);
        t.apply(bind(4, 40));
        BindingTable.Annotation a = t.annotate(ScheduleChunk.of(0, new int[] {4, 1, 4}, new int[] {0, 0, 1}));
        assertArrayEquals(new long[] {40, 1, 40}, a.contentKeys());
        assertArrayEquals(new int[] {1, 0, 1}, a.generations());
    }

    @Test
    void messages_announceEveryChange_inRebindsOfAtMost4096Ids() {
        BindingTable t = new BindingTable(10_000, 10_000);
        Bindings.Builder b = Bindings.builder();
        for (int id = 0; id < 5000; id++) {
            b.bind(id, 100_000 + id);
        }
        java.util.List<String> messages = t.apply(b.build()).messages();
        assertEquals(2, messages.size());
        int seen = 0;
        for (String text : messages) {
            var r = (dev.khameleon.core.protocol.ControlMessage.Rebind)
                    dev.khameleon.core.protocol.ControlCodec.decodeFromServer(text);
            assertTrue(r.requestIds().length <= dev.khameleon.core.protocol.Protocol.MAX_REBIND_PAIRS);
            for (int k = 0; k < r.requestIds().length; k++) {
                assertEquals(seen++, r.requestIds()[k]);
                assertEquals(1, r.generations()[k]);
            }
        }
        assertEquals(5000, seen);
    }
}
