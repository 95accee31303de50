package dev.khameleon.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BindingsTest {
    @Test
    void build_sortsByRequestIdAndLooksUpEachBinding() {
        Bindings b = Bindings.builder().bind(9, 900).bind(2, 200).bind(5, -5).build();
        assertEquals(3, b.size());
        assertEquals(2, b.requestId(0));
        assertEquals(5, b.requestId(1));
        assertEquals(9, b.requestId(2));
        assertEquals(-5, b.contentKeyAt(1));
        assertEquals(900, b.contentKey(9));
        assertEquals(200, b.contentKey(2));
    }

    @Test
    void contentKey_ofAnUnboundIdIsTheIdItself() {
        Bindings b = Bindings.builder().bind(2, 200).build();
        assertEquals(3, b.contentKey(3));
        assertTrue(b.indexOf(3) < 0);
        assertEquals(7, Bindings.none().contentKey(7));
    }

    @Test
    void bind_toTheIdItselfIsTheDefaultAndNotStored() {
        Bindings b = Bindings.builder().bind(4, 4).bind(6, 60).build();
        assertEquals(1, b.size());
        assertSame(Bindings.none(), Bindings.builder().bind(4, 4).build());
    }

    @Test
    void build_rejectsAnIdBoundTwice() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Bindings.builder().bind(3, 30).bind(1, 10).bind(3, 31).build());
        assertTrue(e.getMessage().contains("request 3 is bound twice"), e.getMessage());
    }

    @Test
    void bind_rejectsANegativeId() {
        assertThrows(IllegalArgumentException.class, () -> Bindings.builder().bind(-1, 5));
    }

    @Test
    void equals_comparesContent() {
        assertEquals(Bindings.builder().bind(1, 10).bind(0, 7).build(),
                Bindings.builder().bind(0, 7).bind(1, 10).build());
    }
}
