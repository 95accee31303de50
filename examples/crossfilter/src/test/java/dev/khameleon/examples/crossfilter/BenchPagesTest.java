package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BenchPagesTest {
    @Test
    void sessions_spreadOverTheRecordedOnes_dealtToThePages_allDifferent() {
        assertEquals(List.of(List.of(0, 27)), BenchPages.sessions(55, 1, 2));
        assertEquals(List.of(List.of(0, 27), List.of(6, 34), List.of(13, 41), List.of(20, 48)),
                BenchPages.sessions(55, 4, 2));
        List<List<Integer>> eight = BenchPages.sessions(55, 8, 2);
        Set<Integer> all = new HashSet<>();
        eight.forEach(all::addAll);
        assertEquals(16, all.size(), "no session on two pages");
        assertEquals(List.of(List.of(0, 1, 2, 3, 4)), BenchPages.sessions(5, 1, 5));
        assertThrows(IllegalArgumentException.class, () -> BenchPages.sessions(55, 8, 7));
        assertThrows(IllegalArgumentException.class, () -> BenchPages.sessions(55, 0, 2));
    }
}
